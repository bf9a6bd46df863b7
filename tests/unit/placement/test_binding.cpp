#include "placement/binding.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace strata::placement;
using strata::wireup::bind_to_parse;
using strata::wireup::CpuPlace;

namespace {

// `n` cores numbered from `first`, one PU each (PU = core index), `per_package` to a package.
std::vector<CpuCore> cores(int n, int first = 0, int per_package = 64) {
    std::vector<CpuCore> out;
    for (int i = first; i < first + n; ++i) out.push_back({i, i / per_package, i / per_package, {i}});
    return out;
}

// A card of `hostname` whose placement entry says its binding spans both
// packages (unless `package` is given) and where a binding would put it.
BusinessCard on(const std::string& hostname, int cores_allowed = 0,
                std::vector<std::pair<std::int32_t, std::int32_t>> slots = {}, std::int32_t package = -1) {
    BusinessCard c;
    c.hostname = hostname;
    strata::wireup::publish_message(c, kPlacementEntry, Place{package, -1, cores_allowed, std::move(slots)});
    return c;
}

}  // namespace

TEST_CASE("bind_to values: core, socket, none; anything else names them") {
    CHECK(*bind_to_parse("core") == BindTo::core);
    CHECK(*bind_to_parse("socket") == BindTo::socket);
    CHECK(*bind_to_parse("none") == BindTo::none);
    for (const char* bad : {"", "Core", "hwthread", "cores"}) {
        const auto r = bind_to_parse(bad);
        REQUIRE_FALSE(r.ok());
        // Built by appending: GCC 12 at -O3 warns -Wrestrict on "'" + std::string(...) (GCC bug 105329).
        std::string want = "'";
        want += bad;
        want += "' is not a binding; expected core, socket or none";
        CHECK(r.error() == want);
    }
}

TEST_CASE("core: ranks that fit take distinct cores by local index") {
    const auto allowed = cores(2);
    for (BindTo mode : {BindTo::core, BindTo::automatic}) {
        const BindChoice a = binding_choose(mode, allowed, 2, 0);
        const BindChoice b = binding_choose(mode, allowed, 2, 1);
        CHECK(a.bound);
        CHECK(a.pus == std::vector<int>{0});
        CHECK(a.core == 0);
        CHECK(a.text == "bound to core 0 (PU 0)");
        CHECK(b.bound);
        CHECK(b.pus == std::vector<int>{1});
        CHECK(b.text == "bound to core 1 (PU 1)");
    }
    // One rank on a 4-core host: core 0.
    CHECK(binding_choose(BindTo::automatic, cores(4), 1, 0).pus == std::vector<int>{0});
}

TEST_CASE("oversubscribed: never bound, whatever the mode") {
    for (BindTo mode : {BindTo::core, BindTo::socket, BindTo::automatic}) {
        for (int local = 0; local < 4; ++local) {
            const BindChoice c = binding_choose(mode, cores(2), 4, local);
            CHECK_FALSE(c.bound);
            CHECK(c.pus.empty());
            CHECK(c.text == "not bound: 4 ranks on 2 allowed cores");
        }
    }
    CHECK(binding_choose(BindTo::automatic, cores(1), 2, 0).text == "not bound: 2 ranks on 1 allowed core");
    CHECK_FALSE(binding_choose(BindTo::automatic, {}, 1, 0).bound);
}

TEST_CASE("none: never bound") {
    const BindChoice c = binding_choose(BindTo::none, cores(8), 2, 1);
    CHECK_FALSE(c.bound);
    CHECK(c.text == "not bound: bind-to none");
    CHECK(binding_slots(BindTo::none, cores(8)).empty());
}

TEST_CASE("a restricted affinity (taskset -c 2,3): only its cores and PUs are chosen") {
    const auto allowed = cores(2, 2);
    CHECK(binding_choose(BindTo::core, allowed, 2, 0).pus == std::vector<int>{2});
    CHECK(binding_choose(BindTo::core, allowed, 2, 1).pus == std::vector<int>{3});
    CHECK(binding_choose(BindTo::core, allowed, 2, 1).text == "bound to core 3 (PU 3)");
    // Three ranks do not fit two allowed cores, however many the host has.
    CHECK_FALSE(binding_choose(BindTo::automatic, allowed, 3, 0).bound);
    // A core of two hyperthreads of which only one is allowed: that one.
    const std::vector<CpuCore> smt = {{0, 0, 0, {4}}, {1, 0, 0, {1, 5}}};
    CHECK(binding_choose(BindTo::core, smt, 2, 0).pus == std::vector<int>{4});
    CHECK(binding_choose(BindTo::core, smt, 2, 1).pus == std::vector<int>{1, 5});
    CHECK(binding_choose(BindTo::core, smt, 2, 1).text == "bound to core 1 (PUs 1,5)");
}

TEST_CASE("socket: the whole allowed part of a package, round-robin over packages") {
    const auto allowed = cores(4, 0, 2);  // packages 0 {0,1} and 1 {2,3}
    const BindChoice a = binding_choose(BindTo::socket, allowed, 3, 0);
    const BindChoice b = binding_choose(BindTo::socket, allowed, 3, 1);
    const BindChoice c = binding_choose(BindTo::socket, allowed, 3, 2);
    CHECK(a.bound);
    CHECK(a.pus == std::vector<int>{0, 1});
    CHECK(a.core == -1);
    CHECK(a.package == 0);
    CHECK(a.text == "bound to package 0 (PUs 0,1)");
    CHECK(b.pus == std::vector<int>{2, 3});
    CHECK(b.package == 1);
    CHECK(c.pus == std::vector<int>{0, 1});
    // More ranks than allowed cores: not bound, even to packages.
    CHECK_FALSE(binding_choose(BindTo::socket, allowed, 5, 0).bound);
    // Restricted to cores 1 and 2: each package holds one allowed PU.
    std::vector<CpuCore> part = {allowed[1], allowed[2]};
    CHECK(binding_choose(BindTo::socket, part, 2, 0).pus == std::vector<int>{1});
    CHECK(binding_choose(BindTo::socket, part, 2, 1).pus == std::vector<int>{2});
    using Slots = std::vector<std::pair<std::int32_t, std::int32_t>>;
    CHECK(binding_slots(BindTo::socket, allowed) == Slots{{0, 0}, {1, 1}});
    CHECK(binding_slots(BindTo::core, allowed) == Slots{{0, 0}, {0, 0}, {1, 1}, {1, 1}});
    CHECK(binding_slots(BindTo::automatic, allowed) == binding_slots(BindTo::core, allowed));
}

TEST_CASE("local position: the index among the cards of one host, in rank order") {
    const std::vector<BusinessCard> cards = {on("a"), on("b"), on("a"), on("a"), on("b")};
    CHECK(local_position(cards, 0).index == 0);
    CHECK(local_position(cards, 0).count == 3);
    CHECK(local_position(cards, 3).index == 2);
    CHECK(local_position(cards, 4).index == 1);
    CHECK(local_position(cards, 4).count == 2);
}

TEST_CASE("cards_bind: every card's package and NUMA node from its binding, the same on every process") {
    const std::vector<std::pair<std::int32_t, std::int32_t>> two_packages = {{0, 0}, {1, 1}};
    std::vector<BusinessCard> cards = {on("a", 2, two_packages), on("b", 2, two_packages), on("a", 2, two_packages),
                                       on("c", 2, two_packages), on("c", 2, two_packages), on("c", 2, two_packages),
                                       on("d", 2, {}, 0)};
    const auto places = cards_bind(cards);
    REQUIRE(places);
    std::vector<int> packages;
    for (const CpuPlace& p : *places) packages.push_back(p.package);
    // a: ranks 0, 2 -> packages 0, 1; b: rank 1 -> 0; c: 3 ranks on 2 cores, not bound;
    // d: publishes no slots (not bound), keeps what it read.
    CHECK(packages == std::vector<int>{0, 0, 1, -1, -1, -1, 0});
    CHECK((*places)[2].numa == 1);
    // The cards now say where their processes are: another job reads them as they are.
    const auto again = places_of(cards);
    REQUIRE(again);
    for (std::size_t r = 0; r < cards.size(); ++r) CHECK((*again)[r].package == (*places)[r].package);
}

TEST_CASE("places: a card without a placement entry has no place; a malformed entry names the rank") {
    std::vector<BusinessCard> cards = {BusinessCard{}, on("a", 2, {{0, 0}})};
    const auto places = places_of(cards);
    REQUIRE(places);
    CHECK((*places)[0].package == -1);
    CHECK((*places)[0].numa == -1);
    cards[1].publish(kPlacementEntry, "xyz");
    const auto bad = cards_bind(cards);
    REQUIRE_FALSE(bad);
    CHECK(bad.error().find("rank 1's card: its 'placement' entry") != std::string::npos);
}
