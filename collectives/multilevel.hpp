// What the multilevel algorithms share (collectives/<op>/multilevel.cpp).
//
// The blocks of a cluster travel as one bundle, in the hierarchy's travel
// order (Hierarchy::members): up the stages a stage's root gathers its
// members' bundles into its own cluster's, down the stages it scatters them.
// When every cluster is a run of consecutive ranks the travel order is rank
// order and a whole communicator's bundle is the user's buffer itself.
#pragma once

#include <cstddef>
#include <vector>

#include "collectives/collective.hpp"
#include "collectives/reduce_op.hpp"

namespace strata::coll {

// Where the members' bundles lie in the bundle of the stage's cluster, for
// blocks of `block` bytes.
struct Bundles {
    std::vector<std::size_t> counts;  // per member, bytes
    std::vector<std::size_t> displs;
    std::size_t total = 0;
};
Bundles stage_bundles(const Hierarchy& h, const Stage& s, std::size_t block);

// A bundle this process holds: its own block, or storage it gathered.
struct Carry {
    const void* data = nullptr;
    std::size_t bytes = 0;
    std::vector<std::byte> storage;
};

// Gathers bundles up `stages` (a plan, coarse to fine) from the finest to
// stage `stop` + 1; `carry` starts as this process's block and ends as the
// bundle of the cluster it represents at stage `stop` + 1 (or what it handed
// on). At the coarsest stage, a stage root receives into `into` when that is
// not null (the user's buffer, when travel order is rank order).
bool gather_up(const Group& g, Outcome& out, const Hierarchy& h, const std::vector<Stage>& stages, int stop,
               std::size_t block, Carry& carry, void* into = nullptr);

// Reduces up `stages` (a plan, coarse to fine) from the finest to stage
// `stop` + 1. `in` starts as this process's vector and ends as the partial
// result of the cluster it represents at stage `stop` + 1 (kept in
// `partial`), or what it handed on; at the coarsest stage a stage root writes
// into `into` when that is not null.
bool reduce_up(const Group& g, Outcome& out, const std::vector<Stage>& stages, int stop, std::size_t count,
               const ReduceOp& op, const void*& in, std::vector<std::byte> (&partial)[2], void* into);

// Copies a whole communicator's bundle, in travel order, to rank order, and back.
void bundle_to_ranks(const Hierarchy& h, const void* bundle, void* ranks, std::size_t block);
void ranks_to_bundle(const Hierarchy& h, const void* ranks, void* bundle, std::size_t block);

}  // namespace strata::coll
