#include "collectives/reduce/reduce.hpp"

#include <utility>

namespace strata::coll {

adi::Error reduce_binomial_ordered(const Group& g, const void* send, void* recv, std::size_t count,
                                   const ReduceOp& op, int root) {
    const int r = g.rank;
    const BinomialTree t(r, 0, g.size());  // rooted at rank 0, so ranks stay in order
    const std::size_t bytes = count * op.element_bytes();
    Outcome out;
    std::vector<adi::Request*> reqs;

    // Rank r holds the reduction of ranks [r, r + 2^k) after round k. The
    // higher range comes second: acc = acc op incoming, computed as
    // incoming = acc op incoming, then the two buffers swap roles.
    Bytes a(bytes), b(bytes);
    std::byte* acc = a.data();
    std::byte* other = b.data();
    bytes_copy(acc, send, bytes);
    for (int m = 1; t.has_child(m); m <<= 1) {
        reqs.push_back(recv_start(g, t.child(m), kTagReduce, other, bytes));
        if (!out.wait(g, reqs)) return out.error();
        op.apply(acc, other, count);
        std::swap(acc, other);
    }
    if (!t.is_root()) {
        reqs.push_back(send_start(g, t.parent(), kTagReduce, acc, bytes));
        if (!out.wait(g, reqs)) return out.error();
    } else {
        // Rank 0 holds the result.
        if (root == 0) {
            bytes_copy(recv, acc, bytes);
        } else {
            reqs.push_back(send_start(g, root, kTagReduce, acc, bytes));
            out.wait(g, reqs);
        }
    }
    if (r == root && root != 0) {
        reqs.push_back(recv_start(g, 0, kTagReduce, recv, bytes));
        out.wait(g, reqs);
    }
    return out.error();
}

}  // namespace strata::coll
