#include "collectives/collectives.hpp"
#include "collectives/multilevel.hpp"
#include "collectives/scatter/scatter.hpp"

namespace strata::coll {

adi::Error scatter_multilevel(const Group& g, Shape shape, const void* send, std::size_t sblock, void* recv,
                              std::size_t rbytes, int root) {
    const Hierarchy& h = hierarchy(g, shape);
    const std::size_t block = g.rank == root ? sblock : rbytes;
    const std::vector<Stage> stages = h.plan(g.rank, root);
    Carry carry{send, 0, {}};
    if (g.rank == root && !h.ordered()) {
        carry.storage.resize(block * static_cast<std::size_t>(g.size()));
        ranks_to_bundle(h, send, carry.storage.data(), block);
        carry.data = carry.storage.data();
    }
    // Down the stages: each stage root hands every member its sub-cluster's
    // bundle; at its finest stage a process receives its own block.
    Outcome out;
    for (const Stage& s : stages) {
        const StageGroup sg(g, s);
        const Bundles b = stage_bundles(h, s, block);
        const bool last = &s == &stages.back();
        std::vector<std::byte> next(last ? 0 : b.counts[static_cast<std::size_t>(s.me)]);
        void* dst = last ? recv : next.data();
        if (!out.add(scatterv(sg.group(), carry.data, b.counts, b.displs, dst, last ? rbytes : next.size(), s.root)))
            break;
        carry.storage = std::move(next);
        carry.data = dst;
    }
    return out.error();
}

}  // namespace strata::coll
