#include "collectives/reduce/reduce.hpp"

namespace strata::coll {

adi::Error reduce_binomial(const Group& g, const void* send, void* recv, std::size_t count, const ReduceOp& op,
                           int root) {
    const int p = g.size();
    const int vr = (g.rank - root + p) % p;
    const std::size_t bytes = count * op.element_bytes();
    Outcome out;
    std::vector<adi::Request*> reqs;

    // A leaf sends its buffer as is; others accumulate (in `recv` at the root).
    const bool leaf = (vr & 1) != 0;
    Bytes acc_store, scratch;
    std::byte* acc = nullptr;
    if (!leaf) {
        if (g.rank == root) {
            acc = static_cast<std::byte*>(recv);
        } else {
            acc_store.resize(bytes);
            acc = acc_store.data();
        }
        bytes_copy(acc, send, bytes);
        scratch.resize(bytes);
    }
    for (int mask = 1; mask < p; mask <<= 1) {
        if ((vr & mask) == 0) {
            const int child = vr | mask;
            if (child >= p) continue;
            reqs.push_back(recv_start(g, (child + root) % p, kTagReduce, scratch.data(), bytes));
            if (!out.wait(g, reqs)) return out.error();
            op.apply(scratch.data(), acc, count);
        } else {
            reqs.push_back(send_start(g, (vr - mask + root) % p, kTagReduce, leaf ? send : acc, bytes));
            break;
        }
    }
    out.wait(g, reqs);
    return out.error();
}

}  // namespace strata::coll
