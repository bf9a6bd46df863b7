// The ofi device: two methods in one process, each on its own libfabric
// endpoint, exchanging business cards and driven by hand. Every test runs on
// the providers that give RDM tagged endpoints on one machine: shm, and ofi_rxm
// over tcp.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <vector>

#include "devices/ofi/ofi_method.hpp"

using namespace strata;
using namespace strata::dev::ofi;

namespace {

// Collects what one method delivers. Landings are `chunk` bytes (0: the whole
// payload at once); with `truncate_after` set, a full landing is followed by a
// landing of capacity 0 once that many bytes landed (the receive buffer ended).
class Sink final : public adi::Upcalls {
public:
    adi::Landing on_header(int peer, const adi::Header& h) override {
        headers.push_back(h);
        peers.push_back(peer);
        if (!adi::carries_payload(h.type)) return {};
        payloads.emplace_back(h.length);
        at = 0;
        return next(h.length);
    }
    void on_payload(int /*peer*/, const adi::Header& h, const adi::Landing& landing) override {
        // The landing last used: at its end is where this payload stopped.
        if (landing.capacity > 0) CHECK(landing.dest >= payloads.back().data());
        CHECK(h.length == payloads.back().size());
        ++landed;
    }
    adi::Landing on_landing_full(int /*peer*/, const adi::Header& h, const adi::Landing& landing) override {
        ++full_calls;
        at += landing.capacity;
        if (truncate_after > 0 && at >= truncate_after) return {};
        return next(h.length);
    }
    void on_sent(std::uint64_t token) override { sent.push_back(token); }
    void on_peer_failed(int peer, const std::string& why) override { failures.emplace_back(peer, why); }

    adi::Landing next(std::uint64_t length) {
        std::vector<std::byte>& p = payloads.back();
        std::size_t cap = static_cast<std::size_t>(length) - at;
        if (chunk > 0) cap = std::min(cap, chunk);
        if (truncate_after > 0) cap = std::min(cap, truncate_after - at);
        return adi::Landing{p.data() + at, cap, nullptr, 0};
    }

    std::size_t chunk = 0;
    std::size_t truncate_after = 0;
    std::size_t at = 0;
    std::vector<adi::Header> headers;
    std::vector<int> peers;
    std::vector<std::vector<std::byte>> payloads;
    std::size_t landed = 0;
    std::size_t full_calls = 0;
    std::vector<std::uint64_t> sent;
    std::vector<std::pair<int, std::string>> failures;
};

wireup::BusinessCard card_make(const std::string& host, const std::string& vendor) {
    wireup::BusinessCard c;
    c.hostname = host;
    c.host = host;
    c.vendor = vendor;
    return c;
}

struct Pair {
    std::unique_ptr<OfiMethod> m[2];
    Sink sink[2];

    explicit Pair(const std::string& provider) {
        std::vector<wireup::BusinessCard> cards = {card_make("h", "v"), card_make("h", "v")};
        for (int i = 0; i < 2; ++i) {
            m[i] = std::make_unique<OfiMethod>(adi::MethodContext{i, 2, "unit-test-key", "h"}, provider);
            std::string error;
            INFO(error);
            REQUIRE(m[i]->publish(cards[static_cast<std::size_t>(i)], error));
        }
        std::string error;
        for (int i = 0; i < 2; ++i) REQUIRE(m[i]->connect_world(adi::World{cards, {}, i}, error));
        REQUIRE(m[0]->reaches(1));
        REQUIRE(m[1]->reaches(0));
    }

    void send(int from, adi::Packet type, const std::vector<std::byte>& data, std::uint64_t token, int tag = 0) {
        adi::Header h{};
        h.type = type;
        h.tag = tag;
        h.length = data.size();
        iovec iov{const_cast<std::byte*>(data.data()), data.size()};
        auto st = m[from]->send(1 - from, h, std::span<const iovec>(&iov, data.empty() ? 0 : 1), token);
        REQUIRE(st != adi::SendStatus::failed);
        if (st == adi::SendStatus::done && token != 0) sink[from].sent.push_back(token);
    }

    template <class Done>
    void pump_until(Done&& done) {
        for (long i = 0; i < 20'000'000 && !done(); ++i) {
            m[0]->poll(sink[0]);
            m[1]->poll(sink[1]);
        }
        INFO(m[0]->provider() << ": headers " << sink[0].headers.size() << "/" << sink[1].headers.size() << " landed " << sink[0].landed << "/"
                        << sink[1].landed << " sent " << sink[0].sent.size() << "/" << sink[1].sent.size()
                        << " queued " << m[0]->has_queued_sends() << m[1]->has_queued_sends() << " failures "
                        << sink[0].failures.size() << sink[1].failures.size()
                        << (sink[0].failures.empty() ? "" : sink[0].failures[0].second)
                        << (sink[1].failures.empty() ? "" : sink[1].failures[0].second));
        REQUIRE(done());
        REQUIRE(sink[0].failures.empty());
        REQUIRE(sink[1].failures.empty());
    }

    void drain() {
        pump_until([&] { return !m[0]->has_queued_sends() && !m[1]->has_queued_sends(); });
    }
};

std::vector<std::byte> pattern(std::size_t n, unsigned seed) {
    std::vector<std::byte> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::byte>((i * 131 + seed) % 251);
    return v;
}

}  // namespace

TEST_CASE("ofi: a small packet arrives whole") {
    const std::string provider = GENERATE(as<std::string>{}, "shm", "tcp;ofi_rxm");
    Pair pair(provider);
    CHECK(pair.m[0]->provider() == provider);
    const auto data = pattern(100, 1);
    pair.send(0, adi::Packet::eager, data, 7, 42);
    pair.pump_until([&] { return pair.sink[1].landed == 1; });
    REQUIRE(pair.sink[1].headers.size() == 1);
    CHECK(pair.sink[1].headers[0].tag == 42);
    CHECK(pair.sink[1].peers[0] == 0);
    CHECK(pair.sink[1].payloads[0] == data);
    pair.drain();
    CHECK(pair.sink[0].sent == std::vector<std::uint64_t>{7});
}

TEST_CASE("ofi: a rendezvous-sized payload lands in its buffer") {
    const std::string provider = GENERATE(as<std::string>{}, "shm", "tcp;ofi_rxm");
    Pair pair(provider);
    const auto data = pattern(3 << 20, 2);
    pair.send(0, adi::Packet::rndv_data, data, 9);
    pair.pump_until([&] { return pair.sink[1].landed == 1; });
    CHECK(pair.sink[1].payloads[0] == data);
    CHECK(pair.sink[1].full_calls == 0);
    pair.drain();
    CHECK(pair.sink[0].sent == std::vector<std::uint64_t>{9});
}

TEST_CASE("ofi: payloads larger than their landing move on through on_landing_full") {
    const std::string provider = GENERATE(as<std::string>{}, "shm", "tcp;ofi_rxm");
    Pair pair(provider);
    SECTION("a chunked landing gets every byte") {
        pair.sink[1].chunk = 1000;
        const auto big = pattern(200000, 3);
        const auto small = pattern(5000, 4);
        pair.send(0, adi::Packet::rndv_data, big, 1);
        pair.send(0, adi::Packet::eager, small, 2);
        pair.pump_until([&] { return pair.sink[1].landed == 2; });
        CHECK(pair.sink[1].payloads[0] == big);
        CHECK(pair.sink[1].payloads[1] == small);
        CHECK(pair.sink[1].full_calls == 199 + 4);
    }
    SECTION("a receive buffer smaller than the payload truncates it") {
        pair.sink[1].chunk = 1000;
        pair.sink[1].truncate_after = 2500;
        const auto big = pattern(100000, 5);
        const auto small = pattern(8000, 6);
        pair.send(0, adi::Packet::rndv_data, big, 1);
        pair.send(0, adi::Packet::eager, small, 2);
        pair.pump_until([&] { return pair.sink[1].landed == 2; });
        CHECK(std::equal(big.begin(), big.begin() + 2500, pair.sink[1].payloads[0].begin()));
        CHECK(std::all_of(pair.sink[1].payloads[0].begin() + 2500, pair.sink[1].payloads[0].end(),
                          [](std::byte b) { return b == std::byte{0}; }));
        CHECK(std::equal(small.begin(), small.begin() + 2500, pair.sink[1].payloads[1].begin()));
    }
    pair.drain();
    CHECK(pair.sink[1].failures.empty());
}

TEST_CASE("ofi: many mixed packets arrive in send order, both ways") {
    const std::string provider = GENERATE(as<std::string>{}, "shm", "tcp;ofi_rxm");
    Pair pair(provider);
    // Around the inject size, the bounce size (16 KiB + 40) and far beyond,
    // with header-only packets between, so small packets chase large payloads.
    const std::vector<std::size_t> sizes = {0,     1,      40,          4056,  4096,    16384, 16385,
                                            16344, 100000, (1 << 20) + 7, 8,     65536,  3,     16424};
    std::vector<std::vector<std::byte>> out[2];
    std::vector<adi::Packet> types[2];
    for (int from = 0; from < 2; ++from) {
        for (unsigned i = 0; i < 120; ++i) {
            const bool control = i % 5 == 4;
            types[from].push_back(control ? adi::Packet::rts
                                          : (sizes[i % sizes.size()] > 16384 ? adi::Packet::rndv_data : adi::Packet::eager));
            out[from].push_back(control ? std::vector<std::byte>{} : pattern(sizes[i % sizes.size()], i * 2 + unsigned(from)));
        }
        for (std::size_t i = 0; i < out[from].size(); ++i) {
            pair.send(from, types[from][i], out[from][i], 1000 + i, static_cast<int>(i));
        }
    }
    pair.pump_until([&] { return pair.sink[0].headers.size() == 120 && pair.sink[1].headers.size() == 120; });
    pair.pump_until([&] { return pair.sink[0].landed == 96 && pair.sink[1].landed == 96; });
    for (int to = 0; to < 2; ++to) {
        const int from = 1 - to;
        std::size_t k = 0;
        for (std::size_t i = 0; i < 120; ++i) {
            CHECK(pair.sink[to].headers[i].tag == static_cast<int>(i));
            CHECK(pair.sink[to].headers[i].type == types[from][i]);
            if (types[from][i] != adi::Packet::rts) CHECK(pair.sink[to].payloads[k++] == out[from][i]);
        }
    }
    pair.drain();
    for (int from = 0; from < 2; ++from) {
        auto tokens = pair.sink[from].sent;
        std::sort(tokens.begin(), tokens.end());
        CHECK(std::adjacent_find(tokens.begin(), tokens.end()) == tokens.end());
        CHECK(tokens.size() == 120);  // rts packets above carry tokens too
    }
}

TEST_CASE("ofi: peers are reached only with the same provider and vendor domain") {
    std::vector<wireup::BusinessCard> cards = {card_make("h", "v"), card_make("h", "v"), card_make("h", "other"),
                                               card_make("h2", "v"), card_make("h", "v")};
    std::vector<std::unique_ptr<OfiMethod>> m;
    const char* providers[] = {"shm", "shm", "shm", "shm", "tcp;ofi_rxm"};
    for (int i = 0; i < 5; ++i) {
        m.push_back(std::make_unique<OfiMethod>(adi::MethodContext{i, 5, "k", "h"}, providers[i]));
        std::string error;
        REQUIRE(m.back()->publish(cards[static_cast<std::size_t>(i)], error));
    }
    std::string error;
    for (int i = 0; i < 5; ++i)
        REQUIRE(m[static_cast<std::size_t>(i)]->connect_world(adi::World{cards, {}, i}, error));
    CHECK(m[0]->reaches(1));
    CHECK_FALSE(m[0]->reaches(0));  // itself: the self method's
    CHECK_FALSE(m[0]->reaches(2));  // another vendor domain
    CHECK_FALSE(m[0]->reaches(3));  // shm: another host
    CHECK_FALSE(m[0]->reaches(4));  // another provider
    CHECK_FALSE(m[4]->reaches(0));
    CHECK_FALSE(m[2]->reaches(0));
}

TEST_CASE("ofi: no provider means no address and no peer; a bad one is named") {
    wireup::BusinessCard card = card_make("h", "v");
    OfiMethod off(adi::MethodContext{0, 2, "k", "h"}, "");
    std::string error;
    REQUIRE(off.publish(card, error));
    CHECK(card.address_of("ofi").empty());
    std::string off_error;
    REQUIRE(off.connect_world(adi::World{{card, card}, {}, 0}, off_error));
    CHECK_FALSE(off.reaches(1));

    OfiMethod bad(adi::MethodContext{0, 2, "k", "h"}, "no_such_provider");
    CHECK_FALSE(bad.publish(card, error));
    CHECK(error.find("no_such_provider") != std::string::npos);
    CHECK(error.find("fi_info") != std::string::npos);
}
