#include "collectives/inter/inter.hpp"

namespace strata::coll::inter {

adi::Error scatter(const Groups& g, const void* send, std::size_t sblock, void* recv, std::size_t rbytes, Root root) {
    Outcome out;
    std::vector<adi::Request*> reqs;
    switch (root.role) {
        case Root::Role::idle: return adi::Error::none;
        case Root::Role::self:
            reqs.push_back(send_start(g.remote, 0, kTagInterScatter, send,
                                      sblock * static_cast<std::size_t>(g.remote.size())));
            out.wait(g.remote, reqs);
            return out.error();
        case Root::Role::remote: break;
    }
    // Every process of this group receives as many bytes (the type signatures
    // match the root's), so the blocks the leader scatters are `rbytes` apart.
    Bytes blocks(g.local.rank == 0 ? rbytes * static_cast<std::size_t>(g.local.size()) : 0);
    if (g.local.rank == 0) {
        reqs.push_back(recv_start(g.remote, root.rank, kTagInterScatter, blocks.data(), blocks.size()));
        if (!out.wait(g.remote, reqs)) return out.error();
    }
    out.add(coll::scatter(g.local, blocks.data(), rbytes, recv, rbytes, 0));
    return out.error();
}

}  // namespace strata::coll::inter
