#include "collectives/allgather/allgather.hpp"

namespace strata::coll {

adi::Error allgather_ring(const Group& g, const void* send, std::size_t sbytes, void* recv, std::size_t rblock) {
    const int p = g.size();
    Outcome out;
    auto block = [&](int i) { return at(recv, static_cast<std::size_t>(i) * rblock); };
    out.add(self_copy(block(g.rank), rblock, send, sbytes));
    const int right = (g.rank + 1) % p, left = (g.rank - 1 + p) % p;
    for (int s = 0; s < p - 1; ++s) {
        if (!exchange(g, out, kTagAllgather, right, block((g.rank - s + p) % p), rblock, left,
                      block((g.rank - s - 1 + p) % p), rblock))
            return out.error();
    }
    return out.error();
}

}  // namespace strata::coll
