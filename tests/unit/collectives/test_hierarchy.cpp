// Communicator hierarchies: partitions from labels, the stages a process
// takes part in for every root, travel order and rank order.
#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <vector>

#include "collectives/hierarchy.hpp"

using namespace strata::coll;

namespace {

// 8 ranks: site A {0}, site B {1 | 2 3}, site C {4 5 | 6 7}, machine 6 7 split
// into single processes one level further down.
Hierarchy grid() {
    Hierarchy h(8, 0);
    h.refine({0, 1, 1, 1, 2, 2, 2, 2}, 1);
    h.refine({0, 1, 2, 2, 3, 3, 4, 4}, 2);
    h.refine({0, 1, 2, 2, 3, 3, -1, -1}, 3);
    h.refine({-1, -1, -1, -1, -1, -1, -1, -1}, 4);
    h.finish();
    return h;
}

}  // namespace

TEST_CASE("one cluster is one flat stage", "[hierarchy]") {
    Hierarchy h(4, 0);
    h.refine({5, 5, 5, 5}, 1);
    h.refine({0, 0, 0, 0}, 3);
    h.finish();
    CHECK_FALSE(h.spans());
    CHECK(h.stages() == 1);
    CHECK(h.top_level() == 3);  // nothing split above: the links are that fast
    const std::vector<Stage> plan = h.plan(2, 1);
    REQUIRE(plan.size() == 1);
    CHECK(plan[0].members == std::vector<int>{0, 1, 2, 3});
    CHECK(plan[0].me == 2);
    CHECK(plan[0].root == 1);
}

TEST_CASE("stages follow the grid, coarse to fine", "[hierarchy]") {
    const Hierarchy h = grid();
    CHECK(h.spans());
    CHECK(h.ordered());
    CHECK(h.stages() == 4);  // sites, machines, fast-method domains, processes
    // Rank 0 roots: it represents everything it is in.
    std::vector<Stage> p = h.plan(0, 0);
    REQUIRE(p.size() == 1);  // site A has one process
    CHECK(p[0].index == 0);
    CHECK(p[0].level == 0);
    CHECK(p[0].members == std::vector<int>{0, 1, 4});
    // Rank 6 under root 7: machine c2's representative is the root; 6 meets 7 inside it.
    p = h.plan(6, 7);
    REQUIRE(p.size() == 1);
    CHECK(p[0].index == 2);
    CHECK(p[0].level == 2);
    CHECK(p[0].members == std::vector<int>{6, 7});
    CHECK(p[0].root == 1);
    // Root 7 represents site C and machine c2.
    p = h.plan(7, 7);
    REQUIRE(p.size() == 3);
    CHECK(p[0].members == std::vector<int>{0, 1, 7});
    CHECK(p[0].root == 2);
    CHECK(p[1].members == std::vector<int>{4, 7});
    CHECK(p[1].level == 1);
    CHECK(p[2].members == std::vector<int>{6, 7});
}

TEST_CASE("every rank is reached exactly once from every root", "[hierarchy]") {
    const Hierarchy h = grid();
    for (int root = 0; root < h.size(); ++root) {
        // Who receives (is a member but not the root of a stage), per stage group.
        std::multiset<int> receivers;
        for (int r = 0; r < h.size(); ++r) {
            const std::vector<Stage> plan = h.plan(r, root);
            for (std::size_t i = 0; i < plan.size(); ++i) {
                const Stage& s = plan[i];
                CHECK(s.members[static_cast<std::size_t>(s.me)] == r);
                // A process joins at one stage as a non-root and roots every finer one.
                if (s.me != s.root) {
                    CHECK(i == 0);
                    receivers.insert(r);
                }
            }
            CHECK((r == root) == (plan.empty() || plan[0].me == plan[0].root));
        }
        std::multiset<int> want;
        for (int r = 0; r < h.size(); ++r) {
            if (r != root) want.insert(r);
        }
        CHECK(receivers == want);
    }
}

TEST_CASE("clusters out of rank order travel in cluster order", "[hierarchy]") {
    Hierarchy h(6, 0);
    h.refine({0, 1, 0, 1, 0, 1}, 1);
    h.finish();
    CHECK(h.spans());
    CHECK_FALSE(h.ordered());
    CHECK(h.members(0, 0) == std::vector<int>{0, 2, 4, 1, 3, 5});
    CHECK(h.members(1, h.cluster_of(1, 3)) == std::vector<int>{1, 3, 5});
    const std::vector<Stage> p = h.plan(1, 4);
    REQUIRE(p.size() == 2);
    CHECK(p[0].members == std::vector<int>{4, 1});
    CHECK(p[0].root == 0);
    CHECK(p[1].members == std::vector<int>{1, 3, 5});
}

TEST_CASE("a stage's level is the kind of its links, which the topology names per cluster", "[hierarchy]") {
    // Two vendor groups at level 3: {0 1 2 3} spans two nodes, so its level 4 is
    // a node; {4 5} lies on one host, so its level 4 is a package.
    Hierarchy h(6, 0);
    h.refine({0, 0, 0, 0, 1, 1}, 3);
    h.refine({0, 0, 1, 1, 2, 3}, 4);
    const auto kind = [](const std::vector<int>& members, int level) {
        return level == 4 ? (members.front() < 4 ? 4 : 5) : level;
    };
    h.finish(kind);
    CHECK(h.top_level() == 0);
    std::vector<Stage> p = h.plan(0, 0);
    REQUIRE(p.size() == 3);
    CHECK(p[0].level == 0);  // between the vendor groups: the links above them
    CHECK(p[1].level == 3);  // between the nodes of the first
    CHECK(p[2].level == 4);  // inside a node: 4 is a node there
    CHECK(p[2].members == std::vector<int>{0, 1});
    p = h.plan(4, 4);
    REQUIRE(p.size() == 2);
    CHECK(p[1].level == 3);  // the second group's packages meet at its vendor level
    CHECK(p[1].members == std::vector<int>{4, 5});
}

TEST_CASE("MagPIe's shapes name a cluster's links by the deepest level its members share", "[hierarchy]") {
    // Two sites of 4 processes, each site one machine on one host whose shared
    // memory links its processes: inside a site the links are vendor links
    // for every shape, though the site shape splits by site alone.
    using namespace strata::wireup;
    std::vector<BusinessCard> cards(8);
    for (std::size_t r = 0; r < cards.size(); ++r) {
        // Moved in whole: GCC 12 at -O3 warns -Wrestrict on assigning a literal (GCC bug 105329).
        cards[r].site = std::string(r < 4 ? "A" : "B");
        cards[r].host = std::string(r < 4 ? "ha" : "hb");
        cards[r].subjob = r < 4 ? 0 : 1;
    }
    const Topology t = Topology::build(cards, [](const BusinessCard& a, const BusinessCard& b) { return a.host == b.host; });
    const Levels levels = levels_of(t, {0, 1, 2, 3, 4, 5, 6, 7});
    for (const Shape shape : {Shape::multilevel, Shape::site, Shape::machine}) {
        INFO("shape " << static_cast<int>(shape));
        const std::vector<Stage>& plan = levels.of(shape).plan(0, 0);
        REQUIRE(plan.size() == 2);
        CHECK(plan[0].level == kWan);
        CHECK(plan[1].level == kVendor);
    }
}
