// Barrier by dissemination (Hensgen, Finkel, Manber): ceil(log2 p) rounds; in
// round k every process signals rank + 2^k and waits for rank - 2^k. Works for
// any p, needs no root, and every process finishes after the same number of
// message latencies.
#pragma once

#include "collectives/collective.hpp"

namespace strata::coll {

adi::Error barrier_dissemination(const Group& g);

}  // namespace strata::coll
