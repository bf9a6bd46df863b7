#include "collectives/allgatherv/allgatherv.hpp"

namespace strata::coll {

adi::Error allgatherv_ring(const Group& g, const void* send, std::size_t sbytes, void* recv,
                           std::span<const std::size_t> rcounts, std::span<const std::size_t> rdispls) {
    const int p = g.size();
    Outcome out;
    auto u = [](int i) { return static_cast<std::size_t>(i); };
    out.add(self_copy(at(recv, rdispls[u(g.rank)]), rcounts[u(g.rank)], send, sbytes));
    const int right = (g.rank + 1) % p, left = (g.rank - 1 + p) % p;
    for (int s = 0; s < p - 1; ++s) {
        const int sb = (g.rank - s + p) % p, rb = (g.rank - s - 1 + p) % p;
        if (!exchange(g, out, kTagAllgather, right, at(recv, rdispls[u(sb)]), rcounts[u(sb)], left,
                      at(recv, rdispls[u(rb)]), rcounts[u(rb)]))
            return out.error();
    }
    return out.error();
}

}  // namespace strata::coll
