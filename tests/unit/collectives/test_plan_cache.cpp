// The plans a communicator's collectives follow are made once: a repeated
// call with the same root allocates nothing (the stage plans of the
// hierarchy, the stage groups built from them, the wide-area model's tree).
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "adi/engine.hpp"
#include "alloc_count.hpp"
#include "collectives/collective.hpp"
#include "collectives/hierarchy.hpp"
#include "collectives/plogp/wide_area.hpp"

using namespace strata::coll;
using strata::test::allocations;

namespace {

// 8 ranks (world ranks 10-17): sites {0} {1 2 3} {4 5 6 7}, machines inside.
Hierarchy grid() {
    Hierarchy h(8, 0, {10, 11, 12, 13, 14, 15, 16, 17});
    h.refine({0, 1, 1, 1, 2, 2, 2, 2}, 1);
    h.refine({0, 1, 2, 2, 3, 3, 4, 4}, 2);
    h.finish();
    return h;
}

}  // namespace

TEST_CASE("the allocation counter counts", "[plans]") {
    const std::uint64_t before = allocations();
    auto held = std::make_unique<std::vector<int>>(100, 1);
    CHECK(allocations() >= before + 2);  // the vector object and its elements
    CHECK(held->size() == 100);
}

TEST_CASE("a hierarchy's stage plans are made once per root; repeating one allocates nothing", "[plans]") {
    const Hierarchy h = grid();
    for (int rank : {0, 1, 4, 6}) {
        for (int root = 0; root < 8; ++root) (void)h.plan(rank, root);  // made for this rank, every root
        const std::uint64_t before = allocations();
        std::size_t stages = 0;
        for (int again = 0; again < 3; ++again) {
            for (int root = 0; root < 8; ++root) stages += h.plan(rank, root).size();
        }
        CHECK(allocations() == before);
        CHECK(stages > 0);
        // Remembered, not recomputed: the same object every time.
        CHECK(&h.plan(rank, 3) == &h.plan(rank, 3));
    }
    // The members' world ranks travel with the stages.
    for (const Stage& s : h.plan(4, 0)) {
        REQUIRE(s.world.size() == s.members.size());
        for (std::size_t i = 0; i < s.members.size(); ++i) CHECK(s.world[i] == 10 + s.members[i]);
    }
}

TEST_CASE("a stage group on a communicator's group copies nothing; under another stage it maps ranks",
          "[plans]") {
    strata::adi::Engine engine({});
    Levels levels;
    levels.shapes[0] = grid();
    const std::vector<int> world{10, 11, 12, 13, 14, 15, 16, 17};
    const Group comm{engine, 7, 4, world, &levels};
    const std::vector<Stage>& stages = levels.of(Shape::multilevel).plan(4, 0);
    REQUIRE(stages.size() >= 2);
    const std::uint64_t before = allocations();
    for (const Stage& s : stages) {
        const StageGroup sg(comm, s);
        CHECK(sg.group().size() == static_cast<int>(s.members.size()));
        CHECK(&sg.group().world == &s.world);
        for (int i = 0; i < sg.group().size(); ++i) {
            CHECK(sg.group().envelope_rank(i) == s.members[static_cast<std::size_t>(i)]);
        }
    }
    CHECK(allocations() == before);
    // A stage's group is not a communicator's: a group made under it maps
    // its members (ranks of that group) through it, and may allocate to do so.
    const StageGroup outer(comm, stages[0]);
    REQUIRE(outer.group().size() >= 2);
    Stage nested;
    nested.members = {outer.group().size() - 1, 0};
    nested.world = {99, 98};  // not used: the parent is no communicator's group
    const StageGroup inner(outer.group(), nested);
    REQUIRE(inner.group().size() == 2);
    for (int i = 0; i < 2; ++i) {
        const int r = nested.members[static_cast<std::size_t>(i)];
        CHECK(inner.group().world[static_cast<std::size_t>(i)] == outer.group().world[static_cast<std::size_t>(r)]);
        CHECK(inner.group().envelope_rank(i) == outer.group().envelope_rank(r));
    }
}

TEST_CASE("the wide-area model's tree for a group, root and size is looked up without allocating", "[plans]") {
    const char* text =
        "sizes 0 1K 1M\n"
        "link A B latency 10000\nlink A B os 5 6 40\nlink A B or 5 6 40\nlink A B g 6 88 83892\n"
        "link B B latency 500\nlink B B os 2 3 20\nlink B B or 2 3 20\nlink B B g 3 10 8400\n";
    strata::base::Result<plogp::Params> params = plogp::Params::parse(text, "two");
    REQUIRE(params.ok());
    strata::base::Result<std::unique_ptr<plogp::WideArea>> made =
        plogp::WideArea::make(std::move(*params), {"A", "B", "B"});
    REQUIRE(made.ok());
    const std::unique_ptr<plogp::WideArea> model = std::move(*made);
    const std::vector<int> world{0, 1, 2};
    const plogp::Plan& first = model->plan(world, 1, 65536, 1);
    const std::uint64_t before = allocations();
    for (int i = 0; i < 10; ++i) CHECK(&model->plan(world, 1, 65536, 1) == &first);
    CHECK(allocations() == before);
    CHECK(&model->plan(world, 2, 65536, 1) != &first);  // another root: another plan
}
