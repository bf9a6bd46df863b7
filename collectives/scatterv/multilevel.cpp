#include <numeric>

#include "collectives/collectives.hpp"
#include "collectives/multilevel.hpp"
#include "collectives/scatterv/scatterv.hpp"

namespace strata::coll {

// Only the root knows every count, so down each stage a stage root sends
// each member the byte counts of its cluster's ranks just ahead of their
// data (two messages on a link, sent back to back: one latency).
adi::Error scatterv_multilevel(const Group& g, Shape shape, const void* send, std::span<const std::size_t> scounts,
                               std::span<const std::size_t> sdispls, void* recv, std::size_t rbytes, int root) {
    const Hierarchy& h = hierarchy(g, shape);
    const std::vector<Stage> stages = h.plan(g.rank, root);
    const std::vector<std::size_t> one(static_cast<std::size_t>(g.size()), kCountBytes);
    std::vector<std::size_t> counts;  // of the ranks of the cluster this process represents, travel order
    Carry carry;
    if (g.rank == root) {
        const Layout layout = Layout::of(scounts, sdispls);
        for (int r : h.members(0, 0)) counts.push_back(scounts[static_cast<std::size_t>(r)]);
        carry.bytes = std::accumulate(counts.begin(), counts.end(), std::size_t{0});
        carry.storage.resize(carry.bytes);
        ranks_to_bundle(h, send, carry.storage.data(), layout);
        carry.data = carry.storage.data();
    }
    Outcome out;
    for (const Stage& s : stages) {
        const StageGroup sg(g, s);
        const Bundles cb = stage_bundles(h, s, one);
        const bool last = &s == &stages.back();
        std::vector<std::size_t> mine(cb.counts[static_cast<std::size_t>(s.me)] / kCountBytes);
        if (!out.add(scatterv(sg.group(), counts.data(), cb.counts, cb.displs, mine.data(), mine.size() * kCountBytes,
                              s.root)))
            return out.error();
        const Bundles db = s.me == s.root ? data_bundles(cb, counts) : Bundles{};
        const std::size_t have = std::accumulate(mine.begin(), mine.end(), std::size_t{0});
        std::vector<std::byte> next(last ? 0 : have);
        void* dst = last ? recv : next.data();
        if (!out.add(scatterv(sg.group(), carry.data, db.counts, db.displs, dst, last ? rbytes : have, s.root)))
            return out.error();
        counts.swap(mine);
        carry.storage = std::move(next);
        carry.data = dst;
    }
    return out.error();
}

}  // namespace strata::coll
