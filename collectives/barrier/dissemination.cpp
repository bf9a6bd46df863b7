#include "collectives/barrier/barrier.hpp"

namespace strata::coll {

adi::Error barrier_dissemination(const Group& g) {
    const int p = g.size();
    std::vector<adi::Request*> reqs;
    int round = 0;
    for (int step = 1; step < p; step <<= 1, ++round) {
        const int to = (g.rank + step) % p;
        const int from = (g.rank - step + p) % p;
        reqs.push_back(recv_start(g, from, round, nullptr, 0));
        reqs.push_back(send_start(g, to, round, nullptr, 0));
        if (adi::Error e = wait_all(g, reqs); e != adi::Error::none) return e;
    }
    return adi::Error::none;
}

}  // namespace strata::coll
