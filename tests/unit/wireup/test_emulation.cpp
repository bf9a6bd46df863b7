#include "wireup/emulation.hpp"
#include "wireup/shared_links.hpp"

#include <unistd.h>

#include <cmath>

#include <catch2/catch.hpp>

using namespace strata::wireup;

TEST_CASE("emulation text: parsed, and written back the same") {
    const auto e = emulation_parse("wan:latency_ms=10,bandwidth_mbit=100; lan:latency_ms=0.5;A/B:bandwidth_mbit=50");
    REQUIRE(e);
    CHECK(e.error().empty());
    CHECK(e->wan == LinkShape{0.01, 12.5e6});
    CHECK(e->lan == LinkShape{0.0005, 0});
    REQUIRE(e->pairs.size() == 1);
    CHECK((e->pairs[0].a == "A" && e->pairs[0].b == "B" && e->pairs[0].shape == LinkShape{0, 6.25e6}));
    CHECK(e->text() == "wan:latency_ms=10,bandwidth_mbit=100;lan:latency_ms=0.5;A/B:bandwidth_mbit=50");
    CHECK(*emulation_parse(e->text()) == *e);
    CHECK(emulation_parse("")->empty());
}

TEST_CASE("emulation: which shape a link gets") {
    const auto e = emulation_parse("wan:latency_ms=10;lan:latency_ms=1;A/B:latency_ms=30");
    REQUIRE(e);
    CHECK(e->link(0, "B", "A")->latency_s == Approx(0.03));
    CHECK(e->link(0, "A", "C")->latency_s == Approx(0.01));
    CHECK(e->link(1, "A", "A")->latency_s == Approx(0.001));
    CHECK_FALSE(e->link(2, "A", "A"));
    CHECK_FALSE(emulation_parse("lan:latency_ms=1")->link(0, "A", "B"));
}

TEST_CASE("emulation: the shared link table") {
    const std::string key = "a job key for this test " + std::to_string(::getpid());
    const auto absent = SharedLinks::attach(key);
    CHECK_FALSE(absent);  // mpirun has not made it
    CHECK(absent.error().find("mpirun makes it") != std::string::npos);
    {
        auto made_or = SharedLinks::create(key);
        REQUIRE(made_or);
        const std::unique_ptr<SharedLinks> made = std::move(*made_or);
        REQUIRE(made != nullptr);
        CHECK_FALSE(SharedLinks::create(key));  // one per job
        auto seen_or = SharedLinks::attach(key);
        REQUIRE(seen_or);
        const std::unique_ptr<SharedLinks> seen = std::move(*seen_or);
        REQUIRE(seen != nullptr);
        // A free link starts now; a busy one when it is free; every process sees the same link.
        CHECK(made->reserve(3, 1000, 50) == 1050);
        CHECK(seen->reserve(3, 1010, 50) == 1100);
        CHECK(made->reserve(3, 2000, 10) == 2010);
        CHECK(seen->reserve(4, 1010, 5) == 1015);
        // Premium reservations: admitted while the sum fits the capacity, by any process.
        CHECK(made->admit(3, 400, 1000));
        CHECK(seen->admit(3, 500, 1000));
        CHECK_FALSE(made->admit(3, 101, 1000));  // 1001 > 1000: nothing changes
        CHECK(seen->reserved(3) == 900);
        CHECK(made->admit(3, 100, 1000));
        CHECK(made->reserved(4) == 0);  // per link
        seen->release(3, 400);
        CHECK(made->reserved(3) == 600);
        CHECK_FALSE(made->admit(5, 2000, 1000));  // more than the whole capacity
        CHECK(made->reserved(5) == 0);
    }
    CHECK_FALSE(SharedLinks::attach(key));  // unlinked with its maker
    CHECK(SharedLinks::name_for(key).rfind("/strata-links-", 0) == 0);
    CHECK(SharedLinks::name_for(key).find(key) == std::string::npos);
}

TEST_CASE("emulation: a site's uplink, a bandwidth only") {
    const auto e = emulation_parse("wan:latency_ms=10;uplink:bandwidth_mbit=100");
    REQUIRE(e);
    REQUIRE(e->uplink);
    CHECK(e->uplink->bytes_per_s == 12.5e6);
    CHECK(e->text() == "wan:latency_ms=10;uplink:bandwidth_mbit=100");
    // With an uplink alone, links between sites are shaped (by it alone), not those inside one.
    const auto alone = emulation_parse("uplink:bandwidth_mbit=100");
    REQUIRE(alone);
    CHECK_FALSE(alone->empty());
    CHECK(alone->link(0, "A", "B") == LinkShape{});
    CHECK_FALSE(alone->link(1, "A", "A"));
    CHECK(emulation_parse("uplink:latency_ms=1,bandwidth_mbit=100").error() ==
          "'uplink': an uplink has a bandwidth only (bandwidth_mbit): latency and window are the wide area's (wan)");
    CHECK(emulation_parse("uplink:window_kib=64").error() ==
          "'uplink': an uplink has a bandwidth only (bandwidth_mbit): latency and window are the wide area's (wan)");
}

TEST_CASE("emulation text: what is wrong is named") {
    CHECK(emulation_parse("wan").error() ==
          "'wan': expected LINK:latency_ms=N,bandwidth_mbit=N with LINK wan, lan, uplink or SITE/SITE");
    CHECK(emulation_parse("man:latency_ms=1").error() == "unknown link 'man'; expected wan, lan, uplink or SITE/SITE");
    CHECK(emulation_parse("wan:latency_ms=-1").error() == "'wan': 'latency_ms' must not be negative, got -1");
    CHECK(emulation_parse("wan:bandwidth_mbit=lots").error() == "'wan': 'bandwidth_mbit' must be a number, not 'lots'");
    CHECK(emulation_parse("wan:latency_ms").error() == "'wan': 'latency_ms' has no value; write latency_ms=N");
    CHECK(emulation_parse("wan:jitter_ms=3").error() ==
          "'wan': unknown figure 'jitter_ms'; expected latency_ms, bandwidth_mbit, window_kib or premium_mbit");
    CHECK(emulation_parse("wan:").error() ==
          "'wan': no figures; give latency_ms, bandwidth_mbit, window_kib and/or premium_mbit (each =N)");
    CHECK(emulation_parse("A/:latency_ms=1").error() == "unknown link 'A/'; expected wan, lan, uplink or SITE/SITE");
    CHECK_FALSE(emulation_parse("wan:latency_ms=inf"));
}

TEST_CASE("emulation text: a stream's window") {
    const auto e = emulation_parse("wan:latency_ms=10,bandwidth_mbit=1000,window_kib=64;A/B:window_kib=0.5");
    REQUIRE(e);
    CHECK(e->wan == LinkShape{0.01, 125e6, 65536});
    REQUIRE(e->pairs.size() == 1);
    CHECK(e->pairs[0].shape == LinkShape{0, 0, 512});
    // Written back in the table's order, and read again the same.
    CHECK(e->text() == "wan:latency_ms=10,bandwidth_mbit=1000,window_kib=64;A/B:window_kib=0.5");
    CHECK(*emulation_parse(e->text()) == *e);
    CHECK(emulation_parse("lan:window_kib=16")->lan == LinkShape{0, 0, 16384});
    // Without the figure, no window.
    CHECK(emulation_parse("wan:latency_ms=10")->wan->window_bytes == 0);
    // What is wrong with it is named, with its entry.
    CHECK(emulation_parse("wan:latency_ms=1;A/B:window_kib=-64").error() ==
          "'A/B': 'window_kib' must not be negative, got -64");
    CHECK(emulation_parse("lan:window_kib=big").error() == "'lan': 'window_kib' must be a number, not 'big'");
    CHECK(emulation_parse("wan:window_kib").error() == "'wan': 'window_kib' has no value; write window_kib=N");
    CHECK(emulation_parse("wan:window_kb=64").error() ==
          "'wan': unknown figure 'window_kb'; expected latency_ms, bandwidth_mbit, window_kib or premium_mbit");
}

TEST_CASE("emulation: the figures' table sets one field each") {
    LinkShape s;
    CHECK(emulation_figure_set(s, "latency_ms", "2.5"));
    CHECK(emulation_figure_set(s, "bandwidth_mbit", "8"));
    CHECK(emulation_figure_set(s, "window_kib", "4"));
    CHECK(s == LinkShape{0.0025, 1e6, 4096});
    CHECK(emulation_figure_set(s, "jitter", "1").error() ==
          "unknown figure 'jitter'; expected latency_ms, bandwidth_mbit, window_kib or premium_mbit");
    CHECK(emulation_figure_set(s, "window_kib", "").error() == "'window_kib' must be a number, not ''");
    CHECK(s == LinkShape{0.0025, 1e6, 4096});  // a refused figure changes nothing
    CHECK(emulation_figure_names(" and ") == "latency_ms, bandwidth_mbit, window_kib and premium_mbit");
}

TEST_CASE("streams: the number a link may use") {
    CHECK(*streams_check("4") == 4);
    CHECK(*streams_check("1") == 1);
    CHECK(*streams_check("16") == 16);
    CHECK(streams_check("0").error() == "'0' is not a number of streams; expected 1 to 16");
    CHECK(streams_check("17").error() == "'17' is not a number of streams; expected 1 to 16");
    CHECK(streams_check("2x").error() == "'2x' is not a number of streams; expected 1 to 16");
    CHECK(streams_check("").error() == "'' is not a number of streams; expected 1 to 16");
    // strtol skipped leading spaces and took a '+'.
    CHECK(streams_check(" 4").error() == "' 4' is not a number of streams; expected 1 to 16");
    CHECK(streams_check("+4").error() == "'+4' is not a number of streams; expected 1 to 16");
    CHECK(streams_check("99999999999999999999").error() ==
          "'99999999999999999999' is not a number of streams; expected 1 to 16");
}

TEST_CASE("emulation: a link's premium capacity") {
    const auto e = emulation_parse("wan:bandwidth_mbit=100;A/B:bandwidth_mbit=100,premium_mbit=80;A/C:latency_ms=5");
    REQUIRE(e);
    CHECK(premium_capacity(*e->link(0, "A", "D")) == Approx(50e6 / 8));  // half the bandwidth
    CHECK(premium_capacity(*e->link(0, "B", "A")) == Approx(80e6 / 8));
    CHECK(std::isinf(premium_capacity(*e->link(0, "A", "C"))));  // no bandwidth: no limit
    CHECK(e->text() == "wan:bandwidth_mbit=100;A/B:bandwidth_mbit=100,premium_mbit=80;A/C:latency_ms=5");
    CHECK(emulation_parse("wan:bandwidth_mbit=100,premium_mbit=100").error() ==
          "'wan': 'premium_mbit' must be less than 'bandwidth_mbit' (bulk traffic keeps the rest)");
    CHECK(emulation_parse("uplink:bandwidth_mbit=100,premium_mbit=30"));
    CHECK(premium_capacity(*emulation_parse("uplink:bandwidth_mbit=100,premium_mbit=30")->uplink) == Approx(30e6 / 8));
}
