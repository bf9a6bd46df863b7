#include "collectives/reduce_scatter/reduce_scatter.hpp"

namespace strata::coll {

adi::Error reduce_scatter_pairwise(const Group& g, const void* send, void* recv,
                                   std::span<const std::size_t> counts, const ReduceOp& op) {
    const int p = g.size();
    const std::size_t eb = op.element_bytes();
    std::vector<std::size_t> first(counts.size() + 1, 0);
    for (std::size_t i = 0; i < counts.size(); ++i) first[i + 1] = first[i] + counts[i];
    auto u = [](int i) { return static_cast<std::size_t>(i); };
    const std::size_t mine = counts[u(g.rank)];
    Outcome out;

    bytes_copy(recv, at(send, first[u(g.rank)] * eb), mine * eb);
    Bytes scratch(mine * eb);
    for (int s = 1; s < p; ++s) {
        const int to = (g.rank + s) % p, from = (g.rank - s + p) % p;
        if (!exchange(g, out, kTagReduceScatter, to, at(send, first[u(to)] * eb), counts[u(to)] * eb, from,
                      scratch.data(), mine * eb))
            return out.error();
        op.apply(scratch.data(), recv, mine);
    }
    return out.error();
}

}  // namespace strata::coll
