#include "collectives/inter/inter.hpp"

namespace strata::coll::inter {

adi::Error gather(const Groups& g, const void* send, std::size_t sbytes, void* recv, std::size_t rblock, Root root) {
    Outcome out;
    std::vector<adi::Request*> reqs;
    switch (root.role) {
        case Root::Role::idle: return adi::Error::none;
        case Root::Role::self:
            reqs.push_back(recv_start(g.remote, 0, kTagInterGather, recv,
                                      rblock * static_cast<std::size_t>(g.remote.size())));
            out.wait(g.remote, reqs);
            return out.error();
        case Root::Role::remote: break;
    }
    // Every process of this group sends as many bytes (the type signatures
    // match the root's), so the leader's blocks are `sbytes` apart.
    Bytes blocks(g.local.rank == 0 ? sbytes * static_cast<std::size_t>(g.local.size()) : 0);
    if (!out.add(coll::gather(g.local, send, sbytes, blocks.data(), sbytes, 0))) return out.error();
    if (g.local.rank == 0) {
        reqs.push_back(send_start(g.remote, root.rank, kTagInterGather, blocks.data(), blocks.size()));
        out.wait(g.remote, reqs);
    }
    return out.error();
}

}  // namespace strata::coll::inter
