#include "collectives/hierarchy.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include "collectives/invariant.hpp"

namespace strata::coll {

Hierarchy::Hierarchy(int size, int top, std::vector<int> world) : size_(size), world_(std::move(world)) {
    invariant(world_.empty() || world_.size() == static_cast<std::size_t>(size), "Hierarchy: one world rank per rank");
    Partition whole;
    whole.level = top;
    whole.of.assign(static_cast<std::size_t>(size), 0);
    whole.lowest.assign(size > 0 ? 1 : 0, 0);
    partitions_.push_back(std::move(whole));
}

void Hierarchy::refine(const std::vector<int>& labels, int level) {
    invariant(labels.size() == static_cast<std::size_t>(size_), "Hierarchy::refine: one label per rank");
    Partition& last = partitions_.back();
    Partition next;
    next.level = level;
    std::map<std::pair<int, int>, int> ids;  // (cluster, label) -> new cluster, by first appearance
    for (int r = 0; r < size_; ++r) {
        const int label = labels[static_cast<std::size_t>(r)];
        const std::pair<int, int> key{last.of[static_cast<std::size_t>(r)], label < 0 ? -1 - r : label};
        auto [it, fresh] = ids.emplace(key, static_cast<int>(next.lowest.size()));
        if (fresh) next.lowest.push_back(r);
        next.of.push_back(it->second);
    }
    if (next.lowest.size() == last.lowest.size()) {
        last.level = level;  // nothing split: the clusters' inner links are this fast
        return;
    }
    partitions_.push_back(std::move(next));
}

void Hierarchy::finish(const LinkKind& kind) {
    std::vector<int> singles(static_cast<std::size_t>(size_), -1);
    refine(singles, partitions_.back().level);
    // Sub-clusters, and the members of every cluster in travel order, finest first.
    for (std::size_t k = partitions_.size(); k-- > 0;) {
        Partition& p = partitions_[k];
        const std::size_t n = p.lowest.size();
        p.members.assign(n, {});
        p.children.assign(n, {});
        if (k + 1 == partitions_.size()) {
            for (int r = 0; r < size_; ++r)
                p.members[static_cast<std::size_t>(p.of[static_cast<std::size_t>(r)])].push_back(r);
            continue;
        }
        const Partition& finer = partitions_[k + 1];
        for (std::size_t c = 0; c < finer.lowest.size(); ++c) {
            const auto parent = static_cast<std::size_t>(p.of[static_cast<std::size_t>(finer.lowest[c])]);
            p.children[parent].push_back(static_cast<int>(c));  // ids follow lowest rank
            const std::vector<int>& sub = finer.members[c];
            p.members[parent].insert(p.members[parent].end(), sub.begin(), sub.end());
        }
        for (const std::vector<int>& m : p.members) {
            for (std::size_t i = 1; i < m.size(); ++i) ordered_ = ordered_ && m[i] == m[i - 1] + 1;
        }
    }
    for (Partition& p : partitions_) {
        p.kinds.clear();
        for (const std::vector<int>& m : p.members) p.kinds.push_back(kind ? kind(m, p.level) : p.level);
    }
}

const std::vector<int>& Hierarchy::members(int k, int cluster) const {
    return partitions_[static_cast<std::size_t>(k)].members[static_cast<std::size_t>(cluster)];
}

const std::vector<Stage>& Hierarchy::plan(int rank, int root) const {
    if (rank != planned_rank_) {
        planned_rank_ = rank;
        plans_.assign(static_cast<std::size_t>(size_), {});
        planned_.assign(static_cast<std::size_t>(size_), false);
    }
    const auto at = static_cast<std::size_t>(root);
    if (!planned_[at]) {
        plans_[at] = plan_make(rank, root);
        planned_[at] = true;
    }
    return plans_[at];
}

std::vector<Stage> Hierarchy::plan_make(int rank, int root) const {
    std::vector<Stage> out;
    for (int k = 0; k < stages(); ++k) {
        const Partition& p = partitions_[static_cast<std::size_t>(k)];
        const Partition& finer = partitions_[static_cast<std::size_t>(k) + 1];
        const auto at = [](const std::vector<int>& v, int i) { return v[static_cast<std::size_t>(i)]; };
        // A cluster's representative: the root where it belongs, else the lowest rank.
        const auto rep = [&](const Partition& q, int cluster) {
            return at(q.of, root) == cluster ? root : at(q.lowest, cluster);
        };
        const int mine = at(finer.of, rank);
        if (rep(finer, mine) != rank) continue;
        const int cluster = at(p.of, rank);
        const std::vector<int>& kids = p.children[static_cast<std::size_t>(cluster)];
        if (kids.size() < 2) continue;
        Stage s;
        s.index = k;
        s.level = p.kinds[static_cast<std::size_t>(cluster)];
        const int head = at(finer.of, rep(p, cluster));
        for (int child : kids) {
            if (child == mine) s.me = static_cast<int>(s.members.size());
            if (child == head) s.root = static_cast<int>(s.members.size());
            s.members.push_back(rep(finer, child));
            s.clusters.push_back(child);
            if (!world_.empty()) s.world.push_back(at(world_, s.members.back()));
        }
        out.push_back(std::move(s));
    }
    return out;
}

Levels levels_of(const wireup::Topology& t, const std::vector<int>& world) {
    const int n = static_cast<int>(world.size());
    const auto labels = [&](int level) {
        std::vector<int> out;
        for (int w : world) out.push_back(t.color(w, level));  // -1 beyond the process's depth
        return out;
    };
    Levels out;
    for (Hierarchy& h : out.shapes) h = Hierarchy(n, wireup::kWan, world);
    for (int level = wireup::kLan; level < wireup::kLevels; ++level)
        out.shapes[static_cast<int>(Shape::multilevel)].refine(labels(level), level);
    out.shapes[static_cast<int>(Shape::site)].refine(labels(wireup::kLan), wireup::kLan);
    out.shapes[static_cast<int>(Shape::machine)].refine(labels(wireup::kSystem), wireup::kSystem);
    // A cluster's links are at the deepest level all its members share: for
    // the multilevel shape the partition's level, for MagPIe's shapes maybe
    // deeper (a site whose processes share one host links them by its vendor
    // level, though the shape splits only by site).
    const auto kind = [&](const std::vector<int>& members, int level) {
        const int first = world[static_cast<std::size_t>(members.front())];
        int deepest = members.size() < 2 ? level : wireup::kLevels;
        for (std::size_t i = 1; i < members.size(); ++i)
            deepest = std::min(deepest, t.link_level(first, world[static_cast<std::size_t>(members[i])]));
        return t.kind(first, deepest);
    };
    for (Hierarchy& h : out.shapes) h.finish(kind);
    return out;
}

}  // namespace strata::coll
