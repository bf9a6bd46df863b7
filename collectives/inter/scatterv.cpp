#include "collectives/inter/inter.hpp"

namespace strata::coll::inter {

adi::Error scatterv(const Groups& g, const void* send, Sizes scounts, Sizes sdispls, void* recv, std::size_t rbytes,
                    Root root) {
    Outcome out;
    std::vector<adi::Request*> reqs;
    switch (root.role) {
        case Root::Role::idle: return adi::Error::none;
        case Root::Role::self:
            for (int i = 0; i < g.remote.size(); ++i) {
                const auto u = static_cast<std::size_t>(i);
                reqs.push_back(send_start(g.remote, i, kTagInterScatter, at(send, sdispls[u]), scounts[u]));
            }
            break;
        case Root::Role::remote:
            reqs.push_back(recv_start(g.remote, root.rank, kTagInterScatter, recv, rbytes));
            break;
    }
    out.wait(g.remote, reqs);
    return out.error();
}

}  // namespace strata::coll::inter
