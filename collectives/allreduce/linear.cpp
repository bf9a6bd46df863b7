#include "collectives/allreduce/allreduce.hpp"

namespace strata::coll {

adi::Error allreduce_linear(const Group& g, const void* send, void* recv, std::size_t count, const ReduceOp& op) {
    const int p = g.size();
    const std::size_t bytes = count * op.element_bytes();
    Outcome out;
    std::vector<adi::Request*> reqs;
    if (p == 1) {
        if (send != recv) bytes_copy(recv, send, bytes);
        return adi::Error::none;
    }
    if (g.rank != 0) {
        reqs.push_back(send_start(g, 0, kTagAllreduce, send, bytes));
        reqs.push_back(recv_start(g, 0, kTagAllreduce, recv, bytes));
        out.wait(g, reqs);
        return out.error();
    }
    Bytes all(bytes * static_cast<std::size_t>(p - 1));
    for (int r = 1; r < p; ++r) {
        reqs.push_back(recv_start(g, r, kTagAllreduce, all.data() + static_cast<std::size_t>(r - 1) * bytes, bytes));
    }
    if (!out.wait(g, reqs)) return out.error();
    // r0 op (r1 op (... op r(p-1))): rank order for any operation.
    std::byte* acc = all.data() + static_cast<std::size_t>(p - 2) * bytes;
    for (int r = p - 2; r >= 1; --r) op.apply(all.data() + static_cast<std::size_t>(r - 1) * bytes, acc, count);
    op.apply(send, acc, count);
    bytes_copy(recv, acc, bytes);
    for (int r = p - 1; r > 0; --r) reqs.push_back(send_start(g, r, kTagAllreduce, recv, bytes));
    out.wait(g, reqs);
    return out.error();
}

}  // namespace strata::coll
