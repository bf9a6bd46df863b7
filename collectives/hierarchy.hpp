// How a communicator splits into clusters along the grid's topology, and the
// hidden groups a multilevel collective runs on.
//
// A hierarchy is a chain of partitions of the communicator's ranks, coarse to
// fine: Q0 is the whole communicator, each Qk+1 strictly refines Qk (sites,
// then machines, then fast-method domains, ...), the last is single ranks.
// Stage k of a collective runs, inside each cluster of Qk, among one
// representative of each of its Qk+1 sub-clusters: stage 0 among one process
// per site over the wide area, stage 1 among one per machine inside a site,
// and so on down to the ranks of a machine. A message therefore crosses each
// slower link once. A cluster's representative is the collective's root where
// the root belongs to the cluster, else its lowest rank, so a process that
// represents its cluster at a stage also does at every finer one.
//
// The stage groups are derived from the topology table every process has, so
// they cost no communication and no context id. They run on the
// communicator's collective context with a tag range per stage
// (stage_tag_shift), and their envelopes carry communicator ranks
// (Group::envelope), so a message matches only its own stage of its own call:
// point-to-point order between two processes keeps successive collectives
// apart exactly as on the communicator itself. User traffic (on the
// point-to-point context) never matches them.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "wireup/topology.hpp"

namespace strata::coll {

// How clusters are defined: every topology level (multilevel), or MagPIe's
// two-level schemes, clusters by site or by machine.
enum class Shape : int { multilevel, site, machine };
inline constexpr int kShapes = 3;

// One stage that a process takes part in.
struct Stage {
    int index = 0;              // k: 0 the coarsest
    int level = -1;             // the kind of topology level of the links between the members
    std::vector<int> members;   // communicator ranks, ordered by their sub-clusters' lowest rank
    std::vector<int> clusters;  // members[i] represents sub-cluster clusters[i] of partition k+1
    // The members' world ranks, when the hierarchy knows the communicator's
    // (levels_of): a stage's group then needs no copy of its own.
    std::vector<int> world;
    int me = 0;                 // this process's position in members
    int root = 0;               // the position of the stage's root
};

class Hierarchy {
public:
    // A communicator of `size` ranks that is one cluster at link level `top`;
    // `world` (rank -> world rank, empty or one per rank) fills Stage::world.
    explicit Hierarchy(int size = 1, int top = -1, std::vector<int> world = {});
    // Refines the finest partition by `labels` (one per rank; ranks with the
    // same label inside one cluster stay together, a negative label is a
    // cluster of its own) whose links are at topology level `level`. A
    // refinement that splits nothing only says the clusters' links are that fast.
    // Aborts (collectives/invariant.hpp) when the labels are not one per rank.
    void refine(const std::vector<int>& labels, int level);
    // Ends the chain with single ranks. `kind` (a cluster's members and its
    // partition's level index -> the kind of the links inside the cluster,
    // from wireup::Topology) names each cluster's links for Stage::level and
    // top_level(); without it a level is its kind.
    using LinkKind = std::function<int(const std::vector<int>& members, int level)>;
    void finish(const LinkKind& kind = {});

    int size() const { return size_; }
    // Stages: 1 when the communicator is one cluster (a flat algorithm is the
    // whole story), more when it splits.
    int stages() const { return static_cast<int>(partitions_.size()) - 1; }
    bool spans() const { return stages() > 1; }
    // Whether every cluster is a run of consecutive ranks.
    bool ordered() const { return ordered_; }
    // The kind of level of the slowest link inside the communicator.
    int top_level() const {
        const Partition& p = partitions_.front();
        return p.kinds.empty() ? p.level : p.kinds.front();
    }

    // The stages `rank` takes part in when `root` is the root, coarse to fine
    // (stages of one member are left out). Computed on the first call for a
    // root and remembered: a communicator's collectives ask for the same
    // rank's plans call after call, and a repeated call allocates nothing.
    // The reference stays valid until plan() is asked for another rank.
    const std::vector<Stage>& plan(int rank, int root) const;
    // The ranks of cluster `cluster` of partition `k`, coarse clusters first
    // (sub-cluster by sub-cluster in the order stages list them): the order in
    // which gathered blocks travel.
    const std::vector<int>& members(int k, int cluster) const;
    int cluster_of(int k, int rank) const {
        return partitions_[static_cast<std::size_t>(k)].of[static_cast<std::size_t>(rank)];
    }

private:
    struct Partition {
        int level = -1;                          // the level index of the links inside each cluster
        std::vector<int> kinds;                  // cluster -> that level's kind (built by finish())
        std::vector<int> of;                     // rank -> cluster
        std::vector<int> lowest;                 // cluster -> its lowest rank
        std::vector<std::vector<int>> members;   // cluster -> ranks, in travel order (built by finish())
        std::vector<std::vector<int>> children;  // cluster -> sub-clusters of the next partition, by lowest rank
    };
    std::vector<Stage> plan_make(int rank, int root) const;

    int size_;
    bool ordered_ = true;
    std::vector<Partition> partitions_;
    std::vector<int> world_;
    // plan()'s memory: by root, the plans of rank planned_rank_.
    mutable int planned_rank_ = -1;
    mutable std::vector<std::vector<Stage>> plans_;
    mutable std::vector<bool> planned_;
};

// The hierarchies of one communicator, per shape.
struct Levels {
    Hierarchy shapes[kShapes];
    const Hierarchy& of(Shape s) const { return shapes[static_cast<int>(s)]; }
    // Whether the wide-area model `covered_by` covers the communicator
    // (plogp::WideArea::covers, which walks every member): asked once per
    // model, not on every collective (collectives/registry.cpp).
    mutable const void* covered_by = nullptr;
    mutable bool covered = false;
};

// The hierarchies of the communicator whose ranks are the processes `world`
// (communicator rank -> index in `t`): multilevel refines by every level of
// the topology below the wide area, site by level 1, machine by level 2.
Levels levels_of(const wireup::Topology& t, const std::vector<int>& world);

// The tag offset of stage k's messages: above every flat algorithm's tags.
inline int stage_tag_shift(int k) { return (k + 1) * 1024; }

}  // namespace strata::coll
