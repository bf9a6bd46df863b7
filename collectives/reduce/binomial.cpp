#include "collectives/reduce/reduce.hpp"

namespace strata::coll {

adi::Error reduce_binomial(const Group& g, const void* send, void* recv, std::size_t count, const ReduceOp& op,
                           int root) {
    const BinomialTree t(g.rank, root, g.size());
    const std::size_t bytes = count * op.element_bytes();
    Outcome out;
    std::vector<adi::Request*> reqs;

    // A leaf sends its buffer as is; others accumulate (in `recv` at the root).
    const bool leaf = !t.is_root() && t.span == 1;
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
    // The children nearest first, then the result of the subtree to the parent.
    for (int m = 1; t.has_child(m); m <<= 1) {
        reqs.push_back(recv_start(g, t.child(m), kTagReduce, scratch.data(), bytes));
        if (!out.wait(g, reqs)) return out.error();
        op.apply(scratch.data(), acc, count);
    }
    if (!t.is_root()) reqs.push_back(send_start(g, t.parent(), kTagReduce, leaf ? send : acc, bytes));
    out.wait(g, reqs);
    return out.error();
}

}  // namespace strata::coll
