#include "collectives/allreduce/allreduce.hpp"
#include "collectives/halving.hpp"

namespace strata::coll {

adi::Error allreduce_rabenseifner(const Group& g, const void* send, void* recv, std::size_t count,
                                  const ReduceOp& op) {
    const std::size_t eb = op.element_bytes();
    const std::size_t bytes = count * eb;
    const Core core(g);
    const Pieces pieces = Pieces::even(count, core.pof2);
    Outcome out;

    // The result is built in place in `recv`, straight from `send`.
    std::byte* acc = static_cast<std::byte*>(recv);
    const auto* mine = static_cast<const std::byte*>(send);
    Bytes scratch;
    if (!core_fold(g, core, out, kTagAllreduce, mine, acc, scratch, count, op)) return out.error();

    if (core.rank >= 0) {
        if (!reduce_scatter_halving(g, core, out, kTagAllreduce, mine, acc, scratch, pieces, op))
            return out.error();
        // Allgather by recursive doubling: we own [lo, lo + mask) and gain the partner's half.
        int lo = core.rank;
        for (int mask = 1; mask < core.pof2; mask <<= 1) {
            const int peer = core.real(core.rank ^ mask);
            const int theirs = lo ^ mask;
            const std::size_t ob = pieces.first(lo), oe = pieces.first(lo + mask);
            const std::size_t tb = pieces.first(theirs), te = pieces.first(theirs + mask);
            if (!exchange(g, out, kTagAllreduce, peer, acc + ob * eb, (oe - ob) * eb, peer, acc + tb * eb,
                          (te - tb) * eb))
                return out.error();
            lo = std::min(lo, theirs);
        }
    }

    // Hand the result back to the folded-away even ranks.
    if (g.rank < 2 * core.rem) {
        std::vector<adi::Request*> reqs;
        if (g.rank % 2 == 1) {
            reqs.push_back(send_start(g, g.rank - 1, kTagAllreduce, acc, bytes));
        } else {
            reqs.push_back(recv_start(g, g.rank + 1, kTagAllreduce, acc, bytes));
        }
        out.wait(g, reqs);
    }
    return out.error();
}

}  // namespace strata::coll
