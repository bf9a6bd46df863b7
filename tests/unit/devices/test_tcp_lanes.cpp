// Premium lanes in the TCP device (devices/tcp/stripes.hpp): two methods in
// one process on loopback, driven by hand, with reservations made as the
// MPIX_QOS attribute makes them (Method::qos_reserve; no emulation here, so
// every reservation is admitted and only the lanes change).
#include <catch2/catch.hpp>

#include <netinet/in.h>
#include <netinet/ip.h>

#include <cstdint>
#include <deque>
#include <map>
#include <vector>

#include "conformance.hpp"
#include "devices/tcp/stripes.hpp"
#include "devices/tcp/tcp_method.hpp"

using namespace strata;
using namespace strata::dev::tcp;
using namespace strata::dev::testing;

namespace {

constexpr int kPremium = 77;  // header()'s context
constexpr int kBulk = 12;

struct Link : WorldOf<TcpMethod> {
    Link() : WorldOf<TcpMethod>(2) { link_open(*this, 0, 1); }
    // A message of `context` from rank 0; its tag numbers it within the context.
    void send(int context, const std::vector<std::byte>& data, int tag) {
        adi::Header h = header(adi::Packet::eager, tag, data.size());
        h.context = context;
        World::send(0, 1, h, data, static_cast<std::uint64_t>(1000 + sent_count++));
    }
    int sent_count = 0;
};

// What arrived at rank 1, by context, in arrival order: (tag, bytes).
std::map<int, std::vector<std::pair<int, std::vector<std::byte>>>> arrived(const Recorder& r) {
    std::map<int, std::vector<std::pair<int, std::vector<std::byte>>>> out;
    for (const Msg& m : r.msgs) out[m.header.context].emplace_back(m.header.tag, m.data);
    return out;
}

std::uint64_t reserve(TcpMethod& m, int context) {
    const int peers[] = {1};
    const int contexts[] = {context};
    const base::Result<std::uint64_t> h = m.qos_reserve(peers, contexts, 1000000);
    REQUIRE(h.ok());
    REQUIRE(*h != 0);
    return *h;
}

}  // namespace

TEST_CASE("lanes: a context moves to the premium lane and back, and each context's order holds") {
    Link link;
    TcpMethod& sender = link.at(0);
    // Stripes on the bulk lane too, so fences follow striped packets.
    REQUIRE(sender.streams_set(1, 3));
    std::map<int, std::vector<std::vector<std::byte>>> want;
    std::uint64_t held = 0;
    for (int i = 0; i < 60; ++i) {
        // Moves in the middle of traffic: to premium at 10 and 40, back at 25 and 55.
        if (i == 10 || i == 40) held = reserve(sender, kPremium);
        if (i == 25 || i == 55) sender.qos_release(held);
        for (const int context : {kPremium, kBulk}) {
            const std::size_t size = (i % 4 == 0) ? 150000 + 4099u * static_cast<unsigned>(i) : 7u * static_cast<unsigned>(i);
            auto& list = want[context];
            list.push_back(pattern(size, static_cast<unsigned>(i * 2 + (context == kBulk ? 1 : 0))));
            link.send(context, list.back(), static_cast<int>(list.size() - 1));
        }
    }
    link.pump_until([&] { return link.in(1).landed == 120 && !sender.has_queued_sends(); });
    const auto got = arrived(link.in(1));
    for (const int context : {kPremium, kBulk}) {
        INFO("context " << context);
        const auto& list = got.at(context);
        REQUIRE(list.size() == want[context].size());
        for (std::size_t k = 0; k < list.size(); ++k) {
            CHECK(list[k].first == static_cast<int>(k));
            CHECK(diff(list[k].second, want[context][k]).empty());
        }
    }
    for (int i = 0; i < 100; ++i) link.poll_all();
    check_completed(link.in(0));
    // 30 of the premium context's messages took the lane; four moves.
    CHECK(sender.counters().lane_sent == 30);
    CHECK(sender.counters().lane_moves == 4);
    CHECK(sender.report().find("premium lanes: 30 packets sent, 4 lane changes") != std::string::npos);
    // The lane is not a stripe stream.
    CHECK(sender.streams_out(1) == 3);
}

TEST_CASE("lanes: the premium lane is marked DSCP EF, and two reservations of one context move it once") {
    Link link;
    TcpMethod& sender = link.at(0);
    CHECK(sender.lane_tos(1) == -1);
    const std::uint64_t a = reserve(sender, kPremium);
    const std::uint64_t b = reserve(sender, kPremium);
    const auto msg = pattern(5000, 3);
    link.send(kPremium, msg, 0);
    link.pump_until([&] { return link.in(1).landed == 1 && !sender.has_queued_sends(); });
    CHECK(sender.lane_tos(1) == 0xB8);  // DSCP 46 (expedited forwarding) << 2
    sender.qos_release(a);
    link.send(kPremium, msg, 1);  // still premium: b holds it
    sender.qos_release(b);
    sender.qos_release(b);  // a handle released twice is ignored
    link.send(kPremium, msg, 2);
    link.pump_until([&] { return link.in(1).landed == 3 && !sender.has_queued_sends(); });
    CHECK(sender.counters().lane_sent == 2);
    CHECK(sender.counters().lane_moves == 2);
    const auto got = arrived(link.in(1)).at(kPremium);
    REQUIRE(got.size() == 3);
    for (int k = 0; k < 3; ++k) CHECK(got[static_cast<std::size_t>(k)].first == k);
}

TEST_CASE("lanes: both ranks send premium traffic to each other") {
    Link link;
    const int peer_of[] = {1, 0};
    for (int r = 0; r < 2; ++r) {
        const int peers[] = {peer_of[r]};
        const int contexts[] = {kPremium};
        REQUIRE(link.at(r).qos_reserve(peers, contexts, 1000).ok());
    }
    // A queued send's data must stay until it has left (adi/method.hpp).
    std::deque<std::vector<std::byte>> payloads;
    for (int i = 0; i < 20; ++i) {
        for (int from = 0; from < 2; ++from) {
            adi::Header h = header(adi::Packet::eager, i, static_cast<std::size_t>(i) * 10000);
            payloads.push_back(pattern(static_cast<std::size_t>(i) * 10000, static_cast<unsigned>(i)));
            link.World::send(from, 1 - from, h, payloads.back(), 0);
        }
    }
    link.pump_until([&] { return link.in(0).landed == 20 && link.in(1).landed == 20; });
    for (int r = 0; r < 2; ++r) {
        for (int i = 0; i < 20; ++i) CHECK(link.in(r).msgs[static_cast<std::size_t>(i)].header.tag == i);
        CHECK(link.at(r).counters().lane_sent == 20);
    }
}
