#include "collectives/bcast/bcast.hpp"
#include "collectives/collectives.hpp"

namespace strata::coll {

adi::Error bcast_multilevel(const Group& g, Shape shape, void* buf, std::size_t bytes, int root) {
    Outcome out;
    for (const Stage& s : hierarchy(g, shape).plan(g.rank, root)) {
        const StageGroup sg(g, s);
        if (!out.add(bcast(sg.group(), buf, bytes, s.root))) break;
    }
    return out.error();
}

}  // namespace strata::coll
