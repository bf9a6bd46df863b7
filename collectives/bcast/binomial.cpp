#include "collectives/bcast/bcast.hpp"

namespace strata::coll {

adi::Error bcast_binomial(const Group& g, void* buf, std::size_t bytes, int root) {
    const int p = g.size();
    const int vr = (g.rank - root + p) % p;  // rank relative to the root
    Outcome out;
    std::vector<adi::Request*> reqs;
    // Receive from the parent: the process that differs in our lowest set bit.
    int mask = 1;
    while (mask < p) {
        if (vr & mask) {
            reqs.push_back(recv_start(g, (vr - mask + root) % p, kTagBcast, buf, bytes));
            if (!out.wait(g, reqs)) return out.error();
            break;
        }
        mask <<= 1;
    }
    // Forward to the children below that bit, farthest first.
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (vr + mask < p) reqs.push_back(send_start(g, (vr + mask + root) % p, kTagBcast, buf, bytes));
    }
    out.wait(g, reqs);
    return out.error();
}

}  // namespace strata::coll
