#include "collectives/bcast/bcast.hpp"
#include "collectives/plogp/wide_area.hpp"

namespace strata::coll {

adi::Error bcast_segmented(const Group& g, void* buf, std::size_t bytes, int root) {
    const plogp::WideArea* model = plogp::WideArea::get();
    const int p = g.size();
    // Tree node i is the process i places after the root.
    const auto member = [&](int node) { return (node + root) % p; };
    const auto world_of = [&](int node) { return g.world[static_cast<std::size_t>(member(node))]; };
    std::vector<int> world(g.world.begin(), g.world.end());
    if (model == nullptr || !model->covers(world)) return bcast_binomial(g, buf, bytes, root);

    // Bcast moves packed bytes: any byte may end a segment.
    const auto tree_of = [&](plogp::TreeShape s) { return model->tree(s, p, world_of); };
    const plogp::Choice choice = plogp::choose(plogp::candidate_shapes(p), tree_of, bytes, 1);
    const plogp::Tree tree = tree_of(choice.shape);
    const int me = (g.rank - root + p) % p;
    int parent = -1;
    for (int v = 0; v < p && parent < 0; ++v) {
        for (const plogp::Tree::Edge& e : tree.children[static_cast<std::size_t>(v)]) {
            if (e.child == me) parent = v;
        }
    }

    const std::size_t seg = std::max<std::size_t>(choice.segment, 1);
    const std::size_t k = bytes == 0 ? 1 : (bytes + seg - 1) / seg;
    const auto length = [&](std::size_t i) { return std::min(seg, bytes - i * seg); };
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
        for (const plogp::Tree::Edge& e : tree.children[static_cast<std::size_t>(me)]) {
            sends.push_back(send_start(g, member(e.child), kTagBcast, at(buf, i * seg), length(i)));
        }
    }
    out.wait(g, sends);
    return out.error();
}

}  // namespace strata::coll
