#include "collectives/bcast/bcast.hpp"

namespace strata::coll {

adi::Error bcast_binomial(const Group& g, void* buf, std::size_t bytes, int root) {
    const BinomialTree t(g.rank, root, g.size());
    Outcome out;
    std::vector<adi::Request*> reqs;
    if (!t.is_root()) {
        reqs.push_back(recv_start(g, t.parent(), kTagBcast, buf, bytes));
        if (!out.wait(g, reqs)) return out.error();
    }
    // Forward to the children, farthest first.
    for (int m = t.span >> 1; m > 0; m >>= 1) {
        if (t.has_child(m)) reqs.push_back(send_start(g, t.child(m), kTagBcast, buf, bytes));
    }
    out.wait(g, reqs);
    return out.error();
}

}  // namespace strata::coll
