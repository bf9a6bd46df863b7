// What the TCP device's unit tests share: two methods in one process on
// loopback, driven by hand, and a sink that records what one of them delivers.
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "devices/tcp/tcp_method.hpp"

namespace strata::dev::tcp::testing {

// Collects what one method delivers, through landings of `chunk` bytes (0:
// one landing for the whole payload) that on_landing_full() hands out one
// after the other, as the engine does for non-contiguous receives; `limit`
// bytes of a payload at most are accepted (truncation), the rest discarded.
class Sink final : public adi::Upcalls {
public:
    std::size_t chunk = 0;
    std::size_t limit = SIZE_MAX;

    adi::Landing on_header(int /*peer*/, const adi::Header& h) override {
        headers.push_back(h);
        if (!adi::carries_payload(h.type)) return {};
        payloads.emplace_back();
        return next(h);
    }
    void on_payload(int /*peer*/, const adi::Header& /*h*/, const adi::Landing& landing) override {
        keep(landing);
        ++landed;
    }
    adi::Landing on_landing_full(int /*peer*/, const adi::Header& h, const adi::Landing& landing) override {
        keep(landing);
        ++chunks;
        return next(h);
    }
    void on_sent(std::uint64_t token) override { sent.push_back(token); }
    void on_peer_failed(int peer, const std::string& why) override { failures.emplace_back(peer, why); }

    std::vector<adi::Header> headers;
    std::vector<std::vector<std::byte>> payloads;
    std::size_t landed = 0;
    std::size_t chunks = 0;
    std::vector<std::uint64_t> sent;
    std::vector<std::pair<int, std::string>> failures;

private:
    adi::Landing next(const adi::Header& h) {
        const std::size_t have = payloads.back().size();
        const std::size_t want = std::min<std::size_t>(h.length, limit);
        const std::size_t size = have >= want ? 0 : chunk == 0 ? want - have : std::min(chunk, want - have);
        buffer.assign(size, std::byte{0xcc});
        return adi::Landing{size == 0 ? nullptr : buffer.data(), size, nullptr, 0};
    }
    // What the landing received: all of it when full, else what on_payload says is there.
    void keep(const adi::Landing& landing) {
        std::vector<std::byte>& p = payloads.back();
        const std::size_t want = std::min<std::size_t>(headers.back().length, limit);
        const std::size_t n = std::min(landing.capacity, want - p.size());
        p.insert(p.end(), buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(n));
    }
    std::vector<std::byte> buffer;
};

// Two TCP methods (ranks 0 and 1 of one site) connected on loopback.
struct Link {
    std::unique_ptr<TcpMethod> m[2];
    Sink sink[2];
    // The opening message: queued until the connection is up, so it must
    // outlive the send (the method sends straight from the caller's buffer).
    std::vector<std::byte> opening = std::vector<std::byte>(8);

    Link() {
        std::vector<wireup::BusinessCard> cards(2);
        for (int i = 0; i < 2; ++i) {
            m[i] = std::make_unique<TcpMethod>(adi::MethodContext{i, 2, "unit-test-key", "localhost"});
            cards[static_cast<std::size_t>(i)].hostname = "localhost";
            std::string error;
            REQUIRE(m[i]->publish(cards[static_cast<std::size_t>(i)], error));
        }
        std::string error;
        for (int i = 0; i < 2; ++i) REQUIRE(m[i]->connect_world(adi::World{cards, {}, i}, error));
        // Open the connection with a first message, so the tests count only
        // the steady state.
        send(0, opening, 0);
        pump_until([&] { return sink[1].landed == 1; });
    }

    void send(int from, const std::vector<std::byte>& data, std::uint64_t token, int tag = 0) {
        adi::Header h{};
        h.type = adi::Packet::eager;
        h.tag = tag;
        h.length = data.size();
        iovec iov{const_cast<std::byte*>(data.data()), data.size()};
        auto st = m[from]->send(1 - from, h, std::span<const iovec>(&iov, data.empty() ? 0 : 1), token);
        REQUIRE(st != adi::SendStatus::failed);
        if (st == adi::SendStatus::done && token != 0) done_at_once.push_back(token);
    }

    template <class Done>
    void pump_until(Done&& done) {
        for (long i = 0; i < 20'000'000 && !done(); ++i) {
            m[0]->poll(sink[0]);
            m[1]->poll(sink[1]);
        }
        REQUIRE(sink[0].failures.empty());
        REQUIRE(sink[1].failures.empty());
        REQUIRE(done());
    }

    std::vector<std::uint64_t> done_at_once;  // tokens whose send completed inside send()
};

// n bytes of a pattern that differs with `seed`.
inline std::vector<std::byte> pattern(std::size_t n, unsigned seed) {
    std::vector<std::byte> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::byte>((i * 131 + seed * 7 + i / 251) % 253);
    return v;
}

}  // namespace strata::dev::tcp::testing
