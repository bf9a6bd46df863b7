// Building blocks shared by the Rabenseifner algorithms (allreduce and
// reduce): the fold of any process count onto a power-of-two core, and the
// reduce-scatter by recursive halving over that core. Not algorithms
// themselves: they run inside one and leave it in a known state.
#pragma once

#include "collectives/collective.hpp"
#include "collectives/reduce_op.hpp"

namespace strata::coll {

// The largest power of two pof2 <= p, and rem = p - pof2. The first 2*rem
// ranks fold in pairs (2i, 2i+1) into the odd one; core rank c is real rank
// 2c+1 for c < rem and c + rem above, so core order is rank order.
struct Core {
    int pof2;
    int rem;
    int rank;  // our core rank, or -1 when folded away
    explicit Core(const Group& g);
    int real(int c) const { return c < rem ? 2 * c + 1 : c + rem; }
};

// Piece i of pof2 over `count` elements is [first(i), first(i + 1)).
struct Pieces {
    std::size_t count;
    int n;
    std::size_t first(int i) const {
        const auto u = static_cast<std::size_t>(i);
        const std::size_t q = count / static_cast<std::size_t>(n), extra = count % static_cast<std::size_t>(n);
        return u * q + std::min(u, extra);
    }
};

// Folds: an even rank below 2*rem sends `acc` to its odd neighbour, which
// combines it (lower operand first). `scratch` holds count elements.
bool core_fold(const Group& g, const Core& core, Outcome& out, int tag, std::byte* acc, std::byte* scratch,
               std::size_t count, const ReduceOp& op);

// On core processes: afterwards `acc` holds, in piece core.rank, that piece
// reduced over every process. Requires a commutative operation.
bool reduce_scatter_halving(const Group& g, const Core& core, Outcome& out, int tag, std::byte* acc,
                            std::byte* scratch, const Pieces& pieces, const ReduceOp& op);

}  // namespace strata::coll
