#include "collectives/allgatherv/allgatherv.hpp"

namespace strata::coll {

adi::Error allgatherv_direct(const Group& g, const void* send, std::size_t sbytes, void* recv,
                             std::span<const std::size_t> rcounts, std::span<const std::size_t> rdispls) {
    const int p = g.size();
    Outcome out;
    auto u = [](int i) { return static_cast<std::size_t>(i); };
    std::vector<adi::Request*> reqs;
    // Every block straight from its owner; the sends start with the next
    // rank, so no process has every other one sending to it first.
    for (int i = 1; i < p; ++i) {
        const int from = (g.rank - i + p) % p;
        reqs.push_back(recv_start(g, from, kTagAllgather, at(recv, rdispls[u(from)]), rcounts[u(from)]));
    }
    for (int i = 1; i < p; ++i) reqs.push_back(send_start(g, (g.rank + i) % p, kTagAllgather, send, sbytes));
    out.add(self_copy(at(recv, rdispls[u(g.rank)]), rcounts[u(g.rank)], send, sbytes));
    out.wait(g, reqs);
    return out.error();
}

}  // namespace strata::coll
