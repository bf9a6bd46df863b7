#include <numeric>

#include "collectives/multilevel.hpp"
#include "collectives/scatterv/scatterv.hpp"

namespace strata::coll {

// Only the root knows every count: counts travel down beside the data.
adi::Error scatterv_multilevel(const Group& g, Shape shape, const void* send, std::span<const std::size_t> scounts,
                               std::span<const std::size_t> sdispls, void* recv, std::size_t rbytes, int root) {
    const Hierarchy& h = hierarchy(g, shape);
    Counted c;
    if (g.rank == root) {
        for (int r : h.members(0, 0)) c.counts.push_back(scounts[static_cast<std::size_t>(r)]);
        c.data.storage.resize(std::accumulate(c.counts.begin(), c.counts.end(), std::size_t{0}));
        ranks_to_bundle(h, send, c.data.storage.data(), Layout::of(scounts, sdispls));
        c.data.data = c.data.storage.data();
        c.data.bytes = c.data.storage.size();
    }
    Outcome out;
    if (scatter_counted_down(g, out, h, h.plan(g.rank, root), 0, 1, c))
        out.add(self_copy(recv, rbytes, c.data.data, c.data.bytes));
    return out.error();
}

}  // namespace strata::coll
