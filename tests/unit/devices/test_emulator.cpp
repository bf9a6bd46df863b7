// The wide-area emulation's arithmetic (devices/tcp/emulator.hpp): when a
// packet handed to a stream arrives, with and without a window. The shared
// link is a plain variable here, as SharedLinks::reserve keeps it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <vector>

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

namespace {

// MPICH-GQ's experiment in the model, in virtual time: nine flows from site A
// to site B over one link of 100 Mbit/s and 10 ms, each keeping 4 messages
// of 256 KiB in flight (the next handed over when the one 4 before it
// arrived), as tools/bench/qos runs it on the emulated grid. Flow 0 is the
// foreground: premium at `reserved` bytes/s (0: best effort, one bulk flow
// more). Returns the foreground's and the bulk flows' rates, bytes/s,
// arriving in [2 s, 32 s) (the bench measures 3 s; a longer span makes whole
// messages a fine measure).
struct Rates {
    double foreground = 0;
    double bulk = 0;
};

Rates gq_experiment(double reserved) {
    constexpr double kBandwidth = 100e6 / 8;
    constexpr std::size_t kMessage = 256 * 1024;
    constexpr int kFlows = 9;
    constexpr int kInFlight = 4;
    constexpr std::uint64_t kFrom = 2'000'000'000, kTo = 32'000'000'000;
    Pace link;
    link.latency_ns = 10e6;
    link.ns_per_byte = 1e9 / kBandwidth;
    const Pace bulk = bulk_pace(link, bulk_left(kBandwidth, reserved), 0);
    const Pace premium = premium_pace(link, reserved);
    FakeLink shared, pipe;
    std::uint64_t streams[kFlows] = {};
    // Per flow, the arrival times of its messages in flight (oldest first).
    std::vector<std::deque<std::uint64_t>> flight(kFlows);
    double in_window[kFlows] = {};
    for (;;) {
        // The flow that can hand over its next message first (ties: lowest).
        int next = -1;
        std::uint64_t at = 0;
        for (int f = 0; f < kFlows; ++f) {
            const std::uint64_t ready = flight[f].size() < kInFlight ? 0 : flight[f].front();
            if (next < 0 || ready < at) {
                next = f;
                at = ready;
            }
        }
        if (at >= kTo) break;
        auto& q = flight[static_cast<std::size_t>(next)];
        if (q.size() == kInFlight) q.pop_front();
        const bool fast = next == 0 && reserved > 0;
        const std::uint64_t due =
            pace_due(fast ? premium : bulk, at, kMessage, streams[next], fast ? pipe : shared);
        q.push_back(due);
        if (due >= kFrom && due < kTo) in_window[next] += kMessage;
    }
    Rates r;
    const double seconds = static_cast<double>(kTo - kFrom) / 1e9;
    r.foreground = in_window[0] / seconds;
    for (int f = 1; f < kFlows; ++f) r.bulk += in_window[f] / seconds;
    return r;
}

}  // namespace

TEST_CASE("emulation: MPICH-GQ's experiment: a premium flow keeps its rate against 8 bulk flows") {
    constexpr double kBandwidth = 100e6 / 8;
    // Best effort: the foreground gets its fair share, a ninth of the link.
    const Rates fair = gq_experiment(0);
    CHECK(fair.foreground == Approx(kBandwidth / 9).epsilon(0.05));
    CHECK(fair.foreground + fair.bulk == Approx(kBandwidth).epsilon(0.02));
    for (const double mbit : {10.0, 20.0, 30.0, 40.0}) {
        INFO(mbit << " Mbit/s reserved");
        const double reserved = mbit * 1e6 / 8;
        const Rates r = gq_experiment(reserved);
        CHECK(r.foreground >= 0.95 * reserved);
        CHECK(r.foreground <= 1.01 * reserved);  // a reservation, not a bigger share
        // The bulk flows share the rest, and the link is never over its bandwidth.
        CHECK(r.bulk == Approx(kBandwidth - reserved).epsilon(0.03));
        CHECK(r.foreground + r.bulk <= 1.01 * kBandwidth);
    }
}
