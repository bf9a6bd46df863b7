// MPI_Allgather algorithms. Every process contributes `sbytes`; every process
// receives p blocks of `rblock` bytes into `recv`, in rank order.
#pragma once

#include "collectives/collective.hpp"
#include "collectives/registry.hpp"

namespace strata::coll {

// Bruck: ceil(log2 p) rounds, in round k send the 2^k blocks gathered so far
// to rank - 2^k; one final rotation. Any p; for short messages (latency bound).
adi::Error allgather_bruck(const Group& g, const void* send, std::size_t sbytes, void* recv, std::size_t rblock);

// Ring: p - 1 rounds, each passes one block to the right neighbour. Any p;
// for long messages (bandwidth optimal, nearest-neighbour traffic only).
adi::Error allgather_ring(const Group& g, const void* send, std::size_t sbytes, void* recv, std::size_t rblock);

// Direct: allgatherv_direct with equal blocks: one round across the wide area.
adi::Error allgather_direct(const Group& g, const void* send, std::size_t sbytes, void* recv, std::size_t rblock);

// The signature every allgather algorithm has.
using AllgatherFn = adi::Error(const Group& g, const void* send, std::size_t sbytes, void* recv, std::size_t rblock);

// Multilevel: a gather up to the coarsest clusters' representatives, an
// allgatherv of their bundles among them, and a broadcast of the whole result
// back down (multilevel.hpp's allgather_levels).
// `shape` picks the hierarchy (hierarchy.hpp); every stage's group chooses
// its own flat algorithm.
adi::Error allgather_multilevel(const Group& g, Shape shape, const void* send, std::size_t sbytes, void* recv,
                                std::size_t rblock);

extern const Registry<AllgatherFn> allgather_algorithms;

}  // namespace strata::coll
