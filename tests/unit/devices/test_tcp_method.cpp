// The TCP device on loopback: two methods in one process, driven by hand.
// Besides framing, these tests pin down how many system calls a message costs
// (through the device's counters), since timing may not decide a test.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <vector>

#include "devices/tcp/tcp_method.hpp"
#include "tcp_pair.hpp"

using namespace strata;
using namespace strata::dev::tcp;
using namespace strata::dev::tcp::testing;

TEST_CASE("tcp: a small message costs one write and one read") {
    Link link;
    for (unsigned round = 0; round < 20; ++round) {
        const auto before_tx = link.m[0]->counters();
        const auto before_rx = link.m[1]->counters();
        const std::size_t landed = link.sink[1].landed;
        const auto data = pattern(8, round);
        link.send(0, data, 0);
        // Only the receiver polls: until the bytes are there epoll reports
        // nothing and nothing is read.
        for (long i = 0; i < 10'000'000 && link.sink[1].landed == landed; ++i) link.m[1]->poll(link.sink[1]);
        REQUIRE(link.sink[1].landed == landed + 1);
        CHECK(link.sink[1].payloads.back() == data);
        CHECK(link.m[0]->counters().writes - before_tx.writes == 1);
        // A read that returns less than it asked for emptied the socket: asking
        // again would only return EAGAIN and add a system call to every message.
        CHECK(link.m[1]->counters().reads - before_rx.reads == 1);
    }
}

TEST_CASE("tcp: messages of every size arrive whole and in order") {
    Link link;
    // Around the 64 KiB staging buffer, the 40-byte header and beyond the
    // socket buffers, so reads end exactly at, just before and just after a
    // buffer boundary and large payloads go straight into their landing.
    const std::vector<std::size_t> sizes = {0,     1,     8,     24,     40,      65536 - 40, 65536 - 41,
                                            65536, 65537, 65496, 200000, 1 << 20, 3,          (1 << 20) + 7};
    std::vector<std::vector<std::byte>> sent;
    for (std::size_t i = 0; i < sizes.size(); ++i) sent.push_back(pattern(sizes[i], static_cast<unsigned>(i)));
    for (std::size_t i = 0; i < sent.size(); ++i) link.send(0, sent[i], 100 + i, static_cast<int>(i));
    link.pump_until([&] { return link.sink[1].landed == 1 + sent.size(); });
    REQUIRE(link.sink[1].payloads.size() == 1 + sent.size());
    for (std::size_t i = 0; i < sent.size(); ++i) {
        CHECK(link.sink[1].headers[1 + i].tag == static_cast<int>(i));
        CHECK(link.sink[1].payloads[1 + i] == sent[i]);
    }
    // Every queued send reported completion exactly once.
    link.pump_until([&] { return !link.m[0]->has_queued_sends(); });
    auto tokens = link.sink[0].sent;
    std::sort(tokens.begin(), tokens.end());
    CHECK(std::adjacent_find(tokens.begin(), tokens.end()) == tokens.end());
    for (std::uint64_t t : tokens) CHECK((t >= 100 && t < 100 + sent.size()));
}

TEST_CASE("tcp: both directions at once") {
    Link link;
    std::vector<std::vector<std::byte>> out[2];
    for (int from = 0; from < 2; ++from) {
        for (unsigned i = 0; i < 50; ++i) {
            out[from].push_back(pattern(i % 7 == 0 ? 100000 : i * 3, i + static_cast<unsigned>(from)));
        }
        for (std::size_t i = 0; i < out[from].size(); ++i) link.send(from, out[from][i], 0, static_cast<int>(i));
    }
    link.pump_until([&] { return link.sink[1].landed == 51 && link.sink[0].landed == 50; });
    for (std::size_t i = 0; i < 50; ++i) {
        CHECK(link.sink[1].payloads[1 + i] == out[0][i]);
        CHECK(link.sink[0].payloads[i] == out[1][i]);
    }
}

TEST_CASE("tcp: send_now keeps what the socket did not take, and the caller's buffer is free at once") {
    Link link;
    // Send without reading until the socket refuses: the packet the socket
    // took only part of must follow from the method's own copy, since each
    // buffer is overwritten right after send_now accepted it.
    std::vector<std::vector<std::byte>> want;
    std::vector<std::byte> buf;
    bool partial = false;
    for (int i = 0; i < 100000; ++i) {
        buf = pattern(16000 + static_cast<std::size_t>(i % 7) * 13, static_cast<unsigned>(i));
        adi::Header h{};
        h.type = adi::Packet::eager;
        h.tag = i;
        h.length = buf.size();
        if (!link.m[0]->send_now(1, h, buf.data(), buf.size())) break;
        want.push_back(buf);
        std::fill(buf.begin(), buf.end(), std::byte{0xee});
        if (link.m[0]->has_queued_sends()) {
            partial = true;
            // Queued bytes come first: send_now refuses rather than overtake them.
            CHECK_FALSE(link.m[0]->send_now(1, h, buf.data(), 0));
            break;
        }
    }
    INFO("the socket took part of a packet: " << partial);
    REQUIRE(want.size() > 1);
    link.pump_until([&] { return link.sink[1].landed == 1 + want.size() && !link.m[0]->has_queued_sends(); });
    for (std::size_t i = 0; i < want.size(); ++i) {
        INFO("packet " << i);
        CHECK(link.sink[1].headers[1 + i].tag == static_cast<int>(i));
        CHECK(link.sink[1].payloads[1 + i] == want[i]);
    }
    CHECK(link.sink[0].sent.empty());  // nothing of send_now's reports a token
}
