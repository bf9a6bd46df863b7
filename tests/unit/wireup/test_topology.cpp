#include "wireup/topology.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace strata::wireup;

namespace {

BusinessCard card(const std::string& site, const std::string& machine, const std::string& host, bool fast,
                  const std::string& group = "g") {
    BusinessCard c;
    c.site = site;
    c.machine = machine;
    c.host = host;
    if (fast) c.addresses.emplace_back("fast", group);
    return c;
}

// As the shm method decides: both published, on one host, in one group (account).
bool fast_rule(const BusinessCard& a, const BusinessCard& b) {
    const std::string x = a.address_of("fast");
    return !x.empty() && x == b.address_of("fast") && a.host == b.host;
}

std::vector<int> colors_at(const Topology& t, int level) {
    std::vector<int> out;
    for (int r = 0; r < t.size(); ++r) out.push_back(t.color(r, level));
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
    // Sites interleaved; no machine label: the host stands for the machine.
    // The same host name at two sites is two machines.
    std::vector<BusinessCard> cards = {card("y", "", "h", false), card("x", "", "h", false),
                                       card("y", "", "k", false), card("y", "", "h", false)};
    const Topology t = Topology::build(cards, fast_rule);
    CHECK(colors_at(t, kLan) == std::vector<int>{0, 1, 0, 0});
    CHECK(colors_at(t, kSystem) == std::vector<int>{0, 1, 2, 0});
    // A machine label groups hosts; a label equal to a host name is not that host.
    cards = {card("s", "m", "h1", false), card("s", "m", "h2", false), card("s", "", "m", false)};
    CHECK(colors_at(Topology::build(cards, fast_rule), kSystem) == std::vector<int>{0, 0, 1});
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
    const int packages[] = {0, 1, 0, -1, 1, 0};
    const int numas[] = {0, 1, 0, -1, -1, 0};
    for (int i = 0; i < 6; ++i) {
        cards.push_back(card("s", "m", "h", true));
        cards.back().package = packages[i];
        cards.back().numa = numas[i];
    }
    cards.push_back(card("s", "m", "h", false));  // no vendor level: no hwloc levels either
    cards.back().package = 0;
    cards.back().numa = 0;
    const Topology t = Topology::build(cards, fast_rule);
    CHECK(t.depths() == std::vector<int>{6, 6, 6, 4, 5, 6, 3});
    CHECK(colors_at(t, kPackage) == std::vector<int>{0, 1, 0, -1, 1, 0, -1});
    CHECK(colors_at(t, kNuma) == std::vector<int>{0, 1, 0, -1, -1, 0, -1});
    CHECK(t.link_level(0, 2) == kNuma);
    CHECK(t.link_level(1, 4) == kPackage);
    CHECK(t.link_level(0, 1) == kVendor);
    CHECK(t.link_level(0, 3) == kVendor);
}

TEST_CASE("hwloc levels are per host: package 0 of two hosts one vendor fabric links are two packages") {
    // A fabric that reaches across hosts (as ofi does); each host has packages 0 and 1.
    const FastLink fabric = [](const BusinessCard&, const BusinessCard&) { return true; };
    std::vector<BusinessCard> cards;
    for (const char* host : {"h1", "h1", "h2", "h2"}) {
        cards.push_back(card("s", "cluster", host, true));
        cards.back().package = static_cast<int>(cards.size() - 1) % 2;
        cards.back().numa = cards.back().package;
    }
    const Topology t = Topology::build(cards, fabric);
    CHECK(colors_at(t, kVendor) == std::vector<int>{0, 0, 0, 0});
    CHECK(colors_at(t, kPackage) == std::vector<int>{0, 1, 2, 3});
    CHECK(colors_at(t, kNuma) == std::vector<int>{0, 1, 2, 3});
    CHECK(t.link_level(0, 2) == kVendor);
    CHECK(t.link_level(1, 3) == kVendor);
}

TEST_CASE("the table as text") {
    const std::vector<BusinessCard> cards = {card("A", "", "h", true), card("A", "", "h", true),
                                             card("B", "", "k", false)};
    CHECK(Topology::build(cards, fast_rule).text() ==
          "rank 0: depth 4, colours 0 0 0 0 (site A)\n"
          "rank 1: depth 4, colours 0 0 0 0 (site A)\n"
          "rank 2: depth 3, colours 0 1 1 (site B)\n");
    CHECK(std::string(level_name(kSystem)) == "system area");
}
