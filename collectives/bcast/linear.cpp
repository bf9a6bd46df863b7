#include "collectives/bcast/bcast.hpp"

namespace strata::coll {

adi::Error bcast_linear(const Group& g, void* buf, std::size_t bytes, int root) {
    Outcome out;
    std::vector<adi::Request*> reqs;
    if (g.rank != root) {
        reqs.push_back(recv_start(g, root, kTagBcast, buf, bytes));
    } else {
        // Farthest first, as the binomial tree does: rank order would favour
        // the processes just after the root.
        for (int k = g.size() - 1; k > 0; --k) {
            reqs.push_back(send_start(g, (root + k) % g.size(), kTagBcast, buf, bytes));
        }
    }
    out.wait(g, reqs);
    return out.error();
}

}  // namespace strata::coll
