#include "collectives/gather/gather.hpp"

namespace strata::coll {

adi::Error gather_binomial(const Group& g, const void* send, std::size_t sbytes, void* recv, std::size_t rblock,
                           int root) {
    const int p = g.size();
    const BinomialTree t(g.rank, root, p);
    const std::size_t block = g.rank == root ? rblock : sbytes;
    Outcome out;
    std::vector<adi::Request*> reqs;

    // Our subtree is relative ranks [vr, vr + lowbit(vr)) (clipped to p). A
    // leaf forwards its send buffer as is; others collect the subtree first,
    // in relative order. At root 0 relative order is rank order: no rotation.
    const int subtree = t.subtree();
    Bytes tmp;
    std::byte* acc = nullptr;
    if (subtree > 1 || g.rank == root) {
        if (g.rank == root && root == 0) {
            acc = static_cast<std::byte*>(recv);
        } else {
            tmp.resize(static_cast<std::size_t>(subtree) * block);
            acc = tmp.data();
        }
        out.add(self_copy(acc, block, send, sbytes));
    }
    for (int m = 1; t.has_child(m); m <<= 1) {
        const int blocks = std::min(m, p - (t.vr + m));
        reqs.push_back(recv_start(g, t.child(m), kTagGather, acc + static_cast<std::size_t>(m) * block,
                                  static_cast<std::size_t>(blocks) * block));
    }
    if (!out.wait(g, reqs)) return out.error();
    if (g.rank != root) {
        const int parent = t.parent();
        if (acc == nullptr) {
            reqs.push_back(send_start(g, parent, kTagGather, send, sbytes));
        } else {
            reqs.push_back(send_start(g, parent, kTagGather, acc, static_cast<std::size_t>(subtree) * block));
        }
        out.wait(g, reqs);
    } else if (acc != recv) {
        // Relative block i belongs to rank (i + root) % p.
        const std::size_t head = static_cast<std::size_t>(p - root) * block;
        bytes_copy(at(recv, static_cast<std::size_t>(root) * block), acc, head);
        bytes_copy(recv, acc + head, static_cast<std::size_t>(root) * block);
    }
    return out.error();
}

}  // namespace strata::coll
