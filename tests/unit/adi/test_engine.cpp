// Protocol tests: two engines in one process joined by an in-memory method
// that can hold sends back, to exercise eager, rendezvous, synchronous,
// cancel and truncation paths deterministically.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <initializer_list>
#include <memory>
#include <numeric>

#include "adi/engine.hpp"

using namespace strata;
using namespace strata::adi;

namespace {

struct Wire;

class PairMethod final : public Method {
public:
    PairMethod(int me, Wire& wire, std::size_t eager) : me_(me), wire_(wire) {
        caps_.name = "pair";
        caps_.eager_limit = eager;
    }
    const Capabilities& caps() const override { return caps_; }
    strata::base::Status publish(wireup::BusinessCard&) override { return {}; }
    strata::base::Status connect_world(const World&) override { return {}; }
    bool reaches(int) const override { return true; }
    SendStatus send(int peer, const Header& h, std::span<const iovec> data, std::uint64_t token) override;
    bool send_now(int peer, const Header& h, const std::byte* data, std::size_t n) override {
        const iovec v{const_cast<std::byte*>(data), n};
        return !hold_sends && send(peer, h, std::span<const iovec>(&v, 1), 0) == SendStatus::done;
    }
    int poll(Upcalls& up) override;
    bool busy() const override;
    bool shares_cpu(int cpu) override {
        cpu_told = cpu;
        return shared_cpu;
    }

    int delay_polls = 0;      // polls that find nothing before the wire delivers again
    bool shared_cpu = false;  // what shares_cpu answers
    int cpu_told = -2;        // the core shares_cpu was last told
    bool whole = false;                    // deliver through on_packet (all of a packet at once)
    bool hold_sends = false;               // complete data sends only on release()
    std::deque<std::uint64_t> held;        // tokens of held sends
    int landings = 0;                      // landings filled on this side
    std::size_t largest_packet = 0;        // biggest payload sent from this side
    void release(Upcalls& up) {
        while (!held.empty()) {
            up.on_sent(held.front());
            held.pop_front();
        }
    }

private:
    int me_;
    Wire& wire_;
    Capabilities caps_;
};

struct Packet {
    Header h;
    std::vector<std::byte> data;
};

struct Wire {
    std::deque<Packet> to[2];
};

SendStatus PairMethod::send(int peer, const Header& h, std::span<const iovec> data, std::uint64_t token) {
    Packet p{h, {}};
    for (const iovec& v : data) {
        auto* b = static_cast<const std::byte*>(v.iov_base);
        p.data.insert(p.data.end(), b, b + v.iov_len);
    }
    largest_packet = std::max(largest_packet, p.data.size());
    wire_.to[peer].push_back(std::move(p));
    if (hold_sends && token != 0) {
        held.push_back(token);
        return SendStatus::queued;
    }
    return SendStatus::done;
}

int PairMethod::poll(Upcalls& up) {
    if (delay_polls > 0) {
        --delay_polls;
        return 0;
    }
    int n = 0;
    auto& q = wire_.to[me_];
    while (!q.empty()) {
        Packet p = std::move(q.front());
        q.pop_front();
        if (whole) {
            up.on_packet(1 - me_, p.h, p.data.data());
            ++n;
            continue;
        }
        Landing l = up.on_header(1 - me_, p.h);
        if (carries_payload(p.h.type)) {
            // The Landing contract: fill, ask for the next landing while the payload goes on.
            std::size_t at = 0;
            while (at < p.data.size() && l.capacity > 0 && l.dest != nullptr) {
                std::size_t c = std::min(l.capacity, p.data.size() - at);
                std::memcpy(l.dest, p.data.data() + at, c);
                at += c;
                ++landings;
                if (at < p.data.size()) l = up.on_landing_full(1 - me_, p.h, l);
            }
            up.on_payload(1 - me_, p.h, l);
        }
        ++n;
    }
    return n;
}

bool PairMethod::busy() const { return !wire_.to[me_].empty(); }

struct Pair {
    Wire wire;
    PairMethod* m[2];
    std::unique_ptr<Engine> e[2];
    // Both sides behave as if probing for any message, so the engines poll
    // (and queue unexpected arrivals) even when no receive is posted.
    std::unique_ptr<Engine::Interest> listening[2];
    explicit Pair(std::size_t eager = 64, bool listen = true, bool whole = false) {
        for (int i = 0; i < 2; ++i) {
            auto method = std::make_unique<PairMethod>(i, wire, eager);
            method->whole = whole;
            m[i] = method.get();
            std::vector<std::unique_ptr<Method>> v;
            v.push_back(std::move(method));
            e[i] = std::make_unique<Engine>(std::move(v));
            std::vector<wireup::BusinessCard> cards(2);
            REQUIRE(e[i]->connect_world(World{cards, {}, i}));
            if (listen) listening[i] = std::make_unique<Engine::Interest>(*e[i], kAnySource);
        }
    }
    void pump() {
        for (int round = 0; round < 8; ++round) {
            e[0]->progress();
            e[1]->progress();
        }
    }
    Request* send(int from, int tag, std::vector<int>& data, SendMode mode = SendMode::standard) {
        Request* r = e[from]->request_create(Kind::send);
        e[from]->isend(*r, {.world_peer = 1 - from,
                            .mode = mode,
                            .context = 0,
                            .rank = from,
                            .tag = tag,
                            .data = {reinterpret_cast<std::byte*>(data.data()), data.size() * sizeof(int)}});
        return r;
    }
    // Receives into the first `count` elements of `data` (all of them by default).
    Request* recv(int at, int source, int tag, std::vector<int>& data, std::size_t count = SIZE_MAX) {
        Request* r = e[at]->request_create(Kind::recv);
        const std::size_t bytes = std::min(count, data.size()) * sizeof(int);
        e[at]->irecv(*r, {.world_source = source,
                          .context = 0,
                          .rank = source,
                          .tag = tag,
                          .data = {reinterpret_cast<std::byte*>(data.data()), bytes}});
        return r;
    }
};

std::vector<int> iota(std::size_t n, int start) {
    std::vector<int> v(n);
    std::iota(v.begin(), v.end(), start);
    return v;
}

}  // namespace

TEST_CASE("eager message: posted first and unexpected first") {
    // Delivered by the method in steps (on_header, landings, on_payload) or
    // whole (on_packet).
    const bool whole = GENERATE(false, true);
    Pair p(1024, true, whole);
    auto out = iota(10, 100);
    std::vector<int> in(10, 0);
    Request* r = p.recv(1, 0, 3, in);
    Request* s = p.send(0, 3, out);
    CHECK(s->complete());
    p.pump();
    REQUIRE(r->complete());
    CHECK(in == out);
    CHECK(r->status.source == 0);
    CHECK(r->status.tag == 3);
    CHECK(r->status.bytes == 40);

    auto out2 = iota(10, 200);
    std::vector<int> in2(10, 0);
    Request* s2 = p.send(0, 4, out2);
    p.pump();
    CHECK(p.e[1]->unexpected_count() == 1);
    Request* r2 = p.recv(1, kAnySource, kAnyTag, in2);
    CHECK(r2->complete());
    CHECK(in2 == out2);
    CHECK(r2->status.tag == 4);
    for (Request* x : {r, r2}) p.e[1]->request_destroy(x);
    for (Request* x : {s, s2}) p.e[0]->request_destroy(x);
}

TEST_CASE("rendezvous lands in the posted buffer and completes the sender only after the data left") {
    Pair p(16);
    auto out = iota(1000, 7);
    std::vector<int> in(1000, 0);
    p.m[0]->hold_sends = true;
    Request* s = p.send(0, 1, out);
    p.pump();
    CHECK_FALSE(s->complete());  // waiting for a receiver
    CHECK(p.e[1]->unexpected_count() == 1);
    Request* r = p.recv(1, 0, 1, in);
    p.pump();
    CHECK(r->complete());
    CHECK(in == out);
    CHECK_FALSE(s->complete());  // the method still holds the data
    p.m[0]->release(*p.e[0]);
    CHECK(s->complete());
    p.e[0]->request_destroy(s);
    p.e[1]->request_destroy(r);
}

TEST_CASE("synchronous send completes only once matched") {
    const bool whole = GENERATE(false, true);
    Pair p(1024, true, whole);
    auto out = iota(4, 1);
    std::vector<int> in(4, 0);
    Request* s = p.send(0, 9, out, SendMode::synchronous);
    p.pump();
    CHECK_FALSE(s->complete());
    Request* r = p.recv(1, 0, 9, in);
    p.pump();
    CHECK(r->complete());
    CHECK(s->complete());
    p.e[0]->request_destroy(s);
    p.e[1]->request_destroy(r);
}

TEST_CASE("non-overtaking: same envelope matches in send order, eager and rendezvous mixed") {
    Pair p(32);
    std::vector<std::vector<int>> outs;
    std::vector<Request*> sends;
    for (int i = 0; i < 6; ++i) outs.push_back(iota(i % 2 == 0 ? 2 : 100, i * 1000));
    for (auto& o : outs) sends.push_back(p.send(0, 5, o));
    std::vector<std::vector<int>> ins;
    for (int i = 0; i < 6; ++i) ins.emplace_back(100, -1);
    std::vector<Request*> recvs;
    for (auto& in : ins) recvs.push_back(p.recv(1, kAnySource, kAnyTag, in));
    p.pump();
    for (int i = 0; i < 6; ++i) {
        REQUIRE(recvs[i]->complete());
        CHECK(recvs[i]->status.bytes == outs[i].size() * sizeof(int));
        CHECK(ins[i][0] == i * 1000);
        p.e[1]->request_destroy(recvs[i]);
        p.e[0]->request_destroy(sends[i]);
    }
}

TEST_CASE("truncation is reported and the buffer is not overrun") {
    const bool whole = GENERATE(false, true);
    for (std::size_t eager : {std::size_t(1024), std::size_t(8)}) {
        Pair p(eager, true, whole);
        auto out = iota(8, 1);
        std::vector<int> in(5, -1);
        Request* r = p.recv(1, 0, 0, in, 4);  // the last element must stay untouched
        Request* s = p.send(0, 0, out);
        p.pump();
        REQUIRE(r->complete());
        CHECK(r->status.error == Error::truncated);
        CHECK(in[3] == 4);
        CHECK(in[4] == -1);
        p.e[1]->request_destroy(r);
        p.e[0]->request_destroy(s);
    }
}

TEST_CASE("cancel: a posted receive is withdrawn, an unmatched send is withdrawn at the receiver") {
    Pair p(1024);
    std::vector<int> in(4, 0);
    Request* r = p.recv(1, 0, 77, in);
    p.e[1]->cancel(*r);
    CHECK(r->complete());
    CHECK(r->status.cancelled);
    CHECK(p.e[1]->posted_count() == 0);

    auto out = iota(4, 1);
    Request* s = p.send(0, 78, out);
    p.pump();
    CHECK(p.e[1]->unexpected_count() == 1);
    p.e[0]->cancel(*s);
    CHECK_FALSE(s->complete());
    p.pump();
    CHECK(s->complete());
    CHECK(s->status.cancelled);
    CHECK(p.e[1]->unexpected_count() == 0);
    p.e[0]->request_destroy(s);
    p.e[1]->request_destroy(r);
}

TEST_CASE("cancel of a matched send fails and the message is delivered") {
    Pair p(1024);
    auto out = iota(4, 1);
    std::vector<int> in(4, 0);
    Request* r = p.recv(1, 0, 1, in);
    Request* s = p.send(0, 1, out);
    p.pump();
    p.e[0]->cancel(*s);
    p.pump();
    CHECK(s->complete());
    CHECK_FALSE(s->status.cancelled);
    CHECK(r->complete());
    CHECK(in == out);
    p.e[0]->request_destroy(s);
    p.e[1]->request_destroy(r);
}

TEST_CASE("cancel of an unmatched rendezvous send releases the sender") {
    Pair p(8);
    auto out = iota(100, 1);
    Request* s = p.send(0, 1, out);
    p.pump();
    p.e[0]->cancel(*s);
    p.pump();
    CHECK(s->complete());
    CHECK(s->status.cancelled);
    CHECK(p.e[1]->unexpected_count() == 0);
    p.e[0]->request_destroy(s);
}

TEST_CASE("a released request is destroyed by the engine when it completes") {
    Pair p(1024);
    auto out = iota(4, 1);
    bool ran = false;
    Request* s = p.send(0, 1, out, SendMode::synchronous);
    s->released = true;
    s->on_complete = [&] { ran = true; };
    std::vector<int> in(4, 0);
    Request* r = p.recv(1, 0, 1, in);
    p.pump();
    CHECK(ran);
    p.e[1]->request_destroy(r);
}

TEST_CASE("request storage is reused, but an old id never reaches the new request") {
    Pair p(1024);
    Request* old = p.e[0]->request_create(Kind::send);
    const std::uint64_t old_id = old->id;
    CHECK(old_id != 0);
    p.e[0]->request_destroy(old);
    p.e[0]->request_destroy(old);  // a second destroy must not hand the slot out twice

    auto out = iota(4, 1);
    Request* s = p.send(0, 1, out, SendMode::synchronous);
    auto other = iota(4, 9);
    Request* t = p.send(0, 2, other);
    CHECK(s != t);
    CHECK(s->id != old_id);
    CHECK(t->id != old_id);
    p.pump();
    REQUIRE_FALSE(s->complete());  // waits for its sync_ack

    // A late or forged answer naming the destroyed request, or naming none.
    Header h{};
    h.type = adi::Packet::sync_ack;
    h.sender_req = old_id;
    p.e[0]->on_header(1, h);
    h.sender_req = 0;
    p.e[0]->on_header(1, h);
    CHECK_FALSE(s->complete());

    std::vector<int> in(4, 0);
    Request* r = p.recv(1, 0, 1, in);
    p.pump();
    CHECK(s->complete());
    CHECK(in == out);
    p.e[0]->request_destroy(s);
    p.e[0]->request_destroy(t);
    p.e[1]->request_destroy(r);
}

// ---------------------------------------------------------------------------
// Non-contiguous data through a Segment: pipelined packing, chunked landing.

namespace {

constexpr std::size_t kChunk = 4096;

// Every other int of a buffer: packed offset o is byte o % 4 of int 2 * (o / 4).
class StridedSegment final : public Segment {
public:
    explicit StridedSegment(std::vector<int>& v) : v_(v) {}
    std::size_t size() const override { return v_.size() / 2 * sizeof(int); }
    void pack(std::size_t offset, std::size_t n, std::byte* out) const override {
        CHECK(offset + n <= size());
        max_piece = std::max(max_piece, n);
        for (std::size_t i = 0; i < n; ++i) out[i] = byte_at(offset + i);
    }
    void unpack(std::size_t offset, std::size_t n, const std::byte* in) override {
        CHECK(offset + n <= size());
        CHECK(offset == next_unpack);  // chunks land in order, none twice
        next_unpack = offset + n;
        max_piece = std::max(max_piece, n);
        for (std::size_t i = 0; i < n; ++i) byte_at(offset + i) = in[i];
    }
    mutable std::size_t max_piece = 0;
    std::size_t next_unpack = 0;

private:
    std::byte& byte_at(std::size_t o) const {
        return reinterpret_cast<std::byte*>(&v_[2 * (o / sizeof(int))])[o % sizeof(int)];
    }
    std::vector<int>& v_;
};

void chunk_knob() { setenv("STRATA_PACK_CHUNK", "4096", 1); }

Request* segment_send(Pair& p, int from, int tag, const std::shared_ptr<Segment>& seg) {
    Request* r = p.e[from]->request_create(Kind::send);
    p.e[from]->isend(*r, {.world_peer = 1 - from, .rank = from, .tag = tag, .data = Buffer(seg)});
    return r;
}

Request* segment_recv(Pair& p, int at, int tag, const std::shared_ptr<Segment>& seg) {
    Request* r = p.e[at]->request_create(Kind::recv);
    p.e[at]->irecv(*r, {.world_source = 1 - at, .rank = 1 - at, .tag = tag, .data = Buffer(seg)});
    return r;
}

void pump_until(Pair& p, const std::function<bool()>& done) {
    for (int i = 0; i < 100000 && !done(); ++i) {
        p.e[0]->progress();
        p.e[1]->progress();
    }
    REQUIRE(done());
}

}  // namespace

TEST_CASE("segment to segment: pipelined rendezvous in bounded chunks, data exact") {
    chunk_knob();
    Pair p(1024);
    const std::size_t n = 50000;  // 100000 packed bytes: 25 chunks
    auto out = iota(2 * n, 1);
    std::vector<int> in(2 * n, -1);
    auto so = std::make_shared<StridedSegment>(out);
    auto si = std::make_shared<StridedSegment>(in);
    p.m[0]->hold_sends = true;
    Request* s = segment_send(p, 0, 5, so);
    Request* r = segment_recv(p, 1, 5, si);
    p.pump();
    // Held by the method: exactly the window left, from two chunk slots.
    CHECK(s->send().chunks_in_flight == 2);
    CHECK(s->stage.size() == 2 * kChunk);
    CHECK_FALSE(s->complete());
    p.m[0]->hold_sends = false;
    p.m[0]->release(*p.e[0]);
    pump_until(p, [&] { return r->complete() && s->complete(); });
    CHECK(p.m[0]->largest_packet == kChunk);
    CHECK(so->max_piece <= kChunk);
    CHECK(si->max_piece <= kChunk);
    CHECK(r->status.bytes == n * sizeof(int));
    CHECK(r->status.error == Error::none);
    for (std::size_t i = 0; i < 2 * n; ++i) {
        const int want = i % 2 == 0 ? out[i] : -1;
        if (in[i] != want) FAIL("int " << i << " is " << in[i] << ", expected " << want);
    }
    p.e[0]->request_destroy(s);
    p.e[1]->request_destroy(r);
}

TEST_CASE("contiguous rendezvous into a segment lands chunk by chunk") {
    chunk_knob();
    Pair p(1024);
    const std::size_t n = 30001;
    auto out = iota(n, 10);
    std::vector<int> in(2 * n, -1);
    auto si = std::make_shared<StridedSegment>(in);
    Request* r = segment_recv(p, 1, 2, si);
    Request* s = p.send(0, 2, out);
    pump_until(p, [&] { return r->complete() && s->complete(); });
    CHECK(p.m[0]->largest_packet == n * sizeof(int));  // zero-copy: one packet from the user buffer
    CHECK(p.m[1]->landings >= static_cast<int>(n * sizeof(int) / kChunk));
    CHECK(si->max_piece <= kChunk);
    CHECK(r->status.bytes == n * sizeof(int));
    for (std::size_t i = 0; i < n; ++i) REQUIRE(in[2 * i] == out[i]);
    for (std::size_t i = 0; i < n; ++i) REQUIRE(in[2 * i + 1] == -1);
    p.e[0]->request_destroy(s);
    p.e[1]->request_destroy(r);
}

TEST_CASE("segment send into a contiguous receive, eager and rendezvous, posted and unexpected") {
    chunk_knob();
    for (std::size_t n : {std::size_t{10}, std::size_t{100}, std::size_t{9000}}) {
        for (bool posted_first : {true, false}) {
            Pair p(1024);
            auto out = iota(2 * n, 3);
            std::vector<int> in(n + 1, -7);
            auto so = std::make_shared<StridedSegment>(out);
            Request* r = posted_first ? p.recv(1, 0, 1, in) : nullptr;
            Request* s = segment_send(p, 0, 1, so);
            p.pump();
            if (!posted_first) r = p.recv(1, 0, 1, in);
            pump_until(p, [&] { return r->complete() && s->complete(); });
            CHECK(r->status.bytes == n * sizeof(int));
            for (std::size_t i = 0; i < n; ++i) REQUIRE(in[i] == out[2 * i]);
            CHECK(in[n] == -7);
            p.e[0]->request_destroy(s);
            p.e[1]->request_destroy(r);
        }
    }
}

TEST_CASE("truncation into a segment keeps what fits and reports the error") {
    chunk_knob();
    for (std::size_t n : {std::size_t{100}, std::size_t{20000}}) {
        Pair p(1024);
        auto out = iota(n, 1);
        const std::size_t fits = n / 2 + 3;  // ints the receive can hold
        std::vector<int> in(2 * fits + 4, -1);
        std::vector<int> view(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(2 * fits));
        auto si = std::make_shared<StridedSegment>(view);
        Request* r = segment_recv(p, 1, 4, si);
        Request* s = p.send(0, 4, out);
        pump_until(p, [&] { return r->complete() && s->complete(); });
        CHECK(r->status.error == Error::truncated);
        CHECK(r->status.bytes == fits * sizeof(int));
        for (std::size_t i = 0; i < fits; ++i) REQUIRE(view[2 * i] == out[i]);
        for (std::size_t i = 0; i < fits; ++i) REQUIRE(view[2 * i + 1] == -1);
        p.e[0]->request_destroy(s);
        p.e[1]->request_destroy(r);
    }
}

TEST_CASE("selective polling: nothing awaited, nothing polled; a posted receive or a probe polls its method") {
    Pair p(64, false);
    std::vector<int> out = iota(8, 1);
    std::vector<int> in(8, 0);
    Request* s = p.send(0, 5, out);
    p.pump();
    CHECK(s->complete());
    CHECK(p.e[1]->poll_counts()[0].second == 0);
    CHECK(p.e[1]->unexpected_count() == 0);
    {
        Engine::Interest probing(*p.e[1], 0);
        p.pump();
        CHECK(p.e[1]->unexpected_count() == 1);
    }
    const std::uint64_t before = p.e[1]->poll_counts()[0].second;
    CHECK(before > 0);
    p.pump();
    CHECK(p.e[1]->poll_counts()[0].second == before);
    Request* r = p.recv(1, 0, 5, in);
    CHECK(r->complete());
    CHECK(in == out);
    Request* r2 = p.recv(1, 0, 6, in);
    p.pump();
    CHECK(p.e[1]->poll_counts()[0].second > before);
    CHECK_FALSE(r2->complete());
    p.e[1]->cancel(*r2);
    CHECK(r2->complete());
    const std::uint64_t after = p.e[1]->poll_counts()[0].second;
    p.pump();
    CHECK(p.e[1]->poll_counts()[0].second == after);
    for (Request* q : {s, r, r2}) (q == s ? p.e[0] : p.e[1])->request_destroy(q);
}

namespace {

// A method that reaches one peer, carries nothing and counts its polls.
class CountingMethod final : public Method {
public:
    CountingMethod(const char* name, int peer, int cost) : peer_(peer) {
        caps_.name = name;
        caps_.poll_cost = cost;
        caps_.eager_limit = 1024;
    }
    const Capabilities& caps() const override { return caps_; }
    strata::base::Status publish(wireup::BusinessCard&) override { return {}; }
    strata::base::Status connect_world(const World&) override { return {}; }
    bool reaches(int peer) const override { return peer == peer_; }
    SendStatus send(int, const Header&, std::span<const iovec>, std::uint64_t) override { return SendStatus::done; }
    int poll(Upcalls&) override { return 0; }

private:
    int peer_;
    Capabilities caps_;
};

struct Counting {
    const char* name;
    int peer;  // the world rank it reaches (-1: none)
    int cost;  // Capabilities::poll_cost
};

// An engine over CountingMethods, connected as rank 0 of `ranks`.
std::unique_ptr<Engine> counting_engine(std::initializer_list<Counting> methods, std::size_t ranks) {
    std::vector<std::unique_ptr<Method>> v;
    for (const Counting& m : methods) v.push_back(std::make_unique<CountingMethod>(m.name, m.peer, m.cost));
    auto e = std::make_unique<Engine>(std::move(v));
    std::vector<wireup::BusinessCard> cards(ranks);
    REQUIRE(e->connect_world(World{cards, {}, 0}));
    return e;
}

// A receive from world rank `source` (or kAnySource among the processes
// `from_methods` reach, 0: all) into `buf`, posted on `e`.
Request* post_recv(Engine& e, int source, std::vector<std::byte>& buf, std::uint32_t from_methods = 0) {
    Request* r = e.request_create(Kind::recv);
    e.irecv(*r, {.world_source = source,
                 .rank = source,
                 .tag = 0,
                 .data = {buf.data(), buf.size()},
                 .from_methods = from_methods});
    return r;
}

}  // namespace

TEST_CASE("a peer that no method reaches is an error naming it") {
    std::vector<std::unique_ptr<Method>> v;
    v.push_back(std::make_unique<CountingMethod>("cheap", 1, 1));
    v.push_back(std::make_unique<CountingMethod>("costly", 2, 100));
    Engine e(std::move(v));
    std::vector<wireup::BusinessCard> cards(3);
    // Rank 0 is reached by nothing: only its peers matter here.
    const strata::base::Status connected = e.connect_world(World{cards, {}, 0});
    CHECK_FALSE(connected);
    CHECK(connected.error().find("no communication method reaches rank 0") != std::string::npos);
}

namespace {

// A method that takes other jobs' processes (PeerSet) and reaches those of
// them whose card names its host, from their index on.
class JoiningMethod final : public Method {
public:
    JoiningMethod() {
        caps_.name = std::string("joining");
        caps_.poll_cost = 100;
    }
    const Capabilities& caps() const override { return caps_; }
    strata::base::Status publish(wireup::BusinessCard&) override { return {}; }
    strata::base::Status connect_world(const World& w) override {
        reached_.assign(w.cards.size(), true);
        return {};
    }
    bool reaches(int peer) const override { return reached_[static_cast<std::size_t>(peer)]; }
    bool peers_add(const PeerSet& set) override {
        reached_.resize(static_cast<std::size_t>(set.first));
        for (const auto& c : set.cards) reached_.push_back(c.hostname == "reachable");
        return true;
    }
    void peers_close(int first, int count) override { closed.emplace_back(first, count); }
    SendStatus send(int, const Header&, std::span<const iovec>, std::uint64_t) override { return SendStatus::done; }
    int poll(Upcalls&) override { return 0; }
    std::vector<std::pair<int, int>> closed;

private:
    std::vector<bool> reached_;
    Capabilities caps_;
};

}  // namespace

TEST_CASE("a receive posted for a peer that fails fails, and so does one posted after; the others wait") {
    auto e = counting_engine({{"self", 0, 1}, {"costly", 1, 100}, {"other", 2, 100}}, 3);
    std::vector<std::byte> buf(8);
    Request* from1 = post_recv(*e, 1, buf);
    Request* from2 = post_recv(*e, 2, buf);
    Request* any = post_recv(*e, kAnySource, buf);
    e->on_peer_failed(1, "gone");
    CHECK(from1->pending == 0);
    CHECK(from1->status.error == Error::peer_failed);
    CHECK(from2->pending == 1);
    CHECK(any->pending == 1);
    CHECK(e->posted_count() == 2);
    Request* late = post_recv(*e, 1, buf);
    CHECK(late->pending == 0);
    CHECK(late->status.error == Error::peer_failed);
    CHECK(e->last_error() == "gone");
    // A disconnect that closed the link forgets the failure.
    e->peers_close(1, 1);
    Request* again = post_recv(*e, 1, buf);
    CHECK(again->pending == 1);
    for (Request* r : {from1, from2, any, late, again}) {
        if (r->pending > 0) e->cancel(*r);
        e->request_destroy(r);
    }
}

TEST_CASE("another job's processes join after the world, over the first method that takes them") {
    std::vector<std::unique_ptr<Method>> v;
    v.push_back(std::make_unique<CountingMethod>("self", 0, 1));  // takes no set: never asked about them
    auto* joining = new JoiningMethod;
    v.push_back(std::unique_ptr<Method>(joining));
    Engine e(std::move(v));
    REQUIRE(e.connect_world(World{std::vector<wireup::BusinessCard>(2), {}, 0}));
    PeerSet set;
    set.id = 7;
    set.first = e.world_size();
    set.cards.resize(3);
    for (auto& c : set.cards) c.hostname = std::string("reachable");
    REQUIRE(e.peers_add(set));
    CHECK(e.world_size() == 5);
    CHECK(e.method_for(4) == joining);
    CHECK(e.methods_reaching(std::vector<int>{2, 3, 4}) == 2u);
    e.peers_close(2, 3);
    CHECK(joining->closed == std::vector<std::pair<int, int>>{{2, 3}});
    // A set with a process no method reaches adds nothing and names it.
    PeerSet far = set;
    far.first = e.world_size();
    far.first_rank = 4;
    far.cards[1].hostname = std::string("far");
    const strata::base::Status added = e.peers_add(far);
    REQUIRE_FALSE(added);
    CHECK(added.error().find("no communication method reaches process 5 of the other job (host far)") !=
          std::string::npos);
    CHECK(e.world_size() == 5);
    // The next set takes those indexes.
    far.cards[1].hostname = std::string("reachable");
    REQUIRE(e.peers_add(far));
    CHECK(e.world_size() == 8);
    CHECK(e.method_for(7) == joining);
}

TEST_CASE("selective polling: skip-poll ratio, and only the needed methods") {
    std::vector<std::unique_ptr<Method>> v;
    v.push_back(std::make_unique<CountingMethod>("cheap", 1, 1));
    v.push_back(std::make_unique<CountingMethod>("costly", 2, 100));
    auto* self = new CountingMethod("self", 0, 1);
    v.insert(v.begin(), std::unique_ptr<Method>(self));
    Engine e(std::move(v));
    std::vector<wireup::BusinessCard> cards(3);
    REQUIRE(e.connect_world(World{cards, {}, 0}));
    auto polls = [&](std::size_t i) { return e.poll_counts()[i].second; };
    const char* knob = std::getenv("STRATA_SKIP_POLL");
    const std::uint64_t skip = knob != nullptr ? std::strtoull(knob, nullptr, 10) : 8;

    SECTION("a receive from the costly peer alone polls it on every pass") {
        std::vector<std::byte> buf(8);
        Request* r = post_recv(e, 2, buf);
        for (int i = 0; i < 40; ++i) e.progress();
        CHECK(polls(0) == 0);
        CHECK(polls(1) == 0);
        CHECK(polls(2) == 40);
        e.cancel(*r);
        e.request_destroy(r);
    }
    SECTION("beside a receive from the cheap peer it gets every skip-th pass") {
        std::vector<std::byte> a(8), b(8);
        Request* r1 = post_recv(e, 1, a);
        Request* r2 = post_recv(e, 2, b);
        const int passes = static_cast<int>(skip) * 10;
        for (int i = 0; i < passes; ++i) e.progress();
        CHECK(polls(1) == static_cast<std::uint64_t>(passes));
        CHECK(polls(2) == 10);
        CHECK(polls(0) == 0);
        e.cancel(*r1);
        e.cancel(*r2);
        e.request_destroy(r1);
        e.request_destroy(r2);
        // Nothing awaited any more: nothing is polled.
        for (int i = 0; i < 10; ++i) e.progress();
        CHECK(polls(1) == static_cast<std::uint64_t>(passes));
        CHECK(polls(2) == 10);
    }
    SECTION("MPI_ANY_SOURCE adds every method, the costly one at the skip-poll rate") {
        std::vector<std::byte> a(8);
        Request* r = post_recv(e, kAnySource, a);
        const int passes = static_cast<int>(skip) * 2;
        for (int i = 0; i < passes; ++i) e.progress();
        CHECK(polls(0) == static_cast<std::uint64_t>(passes));
        CHECK(polls(1) == static_cast<std::uint64_t>(passes));
        CHECK(polls(2) == 2);
        e.cancel(*r);
        e.request_destroy(r);
    }
}

TEST_CASE("selective polling: MPI_ANY_SOURCE polls only the methods that reach its communicator") {
    // Ranks 0 (self) and 1 (cheap) form the communicator; rank 2 is reached
    // by the costly method only, and a method reaching nobody ("idle", like
    // TCP in a job on one host) must never be polled at all.
    const auto engine = counting_engine({{"self", 0, 1}, {"cheap", 1, 1}, {"idle", -1, 100}, {"costly", 2, 100}}, 3);
    Engine& e = *engine;
    auto polls = [&](std::size_t i) { return e.poll_counts()[i].second; };
    const std::vector<int> comm{0, 1};
    const std::uint32_t from = e.methods_reaching(comm);
    CHECK(from == 0b0011u);
    CHECK(e.methods_reaching(std::vector<int>{0, 1, 2}) == 0b1011u);

    SECTION("a receive") {
        std::vector<std::byte> a(8);
        Request* r = post_recv(e, kAnySource, a, from);
        for (int i = 0; i < 64; ++i) e.progress();
        CHECK(polls(0) == 64);
        CHECK(polls(1) == 64);
        CHECK(polls(2) == 0);
        CHECK(polls(3) == 0);
        e.cancel(*r);
        e.request_destroy(r);
    }
    SECTION("a probe") {
        {
            Engine::Interest probing(e, kAnySource, from);
            for (int i = 0; i < 64; ++i) e.progress();
        }
        CHECK(polls(1) == 64);
        CHECK(polls(2) == 0);
        CHECK(polls(3) == 0);
        for (int i = 0; i < 8; ++i) e.progress();  // the interest is gone: nothing is polled
        CHECK(polls(1) == 64);
    }
    SECTION("without a communicator's set, every method that reaches a process, but not the idle one") {
        std::vector<std::byte> a(8);
        Request* r = post_recv(e, kAnySource, a);
        for (int i = 0; i < 64; ++i) e.progress();
        CHECK(polls(1) == 64);
        CHECK(polls(2) == 0);
        CHECK(polls(3) > 0);
        e.cancel(*r);
        e.request_destroy(r);
    }
}

TEST_CASE("selective polling: with every peer behind the costly method, MPI_ANY_SOURCE polls it on every pass") {
    // Self is as cheap as shared memory but carries only our own messages: it
    // must not make the costly method wait skip-poll passes.
    const auto engine = counting_engine({{"self", 0, 1}, {"costly", 1, 100}}, 2);
    Engine& e = *engine;
    std::vector<std::byte> a(8);
    Request* r = post_recv(e, kAnySource, a);
    for (int i = 0; i < 40; ++i) e.progress();
    CHECK(e.poll_counts()[0].second == 40);
    CHECK(e.poll_counts()[1].second == 40);
    e.cancel(*r);
    e.request_destroy(r);
}

TEST_CASE("whole packets (on_packet): an eager message into a segment, and rendezvous") {
    chunk_knob();
    Pair p(1024, true, true);
    // Into a segment (every other int): the general landing path.
    auto out = iota(20, 50);
    std::vector<int> in(40, -1);
    auto seg = std::make_shared<StridedSegment>(in);
    Request* r = segment_recv(p, 1, 7, seg);
    Request* s = p.send(0, 7, out);
    p.pump();
    REQUIRE(r->complete());
    for (std::size_t i = 0; i < 20; ++i) REQUIRE(in[2 * i] == out[i]);
    for (std::size_t i = 0; i < 20; ++i) REQUIRE(in[2 * i + 1] == -1);
    // Rendezvous: header-only packets and the data packet go the general way.
    auto out2 = iota(2000, 9);
    std::vector<int> in2(2000, 0);
    Request* r2 = p.recv(1, 0, 8, in2);
    Request* s2 = p.send(0, 8, out2);
    pump_until(p, [&] { return r2->complete() && s2->complete(); });
    CHECK(in2 == out2);
    for (Request* x : {r, r2}) p.e[1]->request_destroy(x);
    for (Request* x : {s, s2}) p.e[0]->request_destroy(x);
}

TEST_CASE("wait_one: a lone request polls its peer until it completes; with others outstanding, everything") {
    Pair p(1024, false);
    auto out = iota(4, 1);
    std::vector<int> in(4, 0);
    Request* r = p.recv(1, 0, 1, in);
    Request* s = p.send(0, 1, out);
    const auto polls_before = p.e[1]->poll_counts()[0].second;
    p.e[1]->wait_one(*r, 0);
    CHECK(r->complete());
    CHECK(in == out);
    CHECK(p.e[1]->poll_counts()[0].second > polls_before);
    // Two receives outstanding: waiting for the second one still completes
    // the first, which arrives before it.
    auto outa = iota(4, 10);
    auto outb = iota(4, 20);
    std::vector<int> ina(4, 0);
    std::vector<int> inb(4, 0);
    Request* ra = p.recv(1, 0, 2, ina);
    Request* rb = p.recv(1, kAnySource, 3, inb);
    Request* sa = p.send(0, 2, outa);
    Request* sb = p.send(0, 3, outb);
    p.e[1]->wait_one(*rb, kAnySource);
    CHECK(rb->complete());
    CHECK(ra->complete());
    CHECK(ina == outa);
    CHECK(inb == outb);
    for (Request* x : {r, ra, rb}) p.e[1]->request_destroy(x);
    for (Request* x : {s, sa, sb}) p.e[0]->request_destroy(x);
}

TEST_CASE("a test that finds nothing gives the core away only on an oversubscribed host") {
    const auto engine = counting_engine({{"self", 0, 1}, {"cheap", 1, 1}}, 2);
    Engine& e = *engine;
    std::vector<std::byte> a(8);
    Request* r = post_recv(e, 1, a);
    for (int i = 0; i < 10; ++i) CHECK(e.progress_test() == 0);
    CHECK(e.yields() == 0);
    e.set_oversubscribed(true);
    for (int i = 0; i < 10; ++i) CHECK(e.progress_test() == 0);
    CHECK(e.yields() == 10);
    // A plain progress pass (inside a blocking wait) never yields by itself.
    e.progress();
    CHECK(e.yields() == 10);
    e.cancel(*r);
    e.request_destroy(r);
}

TEST_CASE("a wait that idles asks whether a peer runs on this core, and counts the waits that found one") {
    Pair p(1024, false);
    auto out = iota(4, 1);
    std::vector<int> in(4, 0);
    // An answer that comes soon: no idle step, nobody asked.
    Request* r = p.recv(1, 0, 1, in);
    Request* s = p.send(0, 1, out);
    p.e[1]->wait_one(*r, 0);
    CHECK(r->complete());
    CHECK(p.m[1]->cpu_told == -2);
    // One that takes 40 idle passes: asked at the 16th, with this process's core.
    p.m[1]->delay_polls = 40;
    Request* r2 = p.recv(1, 0, 2, in);
    Request* s2 = p.send(0, 2, out);
    p.e[1]->wait_one(*r2, 0);
    CHECK(r2->complete());
    CHECK(p.m[1]->cpu_told >= 0);
    CHECK(p.e[1]->cpu_shared_waits() == 0);
    // The peer says it runs there too: counted once per wait.
    p.m[1]->shared_cpu = true;
    for (int tag = 3; tag < 5; ++tag) {
        p.m[1]->delay_polls = 40;
        Request* rr = p.recv(1, 0, tag, in);
        Request* ss = p.send(0, tag, out);
        p.e[1]->wait_one(*rr, 0);
        CHECK(rr->complete());
        CHECK(in == out);
        p.e[1]->request_destroy(rr);
        p.e[0]->request_destroy(ss);
    }
    CHECK(p.e[1]->cpu_shared_waits() == 2);
    for (Request* x : {r, r2}) p.e[1]->request_destroy(x);
    for (Request* x : {s, s2}) p.e[0]->request_destroy(x);
}

TEST_CASE("traffic counters count nothing until turned on, then every message, by level and by method") {
    Pair p(16);
    auto small = iota(2, 1);
    auto large = iota(100, 1);  // rendezvous: still one message
    std::vector<int> in(100, 0);
    const auto send_both = [&] {
        for (auto* out : {&small, &large}) {
            Request* r = p.recv(1, 0, 1, in);
            Request* s = p.send(0, 1, *out);
            p.pump();
            REQUIRE(r->complete());
            REQUIRE(s->complete());
            p.e[1]->request_destroy(r);
            p.e[0]->request_destroy(s);
        }
        CHECK(p.e[0]->send_now(1, 0, 0, 2, reinterpret_cast<const std::byte*>(small.data()), 8));
        Request* r = p.recv(1, 0, 2, in);
        p.pump();
        REQUIRE(r->complete());
        p.e[1]->request_destroy(r);
    };
    CHECK_FALSE(p.e[0]->traffic_counting());
    send_both();
    CHECK(p.e[0]->traffic_by_level()[0].messages == 0);
    CHECK(p.e[0]->traffic_by_method()[0].messages == 0);
    CHECK(p.e[0]->traffic_text() == "nothing sent");

    p.e[0]->traffic_count_on();
    p.e[1]->traffic_count_on();
    CHECK(p.e[0]->traffic_counting());
    send_both();
    CHECK(p.e[0]->traffic_by_level()[0].messages == 3);
    CHECK(p.e[0]->traffic_by_level()[0].bytes == 8 + 400 + 8);
    CHECK(p.e[0]->traffic_by_method()[0].messages == 3);
    CHECK(p.e[0]->traffic_by_method()[0].bytes == 8 + 400 + 8);
    // The receiver's control packets (the rendezvous cts) are no messages of its own.
    CHECK(p.e[1]->traffic_by_method()[0].messages == 0);
}
