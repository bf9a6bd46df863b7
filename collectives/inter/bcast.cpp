#include "collectives/inter/inter.hpp"

namespace strata::coll::inter {

adi::Error bcast(const Groups& g, void* buf, std::size_t bytes, Root root) {
    Outcome out;
    std::vector<adi::Request*> reqs;
    switch (root.role) {
        case Root::Role::idle: return adi::Error::none;
        case Root::Role::self:
            reqs.push_back(send_start(g.remote, 0, kTagInterBcast, buf, bytes));
            out.wait(g.remote, reqs);
            return out.error();
        case Root::Role::remote: break;
    }
    if (g.local.rank == 0) {
        reqs.push_back(recv_start(g.remote, root.rank, kTagInterBcast, buf, bytes));
        if (!out.wait(g.remote, reqs)) return out.error();
    }
    out.add(coll::bcast(g.local, buf, bytes, 0));
    return out.error();
}

}  // namespace strata::coll::inter
