#include "collectives/alltoall/alltoall.hpp"

namespace strata::coll {

adi::Error alltoall_pairwise(const Group& g, const void* send, std::size_t sblock, void* recv, std::size_t rblock) {
    const int p = g.size();
    const bool pof2 = (p & (p - 1)) == 0;
    Outcome out;
    auto u = [](int i) { return static_cast<std::size_t>(i); };
    out.add(self_copy(at(recv, u(g.rank) * rblock), rblock, at(send, u(g.rank) * sblock), sblock));
    for (int s = 1; s < p; ++s) {
        const int to = pof2 ? g.rank ^ s : (g.rank + s) % p;
        const int from = pof2 ? g.rank ^ s : (g.rank - s + p) % p;
        if (!exchange(g, out, kTagAlltoall, to, at(send, u(to) * sblock), sblock, from, at(recv, u(from) * rblock),
                      rblock))
            return out.error();
    }
    return out.error();
}

}  // namespace strata::coll
