// Parallel streams in the TCP device (devices/tcp/stripes.hpp): two methods
// in one process on loopback, driven by hand. The stripe unit is the
// default (STRATA_TCP_STRIPE_UNIT, 64 KiB); the sender sets its streams per
// peer with streams_set(), as the MPIX_PARALLEL_STREAMS attribute does.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

#include "conformance.hpp"
#include "devices/tcp/stripes.hpp"
#include "devices/tcp/tcp_method.hpp"

using namespace strata;
using namespace strata::dev::tcp;
using namespace strata::dev::testing;

namespace {

constexpr std::size_t kUnit = 65536;

// Sizes around the stripe unit: not striped (up to one unit), one unit and a
// byte, whole multiples, remainders, many stripes.
const std::vector<std::size_t> kSizes = {0,           8,           kUnit - 1,     kUnit,     kUnit + 1,    2 * kUnit,
                                         3 * kUnit + 5, 200000,    7 * kUnit,     1 << 20,   (1 << 20) + 7, 12,
                                         5 * kUnit - 1, 3000000};

// Two TCP methods on loopback, connected, so tests see only what they send.
struct Link : WorldOf<TcpMethod> {
    Link() : WorldOf<TcpMethod>(2) { link_open(*this, 0, 1); }
    void send(int from, const std::vector<std::byte>& data, std::uint64_t token, int tag) {
        World::send(from, 1 - from, header(adi::Packet::eager, tag, data.size()), data, token);
    }
};

// The connections were really opened and used: n each way, counted at both
// ends, for kSizes sent from rank 0.
void check_streams_used(Link& link, int n) {
    CHECK(link.at(0).streams_out(1) == n);
    CHECK(link.at(1).streams_in(0) == n);
    std::uint64_t stripes = 0;
    for (std::size_t size : kSizes) stripes += size > kUnit ? stripe_count(size, kUnit) : 0;
    CHECK(link.at(0).counters().stripes_sent == stripes);
    CHECK(link.at(1).counters().stripes_received == stripes);
    // Nothing went back the other way.
    CHECK(link.at(1).streams_out(0) == 1);
    CHECK(link.at(0).report().find("to rank 1: " + std::to_string(n) + " connections") != std::string::npos);
}

// Every size of kSizes from rank 0 to rank 1 over n streams.
void striped_over(int n) {
    Link link;
    // One site, no STRATA_TCP_STREAMS: one stream until told otherwise.
    CHECK(link.at(0).streams(1) == 1);
    REQUIRE(link.at(0).streams_set(1, n));
    CHECK(link.at(0).streams(1) == n);
    std::vector<std::vector<std::byte>> sent;
    for (std::size_t i = 0; i < kSizes.size(); ++i)
        sent.push_back(pattern(kSizes[i], static_cast<unsigned>(i + 10 * n)));
    for (std::size_t i = 0; i < sent.size(); ++i) link.send(0, sent[i], 100 + i, static_cast<int>(i));
    link.pump_until([&] { return link.in(1).landed == sent.size(); });
    check_in_order(link.in(1), sent);
    // Every send completed exactly once, at once or through on_sent.
    link.pump_until([&] { return !link.at(0).has_queued_sends(); });
    for (int i = 0; i < 1000; ++i) link.at(0).poll(link.in(0));
    check_completed(link.in(0));
    check_streams_used(link, n);
}

}  // namespace

TEST_CASE("streams: a stripe record's wire form is its fields little-endian, in order") {
    StripeRecord r{};
    r.type = kRecordPlan;
    r.streams = 3;
    r.reserved = 0x0102;
    r.unit = 0x03040506;
    r.seq = 0x1122334455667788ull;
    r.offset = 0x0102030405060708ull;
    r.length = 0xa1a2a3a4a5a6a7a8ull;
    r.total = 0xb1b2b3b4b5b6b7b8ull;
    const std::array<std::uint8_t, 40> expected = {
        0xf0, 0x03, 0x02, 0x01,                          // type, streams, reserved
        0x06, 0x05, 0x04, 0x03,                          // unit
        0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,  // seq
        0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,  // offset
        0xa8, 0xa7, 0xa6, 0xa5, 0xa4, 0xa3, 0xa2, 0xa1,  // length
        0xb8, 0xb7, 0xb6, 0xb5, 0xb4, 0xb3, 0xb2, 0xb1,  // total
    };
    StripeRecord w = r;
    to_wire(w);
    std::array<std::uint8_t, 40> bytes{};
    std::memcpy(bytes.data(), &w, sizeof w);
    CHECK(bytes == expected);
    StripeRecord got{};
    std::memcpy(&got, expected.data(), sizeof got);
    from_wire(got);
    CHECK(got.type == r.type);
    CHECK(got.streams == r.streams);
    CHECK(got.reserved == r.reserved);
    CHECK(got.unit == r.unit);
    CHECK(got.seq == r.seq);
    CHECK(got.offset == r.offset);
    CHECK(got.length == r.length);
    CHECK(got.total == r.total);
}

TEST_CASE("streams: the stripe layout") {
    StripeRecord plan{};
    plan.unit = 1000;
    plan.total = 2500;
    CHECK(stripe_count(plan.total, plan.unit) == 3);
    CHECK(stripe_count(3000, 1000) == 3);
    CHECK(stripe_count(0, 1000) == 0);
    CHECK(stripe_offset(plan, 2) == 2000);
    CHECK(stripe_length(plan, 0) == 1000);
    CHECK(stripe_length(plan, 2) == 500);
    // A gather list cut at any range gives those bytes, in order.
    std::vector<std::byte> a = pattern(10, 1), b = pattern(0, 2), c = pattern(7, 3);
    const iovec list[3] = {{a.data(), a.size()}, {b.data(), 0}, {c.data(), c.size()}};
    std::vector<std::byte> whole(a);
    whole.insert(whole.end(), c.begin(), c.end());
    for (std::size_t from = 0; from <= whole.size(); ++from) {
        for (std::size_t len = 0; from + len <= whole.size(); ++len) {
            std::vector<iovec> out;
            iov_slice(list, from, len, out);
            std::vector<std::byte> got;
            for (const iovec& v : out) {
                CHECK(v.iov_len > 0);
                got.insert(got.end(), static_cast<std::byte*>(v.iov_base), static_cast<std::byte*>(v.iov_base) + v.iov_len);
            }
            CHECK(got == std::vector<std::byte>(whole.begin() + static_cast<std::ptrdiff_t>(from),
                                                whole.begin() + static_cast<std::ptrdiff_t>(from + len)));
        }
    }
}

TEST_CASE("streams: striped payloads arrive whole and in order, over the streams asked for") {
    for (const int n : {2, 4, 8}) {
        INFO(n << " streams");
        striped_over(n);
    }
}

TEST_CASE("streams: chunked landings fill in order whatever stream the bytes come on") {
    Link link;
    REQUIRE(link.at(0).streams_set(1, 3));
    // A landing size that divides neither the unit nor the messages.
    link.in(1).limits.window = 10007;
    std::vector<std::vector<std::byte>> sent;
    for (std::size_t i = 0; i < kSizes.size(); ++i) sent.push_back(pattern(kSizes[i], static_cast<unsigned>(i)));
    for (std::size_t i = 0; i < sent.size(); ++i) link.send(0, sent[i], 0, static_cast<int>(i));
    link.pump_until([&] { return link.in(1).landed == sent.size(); });
    check_in_order(link.in(1), sent);
    const std::size_t full_calls = std::accumulate(link.in(1).msgs.begin(), link.in(1).msgs.end(), std::size_t{0},
                                                   [](std::size_t n, const Msg& m) { return n + m.windows - 1; });
    CHECK(full_calls > 300);
}

TEST_CASE("streams: what a landing cannot take is dropped, and the next message is intact") {
    Link link;
    REQUIRE(link.at(0).streams_set(1, 4));
    link.in(1).limits = Limits{100000, 30000};
    const auto big = pattern(1000000, 5);
    const auto small = pattern(50, 6);
    const auto next = pattern(300000, 7);
    link.send(0, big, 0, 1);
    link.send(0, small, 0, 2);
    link.send(0, next, 0, 3);
    link.pump_until([&] { return link.in(1).landed == 3; });
    CHECK(link.in(1).msgs[0].data == prefix(big, 100000));
    CHECK(link.in(1).msgs[1].data == small);
    CHECK(link.in(1).msgs[2].data == prefix(next, 100000));
}

TEST_CASE("streams: the count changes between messages in flight, and the order holds") {
    Link link;
    std::vector<std::vector<std::byte>> sent;
    const int counts[] = {4, 1, 2, 8, 3, 1, 16, 5};
    for (std::size_t i = 0; i < 40; ++i) {
        if (i % 5 == 0) REQUIRE(link.at(0).streams_set(1, counts[i / 5]));
        // Large ones striped, small ones on stream 0 between them.
        sent.push_back(pattern(i % 2 == 0 ? 150000 + i * 4099 : i * 3, static_cast<unsigned>(i)));
        link.send(0, sent.back(), 0, static_cast<int>(i));
    }
    CHECK_FALSE(link.at(0).streams_set(1, 0));
    CHECK_FALSE(link.at(0).streams_set(1, 17));
    CHECK(link.at(0).streams(1) == 5);
    link.pump_until([&] { return link.in(1).landed == sent.size(); });
    check_in_order(link.in(1), sent);
    CHECK(link.at(0).streams_out(1) == 16);
}

TEST_CASE("streams: both directions striped at once") {
    Link link;
    REQUIRE(link.at(0).streams_set(1, 3));
    REQUIRE(link.at(1).streams_set(0, 2));
    std::vector<std::vector<std::byte>> out[2];
    for (int from = 0; from < 2; ++from) {
        for (unsigned i = 0; i < 30; ++i)
            out[from].push_back(pattern(i % 3 == 0 ? 70000 + i * 1000 : i % 3 == 1 ? 1 << 19 : i, i + 50u * from));
        for (std::size_t i = 0; i < out[from].size(); ++i) link.send(from, out[from][i], 0, static_cast<int>(i));
    }
    link.pump_until([&] { return link.in(1).landed == 30 && link.in(0).landed == 30; });
    check_in_order(link.in(1), out[0]);
    check_in_order(link.in(0), out[1]);
    // Each side opened its own streams: extra connections go one way.
    CHECK(link.at(0).streams_out(1) == 3);
    CHECK(link.at(1).streams_out(0) == 2);
    CHECK(link.at(0).streams_in(1) == 2);
    CHECK(link.at(1).streams_in(0) == 3);
}

TEST_CASE("streams: one stream is the plain path") {
    Link link;
    const auto big = pattern(1 << 20, 9);
    link.send(0, big, 0, 1);
    link.pump_until([&] { return link.in(1).landed == 1; });
    CHECK(link.in(1).msgs[0].data == big);
    CHECK(link.at(0).counters().stripes_sent == 0);
    CHECK(link.at(0).streams_out(1) == 1);
    CHECK(link.at(0).report().empty());
}
