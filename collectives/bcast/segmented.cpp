#include "collectives/bcast/bcast.hpp"
#include "collectives/plogp/wide_area.hpp"

namespace strata::coll {

adi::Error bcast_segmented(const Group& g, void* buf, std::size_t bytes, int root) {
    // Bcast moves packed bytes: any byte may end a segment.
    const plogp::Plan& plan = plogp::WideArea::get()->plan(g.world, root, bytes, 1);
    const int me = plan.node[static_cast<std::size_t>(g.rank)];
    const int parent = plan.parent[static_cast<std::size_t>(me)];
    const std::size_t seg = plan.choice.segment;
    const std::size_t k = plan.segments(bytes);
    const auto length = [&](std::size_t i) { return std::min(seg, bytes - i * seg); };
    const auto member = [&](int node) { return plan.member[static_cast<std::size_t>(node)]; };
    Outcome out;
    // Every segment's receive is posted at once; segments from one parent
    // match them in order.
    std::vector<adi::Request*> recvs, sends;
    if (parent >= 0) {
        for (std::size_t i = 0; i < k; ++i) {
            recvs.push_back(recv_start(g, member(parent), kTagBcast, at(buf, i * seg), length(i)));
        }
    }
    for (std::size_t i = 0; i < k; ++i) {
        if (parent >= 0 && !out.add(wait_all(g, std::span<adi::Request* const>(&recvs[i], 1)))) {
            // The parent failed: the segments still expected end with it.
            wait_all(g, std::span<adi::Request* const>(recvs.data() + i + 1, k - i - 1));
            break;
        }
        for (const plogp::Tree::Edge& e : plan.tree.children[static_cast<std::size_t>(me)]) {
            sends.push_back(send_start(g, member(e.child), kTagBcast, at(buf, i * seg), length(i)));
        }
    }
    out.wait(g, sends);
    return out.error();
}

}  // namespace strata::coll
