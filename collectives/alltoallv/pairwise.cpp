#include "collectives/alltoallv/alltoallv.hpp"

namespace strata::coll {

adi::Error alltoallv_pairwise(const Group& g, const void* send, std::span<const std::size_t> scounts,
                              std::span<const std::size_t> sdispls, void* recv, std::span<const std::size_t> rcounts,
                              std::span<const std::size_t> rdispls) {
    const int p = g.size();
    const bool pof2 = (p & (p - 1)) == 0;
    Outcome out;
    auto u = [](int i) { return static_cast<std::size_t>(i); };
    const std::size_t me = u(g.rank);
    out.add(self_copy(at(recv, rdispls[me]), rcounts[me], at(send, sdispls[me]), scounts[me]));
    for (int s = 1; s < p; ++s) {
        const int to = pof2 ? g.rank ^ s : (g.rank + s) % p;
        const int from = pof2 ? g.rank ^ s : (g.rank - s + p) % p;
        if (!exchange(g, out, kTagAlltoall, to, at(send, sdispls[u(to)]), scounts[u(to)], from,
                      at(recv, rdispls[u(from)]), rcounts[u(from)]))
            return out.error();
    }
    return out.error();
}

}  // namespace strata::coll
