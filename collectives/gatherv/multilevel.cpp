#include "collectives/collectives.hpp"
#include "collectives/gatherv/gatherv.hpp"
#include "collectives/multilevel.hpp"

namespace strata::coll {

// Only the root knows every count, so up each stage a member sends the byte
// counts of its cluster's ranks just ahead of their data (two messages on a
// link, sent back to back: one latency).
adi::Error gatherv_multilevel(const Group& g, Shape shape, const void* send, std::size_t sbytes, void* recv,
                              std::span<const std::size_t> rcounts, std::span<const std::size_t> rdispls, int root) {
    const Hierarchy& h = hierarchy(g, shape);
    const std::vector<Stage> stages = h.plan(g.rank, root);
    const std::vector<std::size_t> one(static_cast<std::size_t>(g.size()), kCountBytes);
    std::vector<std::size_t> counts{sbytes};  // of the ranks of the cluster this process represents
    Carry carry{send, sbytes, {}};
    Outcome out;
    for (auto s = stages.rbegin(); s != stages.rend(); ++s) {
        const StageGroup sg(g, *s);
        const Bundles cb = stage_bundles(h, *s, one);
        if (s->me != s->root) {
            if (out.add(gatherv(sg.group(), counts.data(), counts.size() * kCountBytes, nullptr, cb.counts, cb.displs,
                                s->root)))
                out.add(gatherv(sg.group(), carry.data, carry.bytes, nullptr, {}, {}, s->root));
            return out.error();
        }
        std::vector<std::size_t> all(cb.total / kCountBytes);
        if (!out.add(gatherv(sg.group(), counts.data(), counts.size() * kCountBytes, all.data(), cb.counts, cb.displs,
                             s->root)))
            return out.error();
        const Bundles db = data_bundles(cb, all);
        std::vector<std::byte> next(db.total);
        if (!out.add(gatherv(sg.group(), carry.data, carry.bytes, next.data(), db.counts, db.displs, s->root)))
            return out.error();
        counts.swap(all);
        carry.storage = std::move(next);
        carry.data = carry.storage.data();
        carry.bytes = carry.storage.size();
    }
    if (g.rank != root) return out.error();
    // The whole communicator's data in travel order: into the root's blocks.
    std::size_t offset = 0;
    const std::vector<int>& order = h.members(0, 0);
    for (std::size_t i = 0; i < order.size(); ++i) {
        const auto r = static_cast<std::size_t>(order[i]);
        out.add(self_copy(at(recv, rdispls[r]), rcounts[r], at(carry.data, offset), counts[i]));
        offset += counts[i];
    }
    return out.error();
}

}  // namespace strata::coll
