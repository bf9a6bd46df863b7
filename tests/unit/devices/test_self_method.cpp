// What only the self method does: its queue is a vector whose slots are used
// again, and a packet sent while poll() delivers (an answer from the engine,
// such as a sync_ack) waits for the next pass, behind the packets already
// waiting, even when it makes the queue grow under the packet being delivered;
// and a message to oneself polls self alone.
#include <catch2/catch.hpp>

#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "adi/engine.hpp"
#include "devices/self/self_method.hpp"

using namespace strata;

namespace {

// `word` followed by `n` (appended: GCC 12 at -O3 warns falsely on a string
// literal + std::string).
std::string numbered(const char* word, std::size_t n) {
    std::string s = word;
    s += std::to_string(n);
    return s;
}

// Records every packet (tag and payload) and answers each packet whose tag is
// below `answer_below` with `answers` packets of their own (tags 1000 + ...).
class Answering final : public adi::Upcalls {
public:
    explicit Answering(adi::Method& m) : m_(m) {}
    int answer_below = 0;
    int answers = 1;
    std::vector<int> tags;
    std::vector<std::string> payloads;

    void on_packet(int peer, const adi::Header& h, const std::byte* payload) override {
        CHECK(peer == 0);
        tags.push_back(h.tag);
        payloads.emplace_back(reinterpret_cast<const char*>(payload), h.length);
        if (h.tag >= answer_below) return;
        for (int i = 0; i < answers; ++i) send(1000 + h.tag * 100 + i, numbered("answer ", static_cast<std::size_t>(h.tag)));
        // The packet being delivered is intact after the queue grew.
        CHECK(std::string(reinterpret_cast<const char*>(payload), h.length) == payloads.back());
    }
    void send(int tag, const std::string& text) {
        adi::Header h{};
        h.type = adi::Packet::eager;
        h.tag = tag;
        h.length = text.size();
        const iovec v{const_cast<char*>(text.data()), text.size()};
        CHECK(m_.send(0, h, std::span<const iovec>(&v, text.empty() ? 0 : 1), 0) == adi::SendStatus::done);
    }
    adi::Landing on_header(int, const adi::Header&) override { return {}; }
    void on_payload(int, const adi::Header&, const adi::Landing&) override {}
    adi::Landing on_landing_full(int, const adi::Header&, const adi::Landing&) override { return {}; }
    void on_sent(std::uint64_t) override {}
    void on_peer_failed(int, const std::string&) override {}

private:
    adi::Method& m_;
};

std::unique_ptr<dev::self::SelfMethod> self_of_rank_0() {
    auto m = std::make_unique<dev::self::SelfMethod>();
    adi::World world;
    world.cards.resize(1);
    world.rank = 0;
    REQUIRE(m->connect_world(world));
    return m;
}

}  // namespace

TEST_CASE("self: packets sent while poll() delivers wait for the next pass, behind those already waiting") {
    auto m = self_of_rank_0();
    Answering up(*m);
    up.answer_below = 3;
    up.answers = 40;  // the queue grows while a packet is being delivered
    up.send(1, "one");
    up.send(2, std::string(100000, 'x'));  // larger than a slot keeps
    up.send(7, "");
    CHECK(m->busy());
    CHECK(m->poll(up) == 3);
    REQUIRE(up.tags == std::vector<int>{1, 2, 7});
    CHECK(up.payloads[1] == std::string(100000, 'x'));
    CHECK(m->busy());
    CHECK(m->poll_peer(0, up) == 80);
    REQUIRE(up.tags.size() == 83);
    for (int i = 0; i < 40; ++i) {
        CHECK(up.tags[3 + static_cast<std::size_t>(i)] == 1100 + i);
        CHECK(up.tags[43 + static_cast<std::size_t>(i)] == 1200 + i);
    }
    CHECK(up.payloads.back() == "answer 2");
    CHECK_FALSE(m->busy());
    CHECK(m->poll(up) == 0);
}

TEST_CASE("self: a pass that leaves answers behind keeps the order over many passes, and slots are used again") {
    auto m = self_of_rank_0();
    Answering up(*m);
    up.answer_below = 1000;  // every first packet is answered once, answers are not
    int sent = 0;
    // Each pass delivers one new packet and the answer the last pass left,
    // so the queue never empties at the end of a pass.
    for (int pass = 0; pass < 200; ++pass) {
        up.send(sent % 10, numbered("p", static_cast<std::size_t>(sent)));
        ++sent;
        CHECK(m->poll(up) == (pass == 0 ? 1 : 2));
    }
    CHECK(m->poll(up) == 1);  // the last answer
    CHECK_FALSE(m->busy());
    REQUIRE(up.tags.size() == 400);
    // Packet k, then (next pass) the answer to packet k before packet k + 1.
    for (std::size_t k = 0; k + 1 < 200; ++k) {
        CHECK(up.payloads[2 * k + 1] == numbered("answer ", k % 10));
        CHECK(up.payloads[2 * k + 2] == numbered("p", k + 1));
    }
}

namespace {

// A method that reaches rank 1, carries nothing and counts its polls: the
// other way out of a process that a message to itself must not pay for.
class Elsewhere final : public adi::Method {
public:
    Elsewhere() {
        caps_.name = "elsewhere";
        caps_.eager_limit = 1024;
    }
    const adi::Capabilities& caps() const override { return caps_; }
    base::Status publish(wireup::BusinessCard&) override { return {}; }
    base::Status connect_world(const adi::World&) override { return {}; }
    bool reaches(int peer) const override { return peer == 1; }
    adi::SendStatus send(int, const adi::Header&, std::span<const iovec>, std::uint64_t) override {
        return adi::SendStatus::done;
    }
    int poll(adi::Upcalls&) override { return 0; }

private:
    adi::Capabilities caps_;
};

}  // namespace

TEST_CASE("self: a message to oneself completes its send at once and its receive in one poll of self alone") {
    std::vector<std::unique_ptr<adi::Method>> methods;
    methods.push_back(std::make_unique<dev::self::SelfMethod>());
    methods.push_back(std::make_unique<Elsewhere>());
    adi::Engine e(std::move(methods));
    std::vector<wireup::BusinessCard> cards(2);
    REQUIRE(e.connect_world(adi::World{cards, {}, 0}));
    for (int i = 0; i < 100; ++i) {
        const std::string text = numbered("message ", static_cast<std::size_t>(i));
        std::string in(text.size(), '\0');
        adi::Request* s = e.request_create(adi::Kind::send);
        e.isend(*s, {.world_peer = 0,
                     .tag = i,
                     .data = {reinterpret_cast<std::byte*>(const_cast<char*>(text.data())), text.size()}});
        CHECK(s->complete());  // copied into the queue
        adi::Request* r = e.request_create(adi::Kind::recv);
        e.irecv(*r, {.world_source = 0, .rank = 0, .tag = i, .data = {reinterpret_cast<std::byte*>(in.data()), in.size()}});
        CHECK_FALSE(r->complete());  // it waits in the self queue until a poll
        e.wait_one(*r, 0);
        CHECK(r->complete());
        CHECK(in == text);
        CHECK(r->status.tag == i);
        e.request_destroy(s);
        e.request_destroy(r);
    }
    const auto polls = e.poll_counts();
    REQUIRE(polls.size() == 2);
    CHECK(polls[0] == std::pair<std::string, std::uint64_t>{"self", 100});
    CHECK(polls[1] == std::pair<std::string, std::uint64_t>{"elsewhere", 0});
}
