#include "wireup/topology.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

using namespace strata::wireup;

namespace {

BusinessCard card(const std::string& site, const std::string& machine, const std::string& host, bool fast,
                  const std::string& group = "g", std::uint32_t subjob = 0) {
    BusinessCard c;
    c.site = site;
    c.machine = machine;
    c.host = host;
    c.subjob = subjob;
    if (fast) c.publish("fast", group);
    return c;
}

// As the shm method decides: both published, on one host, in one group (account).
bool fast_rule(const BusinessCard& a, const BusinessCard& b) {
    const std::string x = a.entry("fast");
    return !x.empty() && x == b.entry("fast") && a.host == b.host;
}

std::vector<int> colors_at(const Topology& t, int level) {
    std::vector<int> out;
    for (int r = 0; r < t.size(); ++r) out.push_back(t.color(r, level));
    return out;
}

// Each rank's colour at its level of `kind`, -1 where it has none.
std::vector<int> colors_of(const Topology& t, int kind) {
    std::vector<int> out;
    for (int r = 0; r < t.size(); ++r) out.push_back(t.level_of(r, kind) < 0 ? -1 : t.color(r, t.level_of(r, kind)));
    return out;
}

}  // namespace

TEST_CASE("MPICH-G2's example: 4 ranks with a vendor method at site A, 4 + 4 TCP-only at site B") {
    std::vector<BusinessCard> cards;
    for (int i = 0; i < 4; ++i) cards.push_back(card("A", "m1", "h1", true));
    for (int i = 0; i < 4; ++i) cards.push_back(card("B", "m2", "h2", false));
    for (int i = 0; i < 4; ++i) cards.push_back(card("B", "m3", "h3", false));
    const Topology t = Topology::build(cards, fast_rule);
    CHECK(t.depths() == std::vector<int>{4, 4, 4, 4, 3, 3, 3, 3, 3, 3, 3, 3});
    CHECK(colors_at(t, kWan) == std::vector<int>(12, 0));
    CHECK(colors_at(t, kLan) == std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1});
    CHECK(colors_at(t, kSystem) == std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2});
    CHECK(colors_at(t, kVendor) == std::vector<int>{0, 0, 0, 0, -1, -1, -1, -1, -1, -1, -1, -1});
    CHECK(t.link_level(0, 3) == kVendor);
    CHECK(t.link_level(4, 7) == kSystem);
    CHECK(t.link_level(4, 8) == kLan);
    CHECK(t.link_level(0, 4) == kWan);
    CHECK(t.link_level(5, 5) == kSystem);
    CHECK(t.max_depth() == 4);
    CHECK(t.site(8) == "B");
}

TEST_CASE("colours number by first appearance, and each level refines the one above") {
    // Sites interleaved; no machine label: the subjob is the machine (as in
    // MPICH-G2), whatever hosts it spans. One subjob at two sites is two machines.
    std::vector<BusinessCard> cards = {card("y", "", "h", false, "g", 0), card("x", "", "h", false, "g", 1),
                                       card("y", "", "k", false, "g", 2), card("y", "", "k", false, "g", 0)};
    const Topology t = Topology::build(cards, fast_rule);
    CHECK(colors_at(t, kLan) == std::vector<int>{0, 1, 0, 0});
    CHECK(colors_at(t, kSystem) == std::vector<int>{0, 1, 2, 0});
    // A machine label groups subjobs; a label is never a subjob.
    cards = {card("s", "m", "h1", false, "g", 0), card("s", "m", "h2", false, "g", 1),
             card("s", "", "m", false, "g", 0)};
    CHECK(colors_at(Topology::build(cards, fast_rule), kSystem) == std::vector<int>{0, 0, 1});
}

TEST_CASE("two subjobs on one host are two machines: their shared memory makes no vendor level across them") {
    const std::vector<BusinessCard> cards = {card("s", "", "h", true, "g", 0), card("s", "", "h", true, "g", 0),
                                             card("s", "", "h", true, "g", 1)};
    const Topology t = Topology::build(cards, fast_rule);
    CHECK(colors_at(t, kSystem) == std::vector<int>{0, 0, 1});
    CHECK(t.depths() == std::vector<int>{4, 4, 3});
}

TEST_CASE("vendor level: the groups one machine's fast methods link; a process linked to nobody has none") {
    std::vector<BusinessCard> cards = {card("s", "m", "h", true, "alice"), card("s", "m", "h", true, "bob"),
                                       card("s", "m", "h", true, "alice"), card("s", "m", "h", true, "carol"),
                                       card("s", "m", "h", true, "bob")};
    const Topology t = Topology::build(cards, fast_rule);
    CHECK(t.depths() == std::vector<int>{4, 4, 4, 3, 4});
    CHECK(colors_at(t, kVendor) == std::vector<int>{0, 1, 0, -1, 1});
    CHECK(t.link_level(1, 4) == kVendor);
    CHECK(t.link_level(0, 1) == kSystem);
    // A fast link between two machines does not make a vendor level across them.
    cards = {card("s", "m1", "h", true), card("s", "m2", "h", true)};
    CHECK(Topology::build(cards, fast_rule).depths() == std::vector<int>{3, 3});
}

TEST_CASE("hwloc levels below the vendor level, where the binding lies in one object") {
    std::vector<BusinessCard> cards;
    const std::vector<CpuPlace> places = {{0, 0}, {1, 1}, {0, 0}, {-1, -1}, {1, -1}, {0, 0}, {0, 0}};
    for (int i = 0; i < 6; ++i) cards.push_back(card("s", "m", "h", true));
    cards.push_back(card("s", "m", "h", false));  // no vendor level: no hwloc levels either
    const Topology t = Topology::build(cards, fast_rule, places);
    // Without places, no levels below the vendor level.
    CHECK(Topology::build(cards, fast_rule).depths() == std::vector<int>{4, 4, 4, 4, 4, 4, 3});
    CHECK(t.depths() == std::vector<int>{6, 6, 6, 4, 5, 6, 3});
    CHECK(colors_at(t, 4) == std::vector<int>{0, 1, 0, -1, 1, 0, -1});
    CHECK(colors_at(t, 5) == std::vector<int>{0, 1, 0, -1, -1, 0, -1});
    CHECK(t.kind(0, 4) == kPackage);
    CHECK(t.kind(0, 5) == kNuma);
    CHECK(t.kind(3, 4) == -1);
    CHECK(t.link_level(0, 2) == 5);
    CHECK(t.link_level(1, 4) == 4);
    CHECK(t.link_level(0, 1) == kVendor);
    CHECK(t.link_level(0, 3) == kVendor);
}

TEST_CASE("hwloc levels are per host: package 0 of two hosts one vendor fabric links are two packages") {
    // A fabric that reaches across hosts (as ofi does); each host has packages 0
    // and 1. The vendor group spans two hosts, two processes on each: a node
    // level (the host) comes between the vendor level and the packages.
    const FastLink fabric = [](const BusinessCard&, const BusinessCard&) { return true; };
    std::vector<BusinessCard> cards;
    std::vector<CpuPlace> places;
    for (const char* host : {"h1", "h1", "h2", "h2"}) {
        cards.push_back(card("s", "cluster", host, true));
        const int package = static_cast<int>(cards.size() - 1) % 2;
        places.push_back({package, package});
    }
    const Topology t = Topology::build(cards, fabric, places);
    CHECK(t.depths() == std::vector<int>{7, 7, 7, 7});
    CHECK(colors_at(t, kVendor) == std::vector<int>{0, 0, 0, 0});
    CHECK(colors_of(t, kNode) == std::vector<int>{0, 0, 1, 1});
    CHECK(colors_of(t, kPackage) == std::vector<int>{0, 1, 2, 3});
    CHECK(colors_of(t, kNuma) == std::vector<int>{0, 1, 2, 3});
    CHECK(t.level_of(0, kNode) == 4);
    CHECK(t.level_of(0, kPackage) == 5);
    CHECK(t.link_level(0, 2) == kVendor);
    CHECK(t.link_level(1, 0) == 4);
    CHECK(t.link_level(1, 3) == kVendor);
}

TEST_CASE("seed 000's grid: the LLNL SP's switch spans its 4-way nodes, the ANL machines have no node level") {
    // 16 processes on the LLNL SP (subjob 0, four nodes of four, a fabric across
    // them and shared memory inside each), 8 on ANL's Origin2000 (subjob 1, one
    // host) and 8 on ANL's SP (subjob 2, one per node). No machine labels.
    const FastLink fabric = [](const BusinessCard& a, const BusinessCard& b) {
        return a.subjob == b.subjob && (a.subjob != 1 || a.host == b.host);
    };
    std::vector<BusinessCard> cards;
    for (int i = 0; i < 16; ++i) cards.push_back(card("LLNL", "", "sp" + std::to_string(i / 4), true, "g", 0));
    for (int i = 0; i < 8; ++i) cards.push_back(card("ANL", "", "o2k", true, "g", 1));
    for (int i = 0; i < 8; ++i) cards.push_back(card("ANL", "", "anl-sp" + std::to_string(i), true, "g", 2));
    const Topology t = Topology::build(cards, fabric);
    for (int r = 0; r < 32; ++r) {
        INFO("rank " << r);
        const int site = r < 16 ? 0 : 1;
        const int machine = r < 16 ? 0 : r < 24 ? 1 : 2;
        std::vector<int> want = {0, site, machine, machine};
        if (r < 16) want.push_back(r / 4);
        CHECK(t.depth(r) == static_cast<int>(want.size()));
        for (int l = 0; l < t.depth(r); ++l) CHECK(t.color(r, l) == want[static_cast<std::size_t>(l)]);
    }
    CHECK(t.kind(0, 4) == kNode);
    CHECK(t.level_text(4) == "node");
    CHECK(t.level_text(3) == "vendor");
    CHECK(t.link_level(0, 3) == kNode);
    CHECK(t.link_level(0, 4) == kVendor);
    CHECK(t.link_level(16, 24) == kLan);
}

TEST_CASE("the table as text") {
    const std::vector<BusinessCard> cards = {card("A", "", "h", true), card("A", "", "h", true),
                                             card("B", "", "k", false, "g", 1)};
    CHECK(Topology::build(cards, fast_rule).text() ==
          "rank 0: depth 4, colours 0 0 0 0 (site A)\n"
          "rank 1: depth 4, colours 0 0 0 0 (site A)\n"
          "rank 2: depth 3, colours 0 1 1 (site B)\n");
    CHECK(std::string(level_name(kSystem)) == "system area");
}
