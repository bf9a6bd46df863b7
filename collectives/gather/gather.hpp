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
using GatherFn = adi::Error(const Group& g, const void* send, std::size_t sbytes, void* recv, std::size_t rblock, int root);

// Stage by stage along the communicator's hierarchy by `shape` (hierarchy.hpp),
// each stage's group choosing its own flat algorithm.
adi::Error gather_multilevel(const Group& g, Shape shape, const void* send, std::size_t sbytes, void* recv, std::size_t rblock, int root);
template <Shape S>
adi::Error gather_shaped(const Group& g, const void* send, std::size_t sbytes, void* recv, std::size_t rblock, int root) {
    return gather_multilevel(g, S, send, sbytes, recv, rblock, root);
}

extern const Registry<GatherFn> gather_algorithms;

}  // namespace strata::coll
