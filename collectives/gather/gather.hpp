// MPI_Gather algorithms. Every process sends `sbytes`; the root receives
// blocks of `rblock` bytes into `recv` in rank order (p * rblock bytes).
// Non-roots ignore `recv` and `rblock`.
#pragma once

#include "collectives/collective.hpp"

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

}  // namespace strata::coll
