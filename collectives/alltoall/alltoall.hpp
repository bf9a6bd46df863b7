// MPI_Alltoall algorithms. Process i sends block j of `send` (sblock bytes)
// to process j, which receives it as block i of `recv` (rblock bytes).
#pragma once

#include "collectives/collective.hpp"
#include "collectives/registry.hpp"

namespace strata::coll {

// Pairwise exchange: p - 1 rounds, in round s exchange with one partner
// (rank XOR s when p is a power of two, else rank + s / rank - s), straight
// between user buffers. Any p, any size; for medium and long blocks.
adi::Error alltoall_pairwise(const Group& g, const void* send, std::size_t sblock, void* recv, std::size_t rblock);

// Bruck: ceil(log2 p) rounds, in round k every block whose index has bit k
// set moves k ranks on; blocks are packed into one message per round. Any p;
// for short blocks with many processes (latency bound). Blocks must be the
// same size everywhere (sblock == rblock).
adi::Error alltoall_bruck(const Group& g, const void* send, std::size_t sblock, void* recv, std::size_t rblock);

// The signature every alltoall algorithm has.
using AlltoallFn = adi::Error(const Group& g, const void* send, std::size_t sblock, void* recv, std::size_t rblock);

// Multilevel: every process's send buffer goes up to its coarsest cluster's
// representative; the representatives exchange one message per pair of
// clusters holding every block between the two; each then hands its ranks
// their blocks down the stages.
// `shape` picks the hierarchy (hierarchy.hpp); every stage's group chooses
// its own flat algorithm.
adi::Error alltoall_multilevel(const Group& g, Shape shape, const void* send, std::size_t sblock, void* recv,
                               std::size_t rblock);

extern const Registry<AlltoallFn> alltoall_algorithms;

}  // namespace strata::coll
