#include "collectives/allgatherv/allgatherv.hpp"
#include "collectives/collectives.hpp"
#include "collectives/multilevel.hpp"

namespace strata::coll {

adi::Error allgather_levels(const Group& g, Shape shape, const void* send, std::size_t sbytes, void* recv,
                            const Layout& layout) {
    const Hierarchy& h = hierarchy(g, shape);
    const std::vector<Stage>& stages = h.plan(g.rank, 0);
    Outcome out;
    // Up to the coarsest clusters' representatives, as a gather.
    Carry carry{send, sbytes, {}};
    if (!gather_up(g, out, h, stages, 0, layout.sizes, carry)) return out.error();
    // They swap their clusters' bundles; then the whole result goes down.
    const bool direct = h.ordered() && layout.packed();
    std::size_t all = 0;
    for (std::size_t n : layout.sizes) all += n;
    Bytes bundle(direct ? 0 : all);
    void* whole = direct ? recv : bundle.data();
    for (const Stage& s : stages) {
        const StageGroup sg(g, s);
        adi::Error e = adi::Error::none;
        if (s.index == 0) {
            const Bundles b = stage_bundles(h, s, layout.sizes);
            e = allgatherv(sg.group(), carry.data, carry.bytes, whole, b.counts, b.displs);
        } else {
            e = bcast(sg.group(), whole, all, s.root);
        }
        if (!out.add(e)) return out.error();
    }
    if (!direct) bundle_to_ranks(h, whole, recv, layout);
    return out.error();
}

adi::Error allgatherv_multilevel(const Group& g, Shape shape, const void* send, std::size_t sbytes, void* recv,
                                 std::span<const std::size_t> rcounts, std::span<const std::size_t> rdispls) {
    Outcome out;
    if (sbytes > rcounts[static_cast<std::size_t>(g.rank)]) out.add(adi::Error::truncated);
    out.add(allgather_levels(g, shape, send, sbytes, recv, Layout::of(rcounts, rdispls)));
    return out.error();
}

}  // namespace strata::coll
