// The grid's shape as every process sees it: levels, depths and colours
// (MPICH-G2's topology model), built at the startup barrier from the released
// business cards alone, so that every process computes the same table with
// no communication.
//
// Levels, slowest first:
//   0 wide area   every process
//   1 local area  the same site (the job description's `site`)
//   2 system area the same machine (the subjob's `machine` label, else the host)
//   3 vendor      processes that reach each other over a fast method (shm, ofi)
//   4 package     the same processor package   } only with STRATA_TOPOLOGY_HWLOC=1,
//   5 NUMA node   the same NUMA node           } below a vendor level; of one host,
//                                              } from each process's CPU binding
//                                              } (wireup/binding.hpp: cards_bind)
// Each level refines the one above it. A process's depth is its number of
// levels: 3 when it shares a fast method with nobody (it has TCP only, as in
// MPICH-G2), 4 with a vendor level, 5 or 6 with the hwloc levels (a process
// whose CPU binding spans several packages, or NUMA nodes, has no such level).
// Two processes have the same colour at a level exactly when both have the
// level and can talk at it; colours are small integers numbered by first
// appearance in rank order, globally per level.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "wireup/protocol.hpp"

namespace strata::wireup {

enum Level : int { kWan = 0, kLan = 1, kSystem = 2, kVendor = 3, kPackage = 4, kNuma = 5 };
inline constexpr int kLevels = 6;

// "wide area", "local area", ...
const char* level_name(int level);

// Whether two processes reach each other over a fast method, from their cards
// alone (the devices decide by the same rule; dev::fast_link).
using FastLink = std::function<bool(const BusinessCard&, const BusinessCard&)>;

class Topology {
public:
    Topology() = default;
    // A table for `cards` (indexed by world rank).
    static Topology build(const std::vector<BusinessCard>& cards, const FastLink& fast);

    int size() const { return static_cast<int>(depths_.size()); }
    int depth(int rank) const { return depths_[static_cast<std::size_t>(rank)]; }
    // The colour of `rank` at `level`, or -1 when level >= depth(rank).
    int color(int rank, int level) const { return colors_[static_cast<std::size_t>(rank)][static_cast<std::size_t>(level)]; }
    // The deepest level at which `a` and `b` share a colour: the level of the
    // link between them (0: they meet only across the wide area).
    int link_level(int a, int b) const;
    // The site label of `rank` (level 1's name).
    const std::string& site(int rank) const { return sites_[static_cast<std::size_t>(rank)]; }
    const std::vector<int>& depths() const { return depths_; }
    // The largest depth of any process.
    int max_depth() const;

    // The table, one line per rank: "rank 3: depth 4, colours 0 1 2 0".
    std::string text() const;

private:
    std::vector<int> depths_;
    std::vector<std::vector<int>> colors_;  // [rank][level], kLevels entries, -1 beyond the depth
    std::vector<std::string> sites_;
};

}  // namespace strata::wireup
