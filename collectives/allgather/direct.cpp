#include "collectives/allgather/allgather.hpp"
#include "collectives/allgatherv/allgatherv.hpp"

namespace strata::coll {

adi::Error allgather_direct(const Group& g, const void* send, std::size_t sbytes, void* recv, std::size_t rblock) {
    const auto p = static_cast<std::size_t>(g.size());
    std::vector<std::size_t> counts(p, rblock), displs(p);
    for (std::size_t i = 0; i < p; ++i) displs[i] = i * rblock;
    return allgatherv_direct(g, send, sbytes, recv, counts, displs);
}

}  // namespace strata::coll
