#include "collectives/inter/inter.hpp"

#include <algorithm>

namespace strata::coll::inter {

adi::Error alltoallv(const Groups& g, const void* send, Sizes scounts, Sizes sdispls, void* recv, Sizes rcounts,
                     Sizes rdispls) {
    // In step s every process sends to remote rank (rank + s) mod m and
    // receives from (rank - s) mod m, m the larger group's size: the remote
    // process it sends to receives from it in the same step. Ranks the remote
    // group does not have are skipped.
    const int remote = g.remote.size();
    const int m = std::max(g.local.size(), remote);
    Outcome out;
    std::vector<adi::Request*> reqs;
    for (int s = 0; s < m; ++s) {
        const int to = (g.local.rank + s) % m;
        const int from = (g.local.rank - s + m) % m;
        if (from < remote) {
            const auto u = static_cast<std::size_t>(from);
            reqs.push_back(recv_start(g.remote, from, kTagInterAlltoall, at(recv, rdispls[u]), rcounts[u]));
        }
        if (to < remote) {
            const auto u = static_cast<std::size_t>(to);
            reqs.push_back(send_start(g.remote, to, kTagInterAlltoall, at(send, sdispls[u]), scounts[u]));
        }
        if (!out.wait(g.remote, reqs)) return out.error();
    }
    return out.error();
}

}  // namespace strata::coll::inter
