#include "collectives/inter/inter.hpp"

namespace strata::coll::inter {

adi::Error allgather(const Groups& g, const void* send, std::size_t sbytes, void* recv, std::size_t rblock) {
    Outcome out;
    const bool leader = g.local.rank == 0;
    const std::size_t theirs = rblock * static_cast<std::size_t>(g.remote.size());
    // This group's blocks, all of `sbytes` (the type signatures match), at the leader.
    Bytes ours(leader ? sbytes * static_cast<std::size_t>(g.local.size()) : 0);
    if (!out.add(coll::gather(g.local, send, sbytes, ours.data(), sbytes, 0))) return out.error();
    if (leader && !exchange(g.remote, out, kTagInterAllgather, 0, ours.data(), ours.size(), 0, recv, theirs))
        return out.error();
    out.add(coll::bcast(g.local, recv, theirs, 0));
    return out.error();
}

}  // namespace strata::coll::inter
