#include "collectives/allgather/allgather.hpp"

namespace strata::coll {

adi::Error allgather_bruck(const Group& g, const void* send, std::size_t sbytes, void* recv, std::size_t rblock) {
    const int p = g.size();
    Outcome out;
    // tmp holds blocks of ranks rank, rank + 1, ... in that order; rank 0 can
    // work in `recv` directly since its order is rank order.
    Bytes tmp;
    std::byte* acc = static_cast<std::byte*>(recv);
    if (g.rank != 0) {
        tmp.resize(static_cast<std::size_t>(p) * rblock);
        acc = tmp.data();
    }
    out.add(self_copy(acc, rblock, send, sbytes));
    for (int k = 1; k < p; k <<= 1) {
        const auto n = static_cast<std::size_t>(std::min(k, p - k)) * rblock;
        if (!exchange(g, out, kTagAllgather, (g.rank - k + p) % p, acc, n, (g.rank + k) % p,
                      acc + static_cast<std::size_t>(k) * rblock, n))
            return out.error();
    }
    if (g.rank != 0) {
        const std::size_t head = static_cast<std::size_t>(p - g.rank) * rblock;
        bytes_copy(at(recv, static_cast<std::size_t>(g.rank) * rblock), acc, head);
        bytes_copy(recv, acc + head, static_cast<std::size_t>(g.rank) * rblock);
    }
    return out.error();
}

}  // namespace strata::coll
