// The TCP device on loopback: two methods in one process, driven by hand.
// What every method does is in test_conformance.cpp; here, how many system
// calls a message costs (through the device's counters), since timing may not
// decide a test.
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "conformance.hpp"
#include "devices/tcp/tcp_method.hpp"

using namespace strata;
using namespace strata::dev::testing;
using strata::dev::tcp::TcpMethod;

TEST_CASE("tcp: a small message costs one write and one read") {
    WorldOf<TcpMethod> w(2);
    // Connected first, so only the steady state counts.
    link_open(w, 0, 1);
    for (unsigned round = 0; round < 20; ++round) {
        const auto before_tx = w.at(0).counters();
        const auto before_rx = w.at(1).counters();
        const std::size_t landed = w.in(1).landed;
        const auto data = pattern(8, round);
        w.send(0, 1, header(adi::Packet::eager, static_cast<int>(round), data.size()), data, 0);
        // Only the receiver polls: until the bytes are there epoll reports
        // nothing and nothing is read.
        for (long i = 0; i < 10'000'000 && w.in(1).landed == landed; ++i) w.at(1).poll(w.in(1));
        REQUIRE(w.in(1).landed == landed + 1);
        CHECK(w.in(1).msgs.back().data == data);
        CHECK(w.at(0).counters().writes - before_tx.writes == 1);
        // A read that returns less than it asked for emptied the socket: asking
        // again would only return EAGAIN and add a system call to every message.
        CHECK(w.at(1).counters().reads - before_rx.reads == 1);
    }
}

TEST_CASE("tcp: a card whose address is not ADDRESS:PORT fails the connection, naming the rank") {
    std::vector<wireup::BusinessCard> cards = cards_local(2);
    std::vector<std::unique_ptr<TcpMethod>> m;
    for (int r = 0; r < 2; ++r) {
        m.push_back(std::make_unique<TcpMethod>(adi::MethodContext{r, 2, "unit-test-key", "localhost"}));
        REQUIRE(m.back()->publish(cards[static_cast<std::size_t>(r)]).ok());
    }
    for (auto& [method, address] : cards[1].entries) {
        if (method == "tcp") address = "127.0.0.1:4x";
    }
    const base::Status connected = m[0]->connect_world(adi::World{cards, {}, 0});
    CHECK(connected.error() ==
          "rank 1 publishes the TCP address '127.0.0.1:4x': the port '4x' is not a number from 1 to 65535");
    for (auto& method : m) method->shutdown();
}
