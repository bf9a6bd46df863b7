#include "collectives/inter/inter.hpp"

namespace strata::coll::inter {

adi::Error gatherv(const Groups& g, const void* send, std::size_t sbytes, void* recv, Sizes rcounts, Sizes rdispls,
                   Root root) {
    Outcome out;
    std::vector<adi::Request*> reqs;
    switch (root.role) {
        case Root::Role::idle: return adi::Error::none;
        case Root::Role::self:
            for (int i = 0; i < g.remote.size(); ++i) {
                const auto u = static_cast<std::size_t>(i);
                reqs.push_back(recv_start(g.remote, i, kTagInterGather, at(recv, rdispls[u]), rcounts[u]));
            }
            break;
        case Root::Role::remote:
            reqs.push_back(send_start(g.remote, root.rank, kTagInterGather, send, sbytes));
            break;
    }
    out.wait(g.remote, reqs);
    return out.error();
}

}  // namespace strata::coll::inter
