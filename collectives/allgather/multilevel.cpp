#include <vector>

#include "collectives/allgather/allgather.hpp"
#include "collectives/collectives.hpp"
#include "collectives/multilevel.hpp"

namespace strata::coll {

adi::Error allgather_multilevel(const Group& g, Shape shape, const void* send, std::size_t sbytes, void* recv,
                                std::size_t rblock) {
    const Hierarchy& h = hierarchy(g, shape);
    const std::vector<Stage> stages = h.plan(g.rank, 0);
    const std::size_t all = rblock * static_cast<std::size_t>(g.size());
    Outcome out;
    // A block too large for its slot is cut where it lands; its sender says
    // so too, as every flat algorithm does when it places its own block.
    if (sbytes > rblock) out.add(adi::Error::truncated);
    // Up to the coarsest clusters' representatives, as a gather.
    Carry carry{send, sbytes, {}};
    if (!gather_up(g, out, h, stages, 0, rblock, carry)) return out.error();
    // They swap their clusters' bundles; then the whole result goes down.
    std::vector<std::byte> bundle(h.ordered() ? 0 : all);
    void* whole = h.ordered() ? recv : bundle.data();
    for (const Stage& s : stages) {
        const StageGroup sg(g, s);
        adi::Error e = adi::Error::none;
        if (s.index == 0) {
            const Bundles b = stage_bundles(h, s, rblock);
            e = allgatherv(sg.group(), carry.data, carry.bytes, whole, b.counts, b.displs);
        } else {
            e = bcast(sg.group(), whole, all, s.root);
        }
        if (!out.add(e)) return out.error();
    }
    if (!h.ordered()) bundle_to_ranks(h, whole, recv, rblock);
    return out.error();
}

}  // namespace strata::coll
