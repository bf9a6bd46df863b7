#include "collectives/scatterv/scatterv.hpp"

namespace strata::coll {

adi::Error scatterv_linear(const Group& g, const void* send, std::span<const std::size_t> scounts,
                           std::span<const std::size_t> sdispls, void* recv, std::size_t rbytes, int root) {
    Outcome out;
    std::vector<adi::Request*> reqs;
    if (g.rank != root) {
        reqs.push_back(recv_start(g, root, kTagScatter, recv, rbytes));
        out.wait(g, reqs);
        return out.error();
    }
    for (int i = 0; i < g.size(); ++i) {
        const auto u = static_cast<std::size_t>(i);
        if (i != root) reqs.push_back(send_start(g, i, kTagScatter, at(send, sdispls[u]), scounts[u]));
    }
    const auto r = static_cast<std::size_t>(root);
    out.add(self_copy(recv, rbytes, at(send, sdispls[r]), scounts[r]));
    out.wait(g, reqs);
    return out.error();
}

}  // namespace strata::coll
