#include "collectives/gatherv/gatherv.hpp"

namespace strata::coll {

adi::Error gatherv_linear(const Group& g, const void* send, std::size_t sbytes, void* recv,
                          std::span<const std::size_t> rcounts, std::span<const std::size_t> rdispls, int root) {
    Outcome out;
    std::vector<adi::Request*> reqs;
    if (g.rank != root) {
        reqs.push_back(send_start(g, root, kTagGather, send, sbytes));
        out.wait(g, reqs);
        return out.error();
    }
    for (int i = 0; i < g.size(); ++i) {
        const auto u = static_cast<std::size_t>(i);
        if (i != root) reqs.push_back(recv_start(g, i, kTagGather, at(recv, rdispls[u]), rcounts[u]));
    }
    const auto r = static_cast<std::size_t>(root);
    out.add(self_copy(at(recv, rdispls[r]), rcounts[r], send, sbytes));
    out.wait(g, reqs);
    return out.error();
}

}  // namespace strata::coll
