#include "collectives/gatherv/gatherv.hpp"
#include "collectives/multilevel.hpp"

namespace strata::coll {

// Only the root knows every count: counts travel up beside the data.
adi::Error gatherv_multilevel(const Group& g, Shape shape, const void* send, std::size_t sbytes, void* recv,
                              std::span<const std::size_t> rcounts, std::span<const std::size_t> rdispls, int root) {
    const Hierarchy& h = hierarchy(g, shape);
    Counted c{{sbytes}, {send, sbytes, {}}};
    Outcome out;
    if (!gather_counted_up(g, out, h, h.plan(g.rank, root), -1, 1, c) || g.rank != root) return out.error();
    // The whole communicator's data in travel order: into the root's blocks.
    std::size_t offset = 0;
    const std::vector<int>& order = h.members(0, 0);
    for (std::size_t i = 0; i < order.size(); ++i) {
        const auto r = static_cast<std::size_t>(order[i]);
        out.add(self_copy(at(recv, rdispls[r]), rcounts[r], at(c.data.data, offset), c.counts[i]));
        offset += c.counts[i];
    }
    return out.error();
}

}  // namespace strata::coll
