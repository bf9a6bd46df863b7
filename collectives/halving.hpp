// Building blocks shared by the recursive-halving algorithms (Rabenseifner's
// allreduce and reduce, reduce_scatter by halving): the fold of any process count onto a power-of-two core, and the
// reduce-scatter by recursive halving over that core. Not algorithms
// themselves: they run inside one and leave it in a known state.
#pragma once

#include <span>
#include <vector>

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

// The core's pieces of a vector: piece i is elements [first(i), first(i + 1)).
class Pieces {
public:
    // `count` elements in n nearly equal pieces.
    static Pieces even(std::size_t count, int n);
    // Piece c holds the elements the real ranks of core rank c own, given
    // every real rank's count (rank order).
    static Pieces of_ranks(const Core& core, std::span<const std::size_t> counts);
    std::size_t first(int i) const { return starts_[static_cast<std::size_t>(i)]; }

private:
    std::vector<std::size_t> starts_;
};

// The fold and the halving read our values from `mine`: the caller's input
// until a step has combined it into `acc` (the input is never copied whole;
// a step receives the peer's part straight into `acc` and combines the input
// into it), then `acc` itself, and then the peer's part lands in `scratch`,
// which grows as needed. Both require a commutative operation: which operand
// comes first depends on where the data was.

// Folds: an even rank below 2*rem sends its values to its odd neighbour,
// which combines them with its own in `acc` (count elements).
bool core_fold(const Group& g, const Core& core, Outcome& out, int tag, const std::byte*& mine, std::byte* acc,
               Bytes& scratch, std::size_t count, const ReduceOp& op);

// On core processes: afterwards `acc` holds, in piece core.rank, that piece
// reduced over every process (other parts of `acc` are undefined).
bool reduce_scatter_halving(const Group& g, const Core& core, Outcome& out, int tag, const std::byte*& mine,
                            std::byte* acc, Bytes& scratch, const Pieces& pieces, const ReduceOp& op);

}  // namespace strata::coll
