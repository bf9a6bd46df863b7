// What the multilevel algorithms share (collectives/<op>/multilevel.cpp).
//
// The blocks of a cluster travel as one bundle, in the hierarchy's travel
// order (Hierarchy::members): up the stages a stage's root gathers its
// members' bundles into its own cluster's, down the stages it scatters them.
// When every cluster is a run of consecutive ranks and the blocks lie packed
// in rank order, a whole communicator's bundle is the user's buffer itself.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "collectives/collective.hpp"
#include "collectives/reduce_op.hpp"

namespace strata::coll {

// Each communicator rank's block: its bytes, and where it lies in a buffer
// in rank order.
struct Layout {
    std::vector<std::size_t> sizes;
    std::vector<std::size_t> displs;
    static Layout uniform(int n, std::size_t block);
    static Layout of(std::span<const std::size_t> sizes, std::span<const std::size_t> displs);
    // Whether the blocks lie back to back in rank order from 0.
    bool packed() const;
};

// Where the members' bundles lie in the bundle of the stage's cluster.
struct Bundles {
    std::vector<std::size_t> counts;  // per member, bytes
    std::vector<std::size_t> displs;
    std::size_t total = 0;
};
Bundles stage_bundles(const Hierarchy& h, const Stage& s, const std::vector<std::size_t>& sizes);

// Where a rank's byte count lies in a bundle of counts (gatherv, scatterv:
// only the root knows every count, so counts travel beside the data). On the
// wire a count is a little-endian std::uint64_t, whatever size_t is.
inline constexpr std::size_t kCountBytes = sizeof(std::uint64_t);
// Counts in their wire form, kCountBytes each, and back.
Bytes counts_to_wire(const std::vector<std::size_t>& counts);
std::vector<std::size_t> counts_from_wire(std::span<const std::byte> wire);
// Per member, the bytes its sub-cluster's ranks hold, from `counts` (the
// ranks' byte counts in travel order, laid out per member as in `slots`).
Bundles data_bundles(const Bundles& slots, const std::vector<std::size_t>& counts);

// A bundle this process holds: its own block, or storage it gathered.
struct Carry {
    const void* data = nullptr;
    std::size_t bytes = 0;
    Bytes storage;
};

// Gathers bundles up `stages` (a plan, coarse to fine) from the finest to
// stage `stop` + 1; `carry` starts as this process's block and ends as the
// bundle of the cluster it represents at stage `stop` + 1 (or what it handed
// on). At the coarsest stage, a stage root receives into `into` when that is
// not null. `sizes`: every rank's block.
bool gather_up(const Group& g, Outcome& out, const Hierarchy& h, const std::vector<Stage>& stages, int stop,
               const std::vector<std::size_t>& sizes, Carry& carry, void* into = nullptr);

// Scatters bundles down `stages` from stage `first` on: each stage root hands each member its sub-cluster's
// bundle; at its finest stage a process receives its own block into `recv`
// (room `rbytes`). `carry` is the bundle this process holds when it roots
// the first stage it takes part in (with no stage from `first` on, that
// bundle is its own block, copied to `recv`).
bool scatter_down(const Group& g, Outcome& out, const Hierarchy& h, const std::vector<Stage>& stages, int first,
                  const std::vector<std::size_t>& sizes, Carry& carry, void* recv, std::size_t rbytes);

// Blocks whose sizes only their senders know (gatherv, scatterv,
// alltoallv): every rank has `per` byte counts, and the counts of a bundle's
// ranks (travel order) travel just ahead of its data, two messages on a link
// sent back to back.
struct Counted {
    std::vector<std::size_t> counts;
    Carry data;
};
// As gather_up, with the counts beside the data.
bool gather_counted_up(const Group& g, Outcome& out, const Hierarchy& h, const std::vector<Stage>& stages, int stop,
                       std::size_t per, Counted& c);
// As scatter_down, with the counts beside the data; `c` ends as this
// process's own counts and data.
bool scatter_counted_down(const Group& g, Outcome& out, const Hierarchy& h, const std::vector<Stage>& stages, int first,
                          std::size_t per, Counted& c);

// Reduces up `stages` from the finest to stage `stop` + 1. `in` starts as
// this process's vector and ends as the partial result of the cluster it
// represents at stage `stop` + 1 (kept in `partial`), or what it handed on;
// at the coarsest stage a stage root writes into `into` when that is not null.
bool reduce_up(const Group& g, Outcome& out, const std::vector<Stage>& stages, int stop, std::size_t count,
               const ReduceOp& op, const void*& in, Bytes (&partial)[2], void* into);

// Allgather(v) over the stages: gather up to the coarsest clusters'
// representatives, who swap their bundles, then the whole result down.
adi::Error allgather_levels(const Group& g, Shape shape, const void* send, std::size_t sbytes, void* recv,
                            const Layout& layout);

// Copies a whole communicator's bundle, in travel order, to the blocks of
// `layout` in rank order, and back.
void bundle_to_ranks(const Hierarchy& h, const void* bundle, void* ranks, const Layout& layout);
void ranks_to_bundle(const Hierarchy& h, const void* ranks, void* bundle, const Layout& layout);

}  // namespace strata::coll
