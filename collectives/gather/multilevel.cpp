#include "collectives/gather/gather.hpp"
#include "collectives/multilevel.hpp"

namespace strata::coll {

adi::Error gather_multilevel(const Group& g, Shape shape, const void* send, std::size_t sbytes, void* recv,
                             std::size_t rblock, int root) {
    const Hierarchy& h = hierarchy(g, shape);
    const Layout layout = Layout::uniform(g.size(), g.rank == root ? rblock : sbytes);
    Outcome out;
    Carry carry{send, sbytes, {}};
    // In rank order the root's last stage gathers straight into its buffer.
    const bool direct = h.ordered();
    if (!gather_up(g, out, h, h.plan(g.rank, root), -1, layout.sizes, carry, g.rank == root && direct ? recv : nullptr))
        return out.error();
    if (g.rank == root && !direct) bundle_to_ranks(h, carry.data, recv, layout);
    return out.error();
}

}  // namespace strata::coll
