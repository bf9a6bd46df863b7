// The grid's shape as every process sees it: levels, depths and colours
// (MPICH-G2's topology model), built at the startup barrier from the released
// business cards alone, so that every process computes the same table with
// no communication.
//
// Levels, slowest first, each of a kind:
//   0 wide area   every process
//   1 local area  the same site (the job description's `site`)
//   2 system area the same machine (the subjob's `machine` label, else the
//                 subjob: as in MPICH-G2, a subjob is one machine)
//   3 vendor      processes of one machine that reach each other over a fast
//                 method (shm, ofi)
// and below the vendor level, each where it applies, in this order:
//   node          the same host, where the vendor group spans hosts and some
//                 host holds two of its processes (seed 000's IBM SP: the
//                 switch across nodes, shared memory inside one)
//   package       the same processor package   } only where the process's place
//   NUMA node     the same NUMA node           } is known (CpuPlace below): of one
//                                              } host, from its CPU binding
//                                              } (placement/binding.hpp)
// The first four levels are at fixed indices (their kinds' values); the ones
// below are numbered from 4 on as a process has them, so level 4 is a node
// for one process and a package for another. Every process of one cluster
// (the same colour at a level) has the same kinds down to that level, so
// splitting a cluster by its next level splits it by one kind.
// Each level refines the one above it. A process's depth is its number of
// levels: 3 when it shares a fast method with nobody (it has TCP only, as in
// MPICH-G2), 4 with a vendor level, up to 7 with the levels below (a process
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

// The kinds of level; kWan..kVendor are also the indices of the first four.
enum Level : int { kWan = 0, kLan = 1, kSystem = 2, kVendor = 3, kNode = 4, kPackage = 5, kNuma = 6 };
// The most levels a process has (one of each kind).
inline constexpr int kLevels = 7;

// A kind's name: "wide area", "local area", ..., "node", "package", "NUMA node".
const char* level_name(int kind);

// Whether two processes reach each other over a fast method, from their cards
// alone (the devices decide by the same rule; dev::fast_link).
using FastLink = std::function<bool(const BusinessCard&, const BusinessCard&)>;

// The processor package and NUMA node (indices on the process's host) that
// hold a process's CPU binding, or -1: unknown, or the binding spans several.
struct CpuPlace {
    int package = -1;
    int numa = -1;
};

class Topology {
public:
    Topology() = default;
    // A table for `cards` (indexed by world rank), with the processes' CPU
    // places when known (empty, or one per card).
    static Topology build(const std::vector<BusinessCard>& cards, const FastLink& fast,
                          const std::vector<CpuPlace>& places = {});

    int size() const { return static_cast<int>(depths_.size()); }
    int depth(int rank) const { return depths_[static_cast<std::size_t>(rank)]; }
    // The colour of `rank` at `level`, or -1 when level >= depth(rank).
    int color(int rank, int level) const { return colors_[static_cast<std::size_t>(rank)][static_cast<std::size_t>(level)]; }
    // The kind (Level) of `rank`'s level `level`, or -1 when level >= depth(rank).
    int kind(int rank, int level) const { return kinds_[static_cast<std::size_t>(rank)][static_cast<std::size_t>(level)]; }
    // The index of `rank`'s level of kind `kind`, or -1 when it has none.
    int level_of(int rank, int kind) const;
    // The deepest level at which `a` and `b` share a colour: the level of the
    // link between them (0: they meet only across the wide area).
    int link_level(int a, int b) const;
    // The site label of `rank` (level 1's name).
    const std::string& site(int rank) const { return sites_[static_cast<std::size_t>(rank)]; }
    const std::vector<int>& depths() const { return depths_; }
    // The largest depth of any process.
    int max_depth() const;

    // The table, one line per rank: "rank 3: depth 4, colours 0 1 2 0 (site A)".
    std::string text() const;
    // What level `level` is, over every process that has it: "vendor",
    // "node or package".
    std::string level_text(int level) const;

private:
    // Gives `rank` its next level, of `kind`, with colour `color`.
    void add_level(std::size_t rank, int kind, int color);
    // The vendor level, from the groups that `fast` links inside each machine.
    void vendor_levels(const std::vector<BusinessCard>& cards, const FastLink& fast);
    // The node, package and NUMA node levels below the vendor level.
    void lower_levels(const std::vector<BusinessCard>& cards, const std::vector<CpuPlace>& places);

    std::vector<int> depths_;
    std::vector<std::vector<int>> colors_;  // [rank][level], kLevels entries, -1 beyond the depth
    std::vector<std::vector<int>> kinds_;   // [rank][level], alike
    std::vector<std::string> sites_;
};

}  // namespace strata::wireup
