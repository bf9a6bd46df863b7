#include "wireup/emulation.hpp"

#include <catch2/catch.hpp>

using namespace strata::wireup;

TEST_CASE("emulation text: parsed, and written back the same") {
    std::string error;
    const auto e = emulation_parse("wan:latency_ms=10,bandwidth_mbit=100; lan:latency_ms=0.5;A/B:bandwidth_mbit=50",
                                   error);
    REQUIRE(e);
    CHECK(error.empty());
    CHECK(e->wan == LinkShape{0.01, 12.5e6});
    CHECK(e->lan == LinkShape{0.0005, 0});
    REQUIRE(e->pairs.size() == 1);
    CHECK((e->pairs[0].a == "A" && e->pairs[0].b == "B" && e->pairs[0].shape == LinkShape{0, 6.25e6}));
    CHECK(e->text() == "wan:latency_ms=10,bandwidth_mbit=100;lan:latency_ms=0.5;A/B:bandwidth_mbit=50");
    CHECK(emulation_parse(e->text(), error) == e);
    CHECK(emulation_parse("", error)->empty());
}

TEST_CASE("emulation: which shape a link gets") {
    std::string error;
    const auto e = emulation_parse("wan:latency_ms=10;lan:latency_ms=1;A/B:latency_ms=30", error);
    REQUIRE(e);
    int index = -1;
    CHECK(e->link(0, "B", "A", index)->latency_s == Approx(0.03));
    CHECK(index == 2);
    CHECK(e->link(0, "A", "C", index)->latency_s == Approx(0.01));
    CHECK(index == 0);
    CHECK(e->link(1, "A", "A", index)->latency_s == Approx(0.001));
    CHECK(index == 1);
    CHECK_FALSE(e->link(2, "A", "A", index));
    CHECK_FALSE(emulation_parse("lan:latency_ms=1", error)->link(0, "A", "B", index));
}

TEST_CASE("emulation text: what is wrong is named") {
    std::string error;
    CHECK_FALSE(emulation_parse("wan", error));
    CHECK(error == "'wan': expected LINK:latency_ms=N,bandwidth_mbit=N with LINK wan, lan or SITE/SITE");
    CHECK_FALSE(emulation_parse("man:latency_ms=1", error));
    CHECK(error == "unknown link 'man'; expected wan, lan or SITE/SITE");
    CHECK_FALSE(emulation_parse("wan:latency_ms=-1", error));
    CHECK(error == "'wan': 'latency_ms' must not be negative, got -1");
    CHECK_FALSE(emulation_parse("wan:bandwidth_mbit=lots", error));
    CHECK(error == "'wan': 'bandwidth_mbit' must be a number, not 'lots'");
    CHECK_FALSE(emulation_parse("wan:latency_ms", error));
    CHECK(error == "'wan': 'latency_ms' has no value; write latency_ms=N");
    CHECK_FALSE(emulation_parse("wan:jitter_ms=3", error));
    CHECK(error == "'wan': unknown figure 'jitter_ms'; expected latency_ms or bandwidth_mbit");
    CHECK_FALSE(emulation_parse("wan:", error));
    CHECK(error == "'wan': no figures; give latency_ms=N and/or bandwidth_mbit=N");
    CHECK_FALSE(emulation_parse("A/:latency_ms=1", error));
    CHECK(error == "unknown link 'A/'; expected wan, lan or SITE/SITE");
    CHECK_FALSE(emulation_parse("wan:latency_ms=inf", error));
}
