#include "collectives/multilevel.hpp"
#include "collectives/scatter/scatter.hpp"

namespace strata::coll {

adi::Error scatter_multilevel(const Group& g, Shape shape, const void* send, std::size_t sblock, void* recv,
                              std::size_t rbytes, int root) {
    const Hierarchy& h = hierarchy(g, shape);
    const Layout layout = Layout::uniform(g.size(), g.rank == root ? sblock : rbytes);
    Carry carry{send, 0, {}};
    if (g.rank == root && !h.ordered()) {
        carry.storage.resize(layout.sizes[0] * static_cast<std::size_t>(g.size()));
        ranks_to_bundle(h, send, carry.storage.data(), layout);
        carry.data = carry.storage.data();
    }
    Outcome out;
    scatter_down(g, out, h, h.plan(g.rank, root), 0, layout.sizes, carry, recv, rbytes);
    return out.error();
}

}  // namespace strata::coll
