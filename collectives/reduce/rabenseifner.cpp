#include "collectives/halving.hpp"
#include "collectives/reduce/reduce.hpp"

namespace strata::coll {

adi::Error reduce_rabenseifner(const Group& g, const void* send, void* recv, std::size_t count, const ReduceOp& op,
                               int root) {
    const std::size_t eb = op.element_bytes();
    const std::size_t bytes = count * eb;
    const Core core(g);
    const Pieces pieces = Pieces::even(count, core.pof2);
    Outcome out;
    std::vector<adi::Request*> reqs;

    Bytes acc_store(bytes), scratch;
    std::byte* acc = acc_store.data();
    const auto* mine = static_cast<const std::byte*>(send);
    if (!core_fold(g, core, out, kTagReduce, mine, acc, scratch, count, op)) return out.error();

    // A root folded away is represented in the core by its odd neighbour,
    // which passes the result on at the end.
    const bool root_folded = root < 2 * core.rem && root % 2 == 0;
    const int core_root = root_folded ? (root + 1) / 2 : (root < 2 * core.rem ? root / 2 : root - core.rem);

    if (core.rank >= 0) {
        if (!reduce_scatter_halving(g, core, out, kTagReduce, mine, acc, scratch, pieces, op)) return out.error();
        // Binomial gather of the pieces towards core_root: at step `mask` the
        // processes that agree with core_root below bit `mask` pair up; the one
        // on core_root's side of the bit receives its partner's range.
        int lo = core.rank;
        for (int mask = 1; mask < core.pof2; mask <<= 1) {
            if (((core.rank ^ core_root) & (mask - 1)) != 0) break;  // already sent
            const int peer = core.real(core.rank ^ mask);
            const int theirs = lo ^ mask;
            if (((core.rank ^ core_root) & mask) == 0) {
                const std::size_t tb = pieces.first(theirs), te = pieces.first(theirs + mask);
                reqs.push_back(recv_start(g, peer, kTagReduce, acc + tb * eb, (te - tb) * eb));
                lo = std::min(lo, theirs);
            } else {
                const std::size_t ob = pieces.first(lo), oe = pieces.first(lo + mask);
                reqs.push_back(send_start(g, peer, kTagReduce, acc + ob * eb, (oe - ob) * eb));
            }
            if (!out.wait(g, reqs)) return out.error();
        }
    }

    if (g.rank == root && !root_folded) {
        bytes_copy(recv, acc, bytes);
    } else if (root_folded && g.rank == root + 1) {
        reqs.push_back(send_start(g, root, kTagReduce, acc, bytes));
        out.wait(g, reqs);
    } else if (root_folded && g.rank == root) {
        reqs.push_back(recv_start(g, root + 1, kTagReduce, recv, bytes));
        out.wait(g, reqs);
    }
    return out.error();
}

}  // namespace strata::coll
