// MPI_Gatherv algorithms. Every process sends `sbytes`; the root receives
// rank i's block into recv + rdispls[i], with room for rcounts[i] bytes.
// Non-roots ignore recv, rcounts and rdispls (which may be empty).
#pragma once

#include <span>

#include "collectives/collective.hpp"
#include "collectives/registry.hpp"

namespace strata::coll {

// The root receives from every process directly, straight into place. Any p,
// any counts (zero included), any displacements. Only the root knows the
// counts, so a tree could not size its messages: this is the one algorithm.
adi::Error gatherv_linear(const Group& g, const void* send, std::size_t sbytes, void* recv,
                          std::span<const std::size_t> rcounts, std::span<const std::size_t> rdispls, int root);

// The signature every gatherv algorithm has.
using GathervFn = adi::Error(const Group& g, const void* send, std::size_t sbytes, void* recv,
                             std::span<const std::size_t> rcounts, std::span<const std::size_t> rdispls, int root);

// Multilevel: as gather_multilevel, each bundle preceded by its ranks' byte
// counts (only the senders and the root know them).
// `shape` picks the hierarchy (hierarchy.hpp); every stage's group chooses
// its own flat algorithm.
adi::Error gatherv_multilevel(const Group& g, Shape shape, const void* send, std::size_t sbytes, void* recv,
                              std::span<const std::size_t> rcounts, std::span<const std::size_t> rdispls, int root);

extern const Registry<GathervFn> gatherv_algorithms;

}  // namespace strata::coll
