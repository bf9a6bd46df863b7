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

// Multilevel: the representatives of each cluster learn that it arrived (empty
// gathers, finest stage first), those of the coarsest clusters meet in a
// flat barrier, and the release goes back down (empty broadcasts).
// `shape` picks the hierarchy (hierarchy.hpp); every stage's group chooses
// its own flat algorithm.
adi::Error barrier_multilevel(const Group& g, Shape shape);

extern const Registry<BarrierFn> barrier_algorithms;

}  // namespace strata::coll
