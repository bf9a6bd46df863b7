#include "collectives/inter/inter.hpp"

namespace strata::coll::inter {

adi::Error alltoall(const Groups& g, const void* send, std::size_t sblock, void* recv, std::size_t rblock) {
    // alltoallv's pairwise exchanges with blocks of one size.
    const auto n = static_cast<std::size_t>(g.remote.size());
    std::vector<std::size_t> scounts(n, sblock), sdispls(n), rcounts(n, rblock), rdispls(n);
    for (std::size_t i = 0; i < n; ++i) {
        sdispls[i] = i * sblock;
        rdispls[i] = i * rblock;
    }
    return alltoallv(g, send, scounts, sdispls, recv, rcounts, rdispls);
}

}  // namespace strata::coll::inter
