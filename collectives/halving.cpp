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

namespace {

// Receives elements [at, at + n) from `peer` while sending [give, give +
// gbytes) of `mine` to `dest` (none when negative), and leaves them reduced in `acc`.
bool combine_step(const Group& g, Outcome& out, int tag, int peer, int dest, const std::byte*& mine, std::byte* acc,
                  Bytes& scratch, std::size_t give, std::size_t gbytes, std::size_t at, std::size_t n,
                  const ReduceOp& op) {
    const std::size_t off = at * op.element_bytes(), bytes = n * op.element_bytes();
    if (mine != acc) {
        if (!exchange(g, out, tag, dest, mine + give, gbytes, peer, acc + off, bytes)) return false;
        op.apply(mine + off, acc + off, n);
        mine = acc;
        return true;
    }
    if (scratch.size() < bytes) scratch.resize(bytes);
    if (!exchange(g, out, tag, dest, acc + give, gbytes, peer, scratch.data(), bytes)) return false;
    op.apply(scratch.data(), acc + off, n);
    return true;
}

}  // namespace

bool core_fold(const Group& g, const Core& core, Outcome& out, int tag, const std::byte*& mine, std::byte* acc,
               Bytes& scratch, std::size_t count, const ReduceOp& op) {
    if (g.rank >= 2 * core.rem) return true;
    if (g.rank % 2 == 0) {
        std::vector<adi::Request*> reqs{send_start(g, g.rank + 1, tag, mine, count * op.element_bytes())};
        return out.wait(g, reqs);
    }
    return combine_step(g, out, tag, g.rank - 1, -1, mine, acc, scratch, 0, 0, 0, count, op);
}

bool reduce_scatter_halving(const Group& g, const Core& core, Outcome& out, int tag, const std::byte*& mine,
                            std::byte* acc, Bytes& scratch, const Pieces& pieces, const ReduceOp& op) {
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
        if (!combine_step(g, out, tag, peer, peer, mine, acc, scratch, gb * eb, (ge - gb) * eb, kb, ke - kb, op))
            return false;
        lo = keep;
    }
    if (mine != acc) {  // a core of one: no step has taken our values over
        const std::size_t b = pieces.first(core.rank), e = pieces.first(core.rank + 1);
        bytes_copy(acc + b * eb, mine + b * eb, (e - b) * eb);
        mine = acc;
    }
    return true;
}

}  // namespace strata::coll
