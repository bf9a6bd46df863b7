// MPI_Alltoallv algorithms. Process i sends scounts[j] bytes at
// send + sdispls[j] to process j, which receives them at recv + rdispls[i]
// (room rcounts[i]).
#pragma once

#include <span>

#include "collectives/collective.hpp"
#include "collectives/registry.hpp"

namespace strata::coll {

// Pairwise exchange, as alltoall_pairwise but with per-peer counts and
// displacements. Any p, any counts (zero included).
adi::Error alltoallv_pairwise(const Group& g, const void* send, std::span<const std::size_t> scounts,
                              std::span<const std::size_t> sdispls, void* recv, std::span<const std::size_t> rcounts,
                              std::span<const std::size_t> rdispls);

// The signature every alltoallv algorithm has.
using AlltoallvFn = adi::Error(const Group& g, const void* send, std::span<const std::size_t> scounts,
                               std::span<const std::size_t> sdispls, void* recv, std::span<const std::size_t> rcounts,
                               std::span<const std::size_t> rdispls);

// Multilevel: as alltoall_multilevel, with the blocks' byte counts travelling
// just ahead of the data (only their senders know them).
// `shape` picks the hierarchy (hierarchy.hpp); every stage's group chooses
// its own flat algorithm.
adi::Error alltoallv_multilevel(const Group& g, Shape shape, const void* send, std::span<const std::size_t> scounts,
                                std::span<const std::size_t> sdispls, void* recv, std::span<const std::size_t> rcounts,
                                std::span<const std::size_t> rdispls);

extern const Registry<AlltoallvFn> alltoallv_algorithms;

}  // namespace strata::coll
