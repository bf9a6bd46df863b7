#include "collectives/scatter/scatter.hpp"

namespace strata::coll {

adi::Error scatter_binomial(const Group& g, const void* send, std::size_t sblock, void* recv, std::size_t rbytes,
                            int root) {
    const int p = g.size();
    const BinomialTree t(g.rank, root, p);
    const std::size_t block = g.rank == root ? sblock : rbytes;
    Outcome out;
    std::vector<adi::Request*> reqs;

    // Our subtree is relative ranks [vr, vr + lowbit(vr)); we receive all its
    // blocks, in relative order, from the parent. A leaf receives straight
    // into `recv`; the root reads `send` in place when it is rank 0.
    const int subtree = t.subtree();
    Bytes tmp;
    const std::byte* blocks = nullptr;
    if (g.rank == root) {
        if (root == 0) {
            blocks = static_cast<const std::byte*>(send);
        } else {
            tmp.resize(static_cast<std::size_t>(p) * block);
            const std::size_t head = static_cast<std::size_t>(p - root) * block;
            bytes_copy(tmp.data(), at(send, static_cast<std::size_t>(root) * block), head);
            bytes_copy(tmp.data() + head, send, static_cast<std::size_t>(root) * block);
            blocks = tmp.data();
        }
    } else {
        const int parent = t.parent();
        if (subtree == 1) {
            reqs.push_back(recv_start(g, parent, kTagScatter, recv, rbytes));
            out.wait(g, reqs);
            return out.error();
        }
        tmp.resize(static_cast<std::size_t>(subtree) * block);
        reqs.push_back(recv_start(g, parent, kTagScatter, tmp.data(), tmp.size()));
        if (!out.wait(g, reqs)) return out.error();
        blocks = tmp.data();
    }
    for (int m = t.span >> 1; m > 0; m >>= 1) {
        if (!t.has_child(m)) continue;
        const int n = std::min(m, p - (t.vr + m));
        reqs.push_back(send_start(g, t.child(m), kTagScatter, blocks + static_cast<std::size_t>(m) * block,
                                  static_cast<std::size_t>(n) * block));
    }
    out.add(self_copy(recv, rbytes, blocks, block));
    out.wait(g, reqs);
    return out.error();
}

}  // namespace strata::coll
