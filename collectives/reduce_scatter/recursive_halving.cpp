#include "collectives/halving.hpp"
#include "collectives/reduce_scatter/reduce_scatter.hpp"

namespace strata::coll {

adi::Error reduce_scatter_recursive_halving(const Group& g, const void* send, void* recv,
                                            std::span<const std::size_t> counts, const ReduceOp& op) {
    const std::size_t eb = op.element_bytes();
    std::vector<std::size_t> offset(counts.size() + 1, 0);
    for (std::size_t i = 0; i < counts.size(); ++i) offset[i + 1] = offset[i] + counts[i];
    const std::size_t total = offset.back();
    const auto me = static_cast<std::size_t>(g.rank);
    const Core core(g);
    Outcome out;

    Bytes acc(total * eb), scratch;
    const auto* mine = static_cast<const std::byte*>(send);
    if (!core_fold(g, core, out, kTagReduceScatter, mine, acc.data(), scratch, total, op)) return out.error();

    // Core rank c ends with the pieces of the real ranks it stands for.
    if (core.rank >= 0) {
        const Pieces pieces = Pieces::of_ranks(core, counts);
        if (!reduce_scatter_halving(g, core, out, kTagReduceScatter, mine, acc.data(), scratch, pieces, op))
            return out.error();
    }
    std::vector<adi::Request*> reqs;
    if (g.rank < 2 * core.rem && g.rank % 2 == 0) {
        reqs.push_back(recv_start(g, g.rank + 1, kTagReduceScatter, recv, counts[me] * eb));
    } else {
        if (g.rank < 2 * core.rem) {
            reqs.push_back(send_start(g, g.rank - 1, kTagReduceScatter, acc.data() + offset[me - 1] * eb,
                                      counts[me - 1] * eb));
        }
        bytes_copy(recv, acc.data() + offset[me] * eb, counts[me] * eb);
    }
    out.wait(g, reqs);
    return out.error();
}

}  // namespace strata::coll
