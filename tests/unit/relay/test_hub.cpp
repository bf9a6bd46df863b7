// mpirun's hub (relay/protocol.hpp, hub_attach and hub_link): relays that
// cannot dial each other link through it, in this process on loopback.
// Each relay listens on 127.0.0.1 but is known to the others as 127.0.0.2
// or 127.0.0.3, where nothing listens: every direct dial is refused at once.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <string>
#include <thread>

#include "relay/dial.hpp"
#include "relay_fixture.hpp"

using namespace strata;
using namespace strata::test;
using relay::Kind;

namespace {

const std::string kKey = "fedcba9876543210fedcba9876543210";

relay::Options hub_options() {
    relay::Options o;
    o.job_key = kKey;
    o.is_hub = true;
    return o;
}

// A site's relay told of `hub`, known to others by `advertise` alone.
relay::Options site_options(const RunningRelay& hub, std::uint32_t advertise) {
    relay::Options o;
    o.job_key = kKey;
    o.hub = hub.endpoint();
    o.advertise = advertise;
    return o;
}

}  // namespace

TEST_CASE("relay hub: relays that cannot dial each other link through it, and streams flow both ways",
          "[relay][hub]") {
    RunningRelay hub(hub_options());
    RunningRelay a(site_options(hub, 0x7f000002));
    RunningRelay b(site_options(hub, 0x7f000003));
    hub.log.wait_for("relay " + relay::endpoint_text(a.endpoint()) + " attached");
    hub.log.wait_for("relay " + relay::endpoint_text(b.endpoint()) + " attached");

    // Rank 0 at A to rank 1 at B: A's dial of 127.0.0.3 is refused, so the
    // link goes through the hub; the stream waits for it and then flows.
    const int d1 = attach(b.port(), kKey, 1);
    const Pair p = pair_open(a, b, kKey, 0, 1, d1);
    constexpr std::size_t kBytes = 2 * 1024 * 1024;
    bool here_ok = false;
    std::thread here([&] { here_ok = exchange(p.here, 3, 4, kBytes); });
    CHECK(exchange(p.there, 4, 3, kBytes));
    here.join();
    CHECK(here_ok);
    const std::string b_at = relay::endpoint_text(b.endpoint());
    CHECK(a.log.has("cannot reach relay " + b_at + " directly"));
    CHECK(a.log.has("linked to relay " + b_at + " through mpirun's hub"));
    CHECK(hub.log.has("cannot reach relay " + b_at + " directly: their link goes through mpirun"));
    // B knows the link's other end by A's endpoint (its Open names it): a
    // stream from B's rank to A's uses the same link, with no dial at all.
    const int d0 = attach(a.port(), kKey, 0);
    const Pair q = pair_open(b, a, kKey, 1, 0, d0);
    std::thread back([&] { here_ok = exchange(q.here, 5, 6, 4096); });
    CHECK(exchange(q.there, 6, 5, 4096));
    back.join();
    CHECK(here_ok);
    CHECK(a.stats().links_opened == 1);
    CHECK(b.stats().links_opened == 1);
    CHECK(hub.stats().streams_opened == 1);
    CHECK_FALSE(b.log.has("cannot reach relay"));
    CHECK(b.log.has("accepted a link from relay " + relay::endpoint_text(a.endpoint()) + " (connected from "));
    for (const int fd : {p.here, p.there, q.here, q.there, d0, d1}) ::close(fd);
}

TEST_CASE("relay hub: a link lost with streams on it (the hub gone, no bye) is reported by both relays, "
          "before their ranks' streams close", "[relay][hub]") {
    auto hub = std::make_unique<RunningRelay>(hub_options());
    RunningRelay a(site_options(*hub, 0x7f000002));
    RunningRelay b(site_options(*hub, 0x7f000003));
    const int d1 = attach(b.port(), kKey, 1);
    const Pair p = pair_open(a, b, kKey, 0, 1, d1);
    const std::uint8_t one = 1;
    REQUIRE(write_all(p.here, &one, 1));
    std::uint8_t got = 0;
    REQUIRE(read_all(p.there, &got, 1));
    hub->kill();
    CHECK(read_end(p.here) <= 0);
    CHECK(read_end(p.there) <= 0);
    for (const RunningRelay* r : {&a, &b}) {
        const std::string other = relay::endpoint_text((r == &a ? b : a).endpoint());
        const std::string report = r->reports.wait_for("lost its link to relay " + other + ": ");
        CHECK(report.find("(1 streams reset)") != std::string::npos);
    }
    for (const int fd : {p.here, p.there, d1}) ::close(fd);
}

TEST_CASE("relay hub: it joins relays only, a site's relay is no hub, and a link to a relay it lacks fails",
          "[relay][hub]") {
    RunningRelay hub(hub_options());
    // A rank's kinds at the hub, and the hub's kinds at a site's relay.
    const Handshake rank = handshake(hub.port(), kKey, open_of(Kind::attach, 3, 0));
    CHECK(rank.answer == 0);
    CHECK(hub.log.wait_for("refused").find("this is mpirun's hub: it joins relays, nothing else") != std::string::npos);
    RunningRelay plain(kKey);
    relay::Open hub_attach = open_of(Kind::hub_attach, 0, 0);
    hub_attach.relay = plain.endpoint();
    const Handshake stray = handshake(plain.port(), kKey, hub_attach);
    CHECK(stray.answer == 0);
    CHECK(plain.log.wait_for("refused").find("not mpirun's hub") != std::string::npos);
    // A relay told of a hub that is not there does not start.
    relay::Options lost = site_options(hub, 0x7f000002);
    lost.hub = relay::Endpoint{kLoopback, 1};
    CHECK_THROWS_WITH(RunningRelay(lost), Catch::Contains("cannot attach to mpirun's hub"));
    // Relay A links to a relay the hub does not know: the hub refuses, and
    // the stream is reset naming both failures.
    RunningRelay a(site_options(hub, 0x7f000002));
    relay::Open o = open_of(Kind::pair, 0, 1);
    o.relay = relay::Endpoint{0x7f000003, 9};
    const Handshake h = handshake(a.port(), kKey, o);
    REQUIRE(h.answer == 1);
    CHECK(read_end(h.fd) <= 0);
    const std::string line = a.log.wait_for("cannot link to relay 127.0.0.3:9");
    CHECK(line.find("through mpirun's hub") != std::string::npos);
    CHECK(line.find("1 streams reset") != std::string::npos);
    CHECK(hub.log.has("relay 127.0.0.3:9 is not attached to mpirun's hub"));
    for (const int fd : {h.fd, rank.fd, stray.fd}) ::close(fd);
}
