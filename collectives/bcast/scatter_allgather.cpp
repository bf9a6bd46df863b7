#include "collectives/bcast/bcast.hpp"

namespace strata::coll {

adi::Error bcast_scatter_allgather(const Group& g, void* buf, std::size_t bytes, int root) {
    const int p = g.size();
    const BinomialTree t(g.rank, root, p);
    const int vr = t.vr;
    const std::size_t piece = (bytes + static_cast<std::size_t>(p) - 1) / static_cast<std::size_t>(p);
    // Piece i (relative rank i) is [begin(i), begin(i + 1)); trailing pieces may be empty.
    auto begin = [&](int i) { return std::min(static_cast<std::size_t>(i) * piece, bytes); };
    Outcome out;
    std::vector<adi::Request*> reqs;

    // Scatter down the binomial tree: relative rank vr owns the pieces of
    // its subtree, [vr, vr + span), after this.
    if (!t.is_root()) {
        const std::size_t b = begin(vr), e = begin(vr + t.subtree());
        reqs.push_back(recv_start(g, t.parent(), kTagBcast, at(buf, b), e - b));
        if (!out.wait(g, reqs)) return out.error();
    }
    for (int m = t.span >> 1; m > 0; m >>= 1) {
        if (!t.has_child(m)) continue;
        const std::size_t b = begin(vr + m), e = begin(std::min(vr + 2 * m, p));
        reqs.push_back(send_start(g, t.child(m), kTagBcast, at(buf, b), e - b));
    }
    if (!out.wait(g, reqs)) return out.error();

    // Ring allgather of the pieces: in step s, pass on the piece received in step s - 1.
    const int right = t.rank_of((vr + 1) % p), left = t.rank_of((vr - 1 + p) % p);
    for (int s = 0; s < p - 1; ++s) {
        const int sp = (vr - s + p) % p, rp = (vr - s - 1 + p) % p;
        const std::size_t sb = begin(sp), rb = begin(rp);
        if (!exchange(g, out, kTagBcast, right, at(buf, sb), begin(sp + 1) - sb, left, at(buf, rb),
                      begin(rp + 1) - rb))
            return out.error();
    }
    return out.error();
}

}  // namespace strata::coll
