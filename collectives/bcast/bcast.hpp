// MPI_Bcast algorithms: `bytes` of `buf` at `root` reach every process.
#pragma once

#include "collectives/collective.hpp"

namespace strata::coll {

// Binomial tree rooted at `root`: ceil(log2 p) rounds, the whole message on
// every edge. Any p, any size; best for short messages.
adi::Error bcast_binomial(const Group& g, void* buf, std::size_t bytes, int root);

// Van de Geijn: binomial scatter of p pieces, then a ring allgather of the
// pieces. Moves about 2x the message per process instead of log2(p)x; for long
// messages. Any p, any size (pieces may be empty).
adi::Error bcast_scatter_allgather(const Group& g, void* buf, std::size_t bytes, int root);

}  // namespace strata::coll
