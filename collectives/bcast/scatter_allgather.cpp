#include "collectives/bcast/bcast.hpp"

namespace strata::coll {

adi::Error bcast_scatter_allgather(const Group& g, void* buf, std::size_t bytes, int root) {
    const int p = g.size();
    const int vr = (g.rank - root + p) % p;
    const std::size_t piece = (bytes + static_cast<std::size_t>(p) - 1) / static_cast<std::size_t>(p);
    // Piece i (relative rank i) is [begin(i), begin(i + 1)); trailing pieces may be empty.
    auto begin = [&](int i) { return std::min(static_cast<std::size_t>(i) * piece, bytes); };
    auto real = [&](int rel) { return (rel + root) % p; };
    Outcome out;
    std::vector<adi::Request*> reqs;

    // Scatter: relative rank vr owns pieces [vr, vr + lowbit(vr)) after this.
    int mask = 1;
    while (mask < p) {
        if (vr & mask) {
            const std::size_t b = begin(vr), e = begin(std::min(vr + mask, p));
            reqs.push_back(recv_start(g, real(vr - mask), kTagBcast, at(buf, b), e - b));
            if (!out.wait(g, reqs)) return out.error();
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (vr + mask < p) {
            const std::size_t b = begin(vr + mask), e = begin(std::min(vr + 2 * mask, p));
            reqs.push_back(send_start(g, real(vr + mask), kTagBcast, at(buf, b), e - b));
        }
    }
    if (!out.wait(g, reqs)) return out.error();

    // Ring allgather of the pieces: in step s, pass on the piece received in step s - 1.
    const int right = real((vr + 1) % p), left = real((vr - 1 + p) % p);
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
