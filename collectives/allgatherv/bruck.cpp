#include "collectives/allgatherv/allgatherv.hpp"

namespace strata::coll {

adi::Error allgatherv_bruck(const Group& g, const void* send, std::size_t sbytes, void* recv,
                            std::span<const std::size_t> rcounts, std::span<const std::size_t> rdispls) {
    const int p = g.size();
    auto u = [](int i) { return static_cast<std::size_t>(i); };
    // tmp holds the blocks of ranks rank, rank + 1, ... back to back; off(i) is
    // where relative block i starts.
    std::vector<std::size_t> off(u(p) + 1, 0);
    for (int i = 0; i < p; ++i) off[u(i) + 1] = off[u(i)] + rcounts[u((g.rank + i) % p)];
    Bytes tmp(off.back());
    Outcome out;
    out.add(self_copy(tmp.data(), rcounts[u(g.rank)], send, sbytes));
    for (int k = 1; k < p; k <<= 1) {
        const int n = std::min(k, p - k);
        // Rank + k sends its first n blocks: exactly our relative blocks k .. k + n - 1.
        if (!exchange(g, out, kTagAllgather, (g.rank - k + p) % p, tmp.data(), off[u(n)], (g.rank + k) % p,
                      tmp.data() + off[u(k)], off[u(k + n)] - off[u(k)]))
            return out.error();
    }
    for (int i = 0; i < p; ++i) {
        const std::size_t r = u((g.rank + i) % p);
        bytes_copy(at(recv, rdispls[r]), tmp.data() + off[u(i)], rcounts[r]);
    }
    return out.error();
}

}  // namespace strata::coll
