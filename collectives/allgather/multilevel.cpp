#include "collectives/allgather/allgather.hpp"
#include "collectives/multilevel.hpp"

namespace strata::coll {

adi::Error allgather_multilevel(const Group& g, Shape shape, const void* send, std::size_t sbytes, void* recv,
                                std::size_t rblock) {
    Outcome out;
    // A block too large for its slot is cut where it lands; its sender says
    // so too, as every flat algorithm does when it places its own block.
    if (sbytes > rblock) out.add(adi::Error::truncated);
    out.add(allgather_levels(g, shape, send, sbytes, recv, Layout::uniform(g.size(), rblock)));
    return out.error();
}

}  // namespace strata::coll
