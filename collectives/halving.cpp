#include "collectives/halving.hpp"

namespace strata::coll {

Core::Core(const Group& g) : pof2(pof2_floor(g.size())), rem(g.size() - pof2), rank(-1) {
    if (g.rank >= 2 * rem) {
        rank = g.rank - rem;
    } else if (g.rank % 2 == 1) {
        rank = g.rank / 2;
    }
}

Pieces Pieces::even(std::size_t count, int n) {
    Pieces p;
    const auto un = static_cast<std::size_t>(n);
    const std::size_t q = count / un, extra = count % un;
    for (std::size_t i = 0; i <= un; ++i) p.starts_.push_back(i * q + std::min(i, extra));
    return p;
}

Pieces Pieces::of_ranks(const Core& core, std::span<const std::size_t> counts) {
    Pieces p;
    std::size_t at = 0;
    int rank = 0;
    for (int c = 0; c < core.pof2; ++c) {
        p.starts_.push_back(at);
        const int owners = c < core.rem ? 2 : 1;
        for (int k = 0; k < owners; ++k) at += counts[static_cast<std::size_t>(rank++)];
    }
    p.starts_.push_back(at);
    return p;
}

bool core_fold(const Group& g, const Core& core, Outcome& out, int tag, std::byte* acc, std::byte* scratch,
               std::size_t count, const ReduceOp& op) {
    if (g.rank >= 2 * core.rem) return true;
    const std::size_t bytes = count * op.element_bytes();
    std::vector<adi::Request*> reqs;
    if (g.rank % 2 == 0) {
        reqs.push_back(send_start(g, g.rank + 1, tag, acc, bytes));
        return out.wait(g, reqs);
    }
    reqs.push_back(recv_start(g, g.rank - 1, tag, scratch, bytes));
    if (!out.wait(g, reqs)) return false;
    op.apply(scratch, acc, count);
    return true;
}

bool reduce_scatter_halving(const Group& g, const Core& core, Outcome& out, int tag, std::byte* acc,
                            std::byte* scratch, const Pieces& pieces, const ReduceOp& op) {
    const std::size_t eb = op.element_bytes();
    // We own pieces [lo, lo + 2*mask) and keep the half holding our core rank.
    int lo = 0;
    for (int mask = core.pof2 / 2; mask > 0; mask >>= 1) {
        const int peer = core.real(core.rank ^ mask);
        const bool lower = (core.rank & mask) == 0;
        const int keep = lower ? lo : lo + mask;
        const int give = lower ? lo + mask : lo;
        const std::size_t kb = pieces.first(keep), ke = pieces.first(keep + mask);
        const std::size_t gb = pieces.first(give), ge = pieces.first(give + mask);
        if (!exchange(g, out, tag, peer, acc + gb * eb, (ge - gb) * eb, peer, scratch + kb * eb, (ke - kb) * eb))
            return false;
        op.apply(scratch + kb * eb, acc + kb * eb, ke - kb);
        lo = keep;
    }
    return true;
}

}  // namespace strata::coll
