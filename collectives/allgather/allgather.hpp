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

// The signature every allgather algorithm has.
using AllgatherFn = adi::Error(const Group& g, const void* send, std::size_t sbytes, void* recv, std::size_t rblock);

// Stage by stage along the communicator's hierarchy by `shape` (hierarchy.hpp),
// each stage's group choosing its own flat algorithm.
adi::Error allgather_multilevel(const Group& g, Shape shape, const void* send, std::size_t sbytes, void* recv, std::size_t rblock);
template <Shape S>
adi::Error allgather_shaped(const Group& g, const void* send, std::size_t sbytes, void* recv, std::size_t rblock) {
    return allgather_multilevel(g, S, send, sbytes, recv, rblock);
}

extern const Registry<AllgatherFn> allgather_algorithms;

}  // namespace strata::coll
