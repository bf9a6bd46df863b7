// MPI_Allgatherv algorithms. Every process contributes `sbytes`; every
// process receives rank i's block into recv + rdispls[i] (room rcounts[i]).
#pragma once

#include <span>

#include "collectives/collective.hpp"
#include "collectives/registry.hpp"

namespace strata::coll {

// Bruck with per-rank block sizes: ceil(log2 p) rounds through a temporary
// buffer, then one copy into place. Any p, any counts; for short totals.
adi::Error allgatherv_bruck(const Group& g, const void* send, std::size_t sbytes, void* recv,
                            std::span<const std::size_t> rcounts, std::span<const std::size_t> rdispls);

// Ring: p - 1 rounds, each passes one block to the right neighbour, straight
// between user buffers. Any p, any counts (zero included), any displacements.
adi::Error allgatherv_ring(const Group& g, const void* send, std::size_t sbytes, void* recv,
                           std::span<const std::size_t> rcounts, std::span<const std::size_t> rdispls);

// Direct: every process sends its block to every other one at once and
// receives each block from its owner, one round, straight between user
// buffers. p - 1 messages out of and into every process; for the wide area,
// where each pair of sites has a link of its own and a round costs a latency
// (the ring takes p - 1 rounds, Bruck log2(p)). Any p, any counts.
adi::Error allgatherv_direct(const Group& g, const void* send, std::size_t sbytes, void* recv,
                             std::span<const std::size_t> rcounts, std::span<const std::size_t> rdispls);

// The signature every allgatherv algorithm has.
using AllgathervFn = adi::Error(const Group& g, const void* send, std::size_t sbytes, void* recv,
                                std::span<const std::size_t> rcounts, std::span<const std::size_t> rdispls);

// Multilevel: as allgather_multilevel with each rank's own block size.
// `shape` picks the hierarchy (hierarchy.hpp); every stage's group chooses
// its own flat algorithm.
adi::Error allgatherv_multilevel(const Group& g, Shape shape, const void* send, std::size_t sbytes, void* recv,
                                 std::span<const std::size_t> rcounts, std::span<const std::size_t> rdispls);

extern const Registry<AllgathervFn> allgatherv_algorithms;

}  // namespace strata::coll
