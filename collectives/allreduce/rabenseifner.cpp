#include "collectives/allreduce/allreduce.hpp"

namespace strata::coll {

adi::Error allreduce_rabenseifner(const Group& g, const void* send, void* recv, std::size_t count,
                                  const ReduceOp& op) {
    const int p = g.size();
    const int r = g.rank;
    const std::size_t eb = op.element_bytes();
    const std::size_t bytes = count * eb;
    const int pof2 = pof2_floor(p);
    const int rem = p - pof2;
    Outcome out;
    std::vector<adi::Request*> reqs;

    // The result is built in place in `recv`.
    std::byte* acc = static_cast<std::byte*>(recv);
    bytes_copy(acc, send, bytes);
    std::vector<std::byte> scratch(bytes);

    // Fold the first 2*rem ranks in pairs, as recursive doubling does.
    int core = -1;
    if (r < 2 * rem) {
        if (r % 2 == 0) {
            reqs.push_back(send_start(g, r + 1, kTagAllreduce, acc, bytes));
            if (!out.wait(g, reqs)) return out.error();
        } else {
            reqs.push_back(recv_start(g, r - 1, kTagAllreduce, scratch.data(), bytes));
            if (!out.wait(g, reqs)) return out.error();
            op.apply(scratch.data(), acc, count);
            core = r / 2;
        }
    } else {
        core = r - rem;
    }

    if (core >= 0) {
        // Piece i of pof2 pieces: elements [first(i), first(i + 1)).
        const std::size_t q = count / static_cast<std::size_t>(pof2), extra = count % static_cast<std::size_t>(pof2);
        auto first = [&](int i) {
            const auto u = static_cast<std::size_t>(i);
            return u * q + std::min(u, extra);
        };
        auto real = [&](int c) { return c < rem ? c * 2 + 1 : c + rem; };

        // Reduce-scatter by recursive halving: we own pieces [lo, lo + 2*mask)
        // and keep the half containing our core rank.
        int lo = 0;
        for (int mask = pof2 / 2; mask > 0; mask >>= 1) {
            const int peer = real(core ^ mask);
            const bool lower = (core & mask) == 0;
            const int keep = lower ? lo : lo + mask;
            const int give = lower ? lo + mask : lo;
            const std::size_t kb = first(keep), ke = first(keep + mask);
            const std::size_t gb = first(give), ge = first(give + mask);
            if (!exchange(g, out, kTagAllreduce, peer, acc + gb * eb, (ge - gb) * eb, peer, scratch.data() + kb * eb,
                          (ke - kb) * eb))
                return out.error();
            op.apply(scratch.data() + kb * eb, acc + kb * eb, ke - kb);
            lo = keep;
        }
        // Allgather by recursive doubling: we own [lo, lo + mask) and gain the partner's half.
        for (int mask = 1; mask < pof2; mask <<= 1) {
            const int peer = real(core ^ mask);
            const int theirs = lo ^ mask;
            const std::size_t ob = first(lo), oe = first(lo + mask);
            const std::size_t tb = first(theirs), te = first(theirs + mask);
            if (!exchange(g, out, kTagAllreduce, peer, acc + ob * eb, (oe - ob) * eb, peer, acc + tb * eb,
                          (te - tb) * eb))
                return out.error();
            lo = std::min(lo, theirs);
        }
    }

    if (r < 2 * rem) {
        if (r % 2 == 1) {
            reqs.push_back(send_start(g, r - 1, kTagAllreduce, acc, bytes));
        } else {
            reqs.push_back(recv_start(g, r + 1, kTagAllreduce, acc, bytes));
        }
        out.wait(g, reqs);
    }
    return out.error();
}

}  // namespace strata::coll
