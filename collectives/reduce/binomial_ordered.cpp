#include "collectives/reduce/reduce.hpp"

#include <utility>

namespace strata::coll {

adi::Error reduce_binomial_ordered(const Group& g, const void* send, void* recv, std::size_t count,
                                   const ReduceOp& op, int root) {
    const int p = g.size();
    const int r = g.rank;
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
    bool sent = false;
    for (int mask = 1; mask < p; mask <<= 1) {
        if ((r & mask) == 0) {
            if ((r | mask) >= p) continue;
            reqs.push_back(recv_start(g, r | mask, kTagReduce, other, bytes));
            if (!out.wait(g, reqs)) return out.error();
            op.apply(acc, other, count);
            std::swap(acc, other);
        } else {
            reqs.push_back(send_start(g, r - mask, kTagReduce, acc, bytes));
            if (!out.wait(g, reqs)) return out.error();
            sent = true;
            break;
        }
    }
    if (!sent && r == 0) {
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
