#include "collectives/barrier/barrier.hpp"
#include "collectives/collectives.hpp"

namespace strata::coll {

adi::Error barrier_multilevel(const Group& g, Shape shape) {
    const std::vector<Stage>& stages = hierarchy(g, shape).plan(g.rank, 0);
    Outcome out;
    // In: every cluster's representative learns that its cluster arrived
    // (an empty gather, finest stage first).
    for (auto s = stages.rbegin(); s != stages.rend() && s->index > 0; ++s) {
        const StageGroup sg(g, *s);
        if (!out.add(gather(sg.group(), nullptr, 0, nullptr, 0, s->root))) return out.error();
    }
    // The representatives of the coarsest clusters meet; then out again.
    for (const Stage& s : stages) {
        const StageGroup sg(g, s);
        const adi::Error e = s.index == 0 ? barrier(sg.group()) : bcast(sg.group(), nullptr, 0, s.root);
        if (!out.add(e)) break;
    }
    return out.error();
}

}  // namespace strata::coll
