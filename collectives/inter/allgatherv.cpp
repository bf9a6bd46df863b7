#include "collectives/inter/inter.hpp"

#include <numeric>

namespace strata::coll::inter {

adi::Error allgatherv(const Groups& g, const void* send, std::size_t sbytes, void* recv, Sizes rcounts,
                      Sizes rdispls) {
    // Only the receiving group knows the counts of the other's blocks: every
    // process sends its block to the remote leader, and each leader receives
    // the remote blocks packed in rank order, the form in which its group can
    // broadcast them without touching the gaps between the user's blocks.
    Outcome out;
    const std::size_t total = std::accumulate(rcounts.begin(), rcounts.end(), std::size_t{0});
    Bytes packed(total);
    std::vector<adi::Request*> reqs;
    if (g.local.rank == 0) {
        std::size_t offset = 0;
        for (int i = 0; i < g.remote.size(); ++i) {
            const std::size_t n = rcounts[static_cast<std::size_t>(i)];
            reqs.push_back(recv_start(g.remote, i, kTagInterAllgather, at(packed.data(), offset), n));
            offset += n;
        }
    }
    reqs.push_back(send_start(g.remote, 0, kTagInterAllgather, send, sbytes));
    if (!out.wait(g.remote, reqs)) return out.error();
    if (!out.add(coll::bcast(g.local, packed.data(), total, 0))) return out.error();
    std::size_t offset = 0;
    for (std::size_t i = 0; i < rcounts.size(); ++i) {
        bytes_copy(at(recv, rdispls[i]), at(packed.data(), offset), rcounts[i]);
        offset += rcounts[i];
    }
    return out.error();
}

}  // namespace strata::coll::inter
