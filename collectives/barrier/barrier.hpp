// Barrier by dissemination (Hensgen, Finkel, Manber): ceil(log2 p) rounds; in
// round k every process signals rank + 2^k and waits for rank - 2^k. Works for
// any p, needs no root, and every process finishes after the same number of
// message latencies.
#pragma once

#include "collectives/collective.hpp"
#include "collectives/registry.hpp"

namespace strata::coll {

adi::Error barrier_dissemination(const Group& g);

// The signature every barrier algorithm has.
using BarrierFn = adi::Error(const Group& g);

// Stage by stage along the communicator's hierarchy by `shape` (hierarchy.hpp),
// each stage's group choosing its own flat algorithm.
adi::Error barrier_multilevel(const Group& g, Shape shape);
template <Shape S>
adi::Error barrier_shaped(const Group& g) {
    return barrier_multilevel(g, S);
}

extern const Registry<BarrierFn> barrier_algorithms;

}  // namespace strata::coll
