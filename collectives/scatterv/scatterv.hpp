// MPI_Scatterv algorithms. The root sends rank i the scounts[i] bytes at
// send + sdispls[i]; every process receives into `recv` (room for `rbytes`).
// Non-roots ignore send, scounts and sdispls (which may be empty).
#pragma once

#include <span>

#include "collectives/collective.hpp"
#include "collectives/registry.hpp"

namespace strata::coll {

// The root sends every block directly from place. Any p, any counts, any
// displacements; only the root knows the counts, so this is the one algorithm.
adi::Error scatterv_linear(const Group& g, const void* send, std::span<const std::size_t> scounts,
                           std::span<const std::size_t> sdispls, void* recv, std::size_t rbytes, int root);

// The signature every scatterv algorithm has.
using ScattervFn = adi::Error(const Group& g, const void* send, std::span<const std::size_t> scounts,
                              std::span<const std::size_t> sdispls, void* recv, std::size_t rbytes, int root);

// Multilevel: as scatter_multilevel, each bundle preceded by its ranks' byte
// counts (only the root knows them).
// `shape` picks the hierarchy (hierarchy.hpp); every stage's group chooses
// its own flat algorithm.
adi::Error scatterv_multilevel(const Group& g, Shape shape, const void* send, std::span<const std::size_t> scounts,
                               std::span<const std::size_t> sdispls, void* recv, std::size_t rbytes, int root);

extern const Registry<ScattervFn> scatterv_algorithms;

}  // namespace strata::coll
