// The wide-area emulation's arithmetic (devices/tcp/emulator.hpp): when a
// packet handed to a stream arrives, with and without a window. The shared
// link is a plain variable here, as SharedLinks::reserve keeps it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>

#include "devices/tcp/emulator.hpp"

using namespace strata::dev::tcp;

namespace {

struct FakeLink {
    std::uint64_t free = 0;
    std::uint64_t operator()(std::uint64_t start, std::uint64_t ns) {
        free = (start > free ? start : free) + ns;
        return free;
    }
};

// 10 ms one way, 1000 Mbit/s (8 ns per byte), 64 KiB window: RTT / window = 20 ms / 65536 B.
Pace pace(bool window) {
    Pace p;
    p.latency_ns = 10e6;
    p.ns_per_byte = 8;
    p.window_ns_per_byte = window ? 2 * p.latency_ns / 65536 : 0;
    return p;
}

}  // namespace

TEST_CASE("emulation: without a window a packet is the link's bytes plus the latency") {
    FakeLink link;
    std::uint64_t stream = 0;
    const Pace p = pace(false);
    CHECK(pace_due(p, 1000, 1000, stream, link) == 1000 + 8000 + 10'000'000);
    // The next one waits for the link, not for any stream.
    CHECK(pace_due(p, 1000, 1000, stream, link) == 1000 + 16000 + 10'000'000);
    CHECK(stream == 0);
}

TEST_CASE("emulation: one stream moves a window per round trip") {
    FakeLink link;
    std::uint64_t stream = 0;
    const Pace p = pace(true);
    // A window's worth takes one round trip on the stream, far longer than
    // its 0.5 ms on the link: it has left after 20 ms, arrives 10 ms later.
    CHECK(pace_due(p, 0, 65536, stream, link) == 20'000'000 + 10'000'000);
    CHECK(stream == 20'000'000);
    // 16 windows back to back: 16 round trips, whatever the packets' sizes.
    std::uint64_t due = 0;
    for (int i = 0; i < 64; ++i) due = pace_due(p, 0, 65536 / 4, stream, link);
    CHECK(stream == 17 * 20'000'000ull);
    CHECK(due == 17 * 20'000'000ull + 10'000'000);
    // A packet handed over after the stream went idle starts at once.
    CHECK(pace_due(p, 1'000'000'000, 1024, stream, link) == 1'000'000'000 + 312'500 + 10'000'000);
}

TEST_CASE("emulation: streams share the link, each paced by its own window") {
    const Pace p = pace(true);
    // 8 streams of 1 MiB each: each alone needs 16 round trips (320 ms); the
    // link needs 8 MiB x 8 ns = 67 ms: the window bounds them, in parallel.
    {
        FakeLink link;
        std::uint64_t streams[8] = {};
        std::uint64_t last = 0;
        for (int s = 0; s < 8; ++s) last = std::max(last, pace_due(p, 0, 1 << 20, streams[s], link));
        CHECK(last == 320'000'000ull + 10'000'000);
    }
    // With a 100 Mbit/s link (80 ns per byte) the link is the bound: 8 MiB
    // take 671 ms on it, more than a stream's 320 ms.
    {
        Pace slow = p;
        slow.ns_per_byte = 80;
        FakeLink link;
        std::uint64_t streams[8] = {};
        std::uint64_t last = 0;
        for (int s = 0; s < 8; ++s) last = std::max(last, pace_due(slow, 0, 1 << 20, streams[s], link));
        CHECK(last == 8ull * (1 << 20) * 80 + 10'000'000);
    }
}

TEST_CASE("emulation: a site's uplink is shared by its links to every other site") {
    // Two links out of one site, to two other sites, 1000 Mbit/s each (8 ns
    // per byte), no latency; the site's uplink 100 Mbit/s (80 ns per byte).
    Pace p;
    p.ns_per_byte = 8;
    FakeLink to_b, to_c, uplink;
    std::uint64_t sb = 0, sc = 0;
    // Without the uplink term each link moves its megabyte on its own.
    CHECK(pace_due(p, 0, 1 << 20, sb, to_b) == 8ull << 20);
    CHECK(pace_due(p, 0, 1 << 20, sc, to_c) == 8ull << 20);
    // With it, both megabytes cross the uplink one after the other.
    p.uplink_ns_per_byte = 80;
    to_b = to_c = FakeLink{};
    CHECK(pace_due(p, 0, 1 << 20, sb, to_b, uplink) == 80ull << 20);
    CHECK(pace_due(p, 0, 1 << 20, sc, to_c, uplink) == 160ull << 20);
    // Without an uplink figure the uplink is never reserved.
    p.uplink_ns_per_byte = 0;
    FakeLink untouched;
    CHECK(pace_due(p, 0, 1000, sb, to_b, untouched) == to_b.free);
    CHECK(untouched.free == 0);
}
