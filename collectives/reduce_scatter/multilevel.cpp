#include <numeric>

#include "collectives/collectives.hpp"
#include "collectives/multilevel.hpp"
#include "collectives/reduce_scatter/reduce_scatter.hpp"

namespace strata::coll {

adi::Error reduce_scatter_multilevel(const Group& g, Shape shape, const void* send, void* recv,
                                     std::span<const std::size_t> counts, const ReduceOp& op) {
    const Hierarchy& h = hierarchy(g, shape);
    const std::vector<Stage>& stages = h.plan(g.rank, 0);
    const std::size_t esize = op.element_bytes();
    const std::size_t total = std::accumulate(counts.begin(), counts.end(), std::size_t{0});
    std::vector<std::size_t> elements(counts.begin(), counts.end());
    std::vector<std::size_t> bytes, displs;
    for (std::size_t c : counts) {
        displs.push_back(bytes.empty() ? 0 : displs.back() + bytes.back());
        bytes.push_back(c * esize);
    }
    // Work in travel order, so every cluster's pieces lie together (elementwise
    // reduction does not care where an element sits; a non-commutative
    // operation only comes here with clusters in rank order already).
    Bytes travel;
    const void* in = send;
    if (!h.ordered()) {
        travel.resize(total * esize);
        ranks_to_bundle(h, send, travel.data(), Layout{bytes, displs});
        in = travel.data();
    }
    Outcome out;
    Bytes partial[2];
    if (!reduce_up(g, out, stages, 0, total, op, in, partial, nullptr)) return out.error();
    // The coarsest clusters' representatives reduce and split the vector by
    // cluster; each hands its cluster's pieces down.
    Carry carry;
    if (!stages.empty() && stages.front().index == 0) {
        const Stage& s = stages.front();
        const StageGroup sg(g, s);
        const Bundles pieces = stage_bundles(h, s, elements);
        carry.storage.resize(pieces.counts[static_cast<std::size_t>(s.me)] * esize);
        if (!out.add(reduce_scatter(sg.group(), in, carry.storage.data(), pieces.counts, op))) return out.error();
        carry.data = carry.storage.data();
        carry.bytes = carry.storage.size();
    }
    const std::size_t mine = bytes[static_cast<std::size_t>(g.rank)];
    scatter_down(g, out, h, stages, 1, bytes, carry, recv, mine);
    return out.error();
}

}  // namespace strata::coll
