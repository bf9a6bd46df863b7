// MPI_Gather algorithms. Every process sends `sbytes`; the root receives
// blocks of `rblock` bytes into `recv` in rank order (p * rblock bytes).
// Non-roots ignore `recv` and `rblock`.
#pragma once

#include "collectives/collective.hpp"
#include "collectives/registry.hpp"

namespace strata::coll {

// The root receives from every process directly. Any p, any size; p - 1
// messages at the root but no intermediate copies: for large blocks.
adi::Error gather_linear(const Group& g, const void* send, std::size_t sbytes, void* recv, std::size_t rblock,
                         int root);

// Binomial tree: subtrees are gathered in a temporary buffer and forwarded as
// one message, log2(p) rounds. Any p; for small blocks. Blocks must be the
// same size everywhere (sbytes == the root's rblock).
adi::Error gather_binomial(const Group& g, const void* send, std::size_t sbytes, void* recv, std::size_t rblock,
                           int root);

// The signature every gather algorithm has.
using GatherFn = adi::Error(const Group& g, const void* send, std::size_t sbytes, void* recv, std::size_t rblock,
                            int root);

// Multilevel: each stage's root gathers its members' bundles (their
// clusters' blocks, hierarchy.hpp's travel order), finest stage first; the
// root reorders to rank order when clusters are not runs of consecutive ranks.
// `shape` picks the hierarchy (hierarchy.hpp); every stage's group chooses
// its own flat algorithm.
adi::Error gather_multilevel(const Group& g, Shape shape, const void* send, std::size_t sbytes, void* recv,
                             std::size_t rblock, int root);

extern const Registry<GatherFn> gather_algorithms;

}  // namespace strata::coll
