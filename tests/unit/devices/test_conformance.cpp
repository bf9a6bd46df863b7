// The device conformance suite: what adi/method.hpp promises, checked the
// same way on every built method (conformance.hpp: subjects()). Each case runs
// once per method in a section named after it (`unit-devices "<case>" -c tcp`
// runs one); the self method runs the cases that make sense for a rank
// talking to itself. A method this machine cannot run (a libfabric provider
// it lacks) is reported by a SKIPPED warning, never passed in silence.
#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "devices/methods.hpp"
#include "conformance.hpp"

using namespace strata;
using namespace strata::dev::testing;

namespace {

// Runs `body` on a new world of every built method (but self unless
// `self_too`), each in its own section.
void each_subject(bool self_too, const std::function<void(const Subject&, World&)>& body) {
    for (const Subject& s : subjects()) {
        if (s.processes == 1 && !self_too) continue;
        DYNAMIC_SECTION(s.name) {
            std::string skip;
            const std::unique_ptr<World> w = s.make(skip);
            if (!w) {
                WARN("SKIPPED " << s.name << ": " << skip);
                continue;
            }
            REQUIRE(w->method(0).caps().name == s.method);
            body(s, *w);
        }
    }
}

void each_method(const std::function<void(World&)>& body) {
    each_subject(true, [&](const Subject&, World& w) { body(w); });
}
// The methods between two processes (all but self).
void each_pair(const std::function<void(World&)>& body) {
    each_subject(false, [&](const Subject&, World& w) { body(w); });
}
// Runs `body` once from each rank of `w`, each in its own section: the two
// ends of a pair may send differently (shm: by single copy from rank 0,
// through the ring from rank 1).
void each_end(World& w, const std::function<void(int from)>& body) {
    for (int from = 0; from < w.size(); ++from) {
        DYNAMIC_SECTION("from rank " << from) { body(from); }
    }
}

// Sizes around every method's boundaries: shm's 32 KiB records (32720 payload
// bytes after the header) in a 128 KiB ring; tcp's 64 KiB staging buffer and
// 40-byte header; ofi's inject size and 16 KiB bounce buffers; and payloads
// far beyond all of them, which take the rendezvous paths.
// (98160: three 32720-byte ring fragments.)
const std::vector<std::size_t> kSizes = {0,      1,      8,      17,     24,      40,      3,       4056,
                                         4096,   16344,  16384,  16385,  16424,   32719,   32720,   32721,
                                         32768,  98160,  65495,  65496,  65536,   65537,   100000,  102400,
                                         102407, 131072, 200000, 250000, 1048576, 1048583, 1048589, 0};

// Packets one rank sends, kept to check what arrives.
struct Packets {
    std::vector<adi::Header> headers;
    std::vector<std::vector<std::byte>> data;  // empty for header-only packets

    void add(adi::Packet type, std::size_t n, unsigned seed) {
        headers.push_back(header(type, static_cast<int>(headers.size()), n));
        data.push_back(adi::carries_payload(type) ? pattern(n, seed) : std::vector<std::byte>{});
    }
    // Every size of kSizes; the large ones now and then as rendezvous data,
    // and a header-only packet (rts, `length` without a payload) after every
    // fourth.
    void add_mixed(unsigned seed) {
        for (std::size_t i = 0; i < kSizes.size(); ++i) {
            add(kSizes[i] > 32720 && i % 3 == 0 ? adi::Packet::rndv_data : adi::Packet::eager, kSizes[i],
                seed + static_cast<unsigned>(i));
            if (i % 4 == 3) add(adi::Packet::rts, kSizes[i], 0);
        }
    }
    std::size_t payloads() const {
        return static_cast<std::size_t>(std::count_if(
            headers.begin(), headers.end(), [](const adi::Header& h) { return adi::carries_payload(h.type); }));
    }
    void send(World& w, int from) const {
        for (std::size_t i = 0; i < headers.size(); ++i) w.send(from, w.peer(from), headers[i], data[i], 1 + i);
    }
    // All of them arrived at `r` from `from`, intact and in order.
    void check(const Recorder& r, int from) const {
        REQUIRE(r.headers.size() == headers.size());
        REQUIRE(r.msgs.size() == payloads());
        std::size_t k = 0;
        for (std::size_t i = 0; i < headers.size(); ++i) {
            INFO("packet " << i << " of " << data[i].size() << " bytes");
            CHECK(r.peers[i] == from);
            CHECK(same_header(r.headers[i], headers[i]));
            if (!adi::carries_payload(headers[i].type)) continue;
            const Msg& m = r.msgs[k++];
            CHECK(m.done);
            CHECK(diff(m.data, data[i]) == "");
        }
    }
};

// What one payload must look like at its receiver: `kept` landed through
// `windows` landings, `discarded` of them handed out for bytes past the kept ones.
void check_msg(const Msg& m, const std::vector<std::byte>& kept, std::size_t windows, std::size_t discarded) {
    CHECK(m.done);
    CHECK(diff(m.data, kept) == "");
    CHECK(m.windows == windows);
    CHECK(m.discarded_calls == discarded);
}

// Landings of `window` bytes that a payload of n bytes fills: at least one.
std::size_t windows_for(std::size_t n, std::size_t window) { return n == 0 ? 1 : (n + window - 1) / window; }

void landings_small(World& w, int from) {
    const int to = w.peer(from);
    w.in(to).limits.window = 1000;
    const auto big = pattern(200000, 3);
    const auto small = pattern(5000, 4);
    w.send(from, to, header(adi::Packet::rndv_data, 1, big.size()), big, 1);
    w.send(from, to, header(adi::Packet::eager, 2, small.size()), small, 2);
    w.pump_landed(from, to, 2);
    check_msg(w.in(to).msgs[0], big, 200, 0);
    check_msg(w.in(to).msgs[1], small, 5, 0);
}

// A landing size that divides neither the payloads nor any buffer of a method.
void landings_odd(World& w, int from) {
    const int to = w.peer(from);
    w.in(to).limits.window = 10007;
    Packets p;
    p.add_mixed(5);
    p.send(w, from);
    w.pump_landed(from, to, p.payloads());
    p.check(w.in(to), from);
    for (const Msg& m : w.in(to).msgs) {
        INFO("payload of " << m.header.length << " bytes");
        CHECK(m.windows == windows_for(m.header.length, 10007));
        CHECK(m.discarded_calls == 0);
    }
}

// Landings that end inside the sender's iovecs, and iovecs of one byte.
void landings_scattered(World& w, int from) {
    const int to = w.peer(from);
    const std::vector<std::vector<std::byte>> parts = {pattern(70000, 1), pattern(1, 2), pattern(300001, 3),
                                                       pattern(12345, 4), pattern(1, 5), pattern(700000, 6)};
    std::vector<iovec> iov;
    std::vector<std::byte> whole;
    for (const auto& part : parts) {
        iov.push_back(iovec{const_cast<std::byte*>(part.data()), part.size()});
        whole.insert(whole.end(), part.begin(), part.end());
    }
    w.in(to).limits.window = 65536;
    w.send(from, to, header(adi::Packet::rndv_data, 2, whole.size()), iov, 43);
    w.pump_landed(from, to, 1);
    check_msg(w.in(to).msgs[0], whole, windows_for(whole.size(), 65536), 0);
}

// No on_landing_full after the last landing: no payload remains.
void landings_exact(World& w, int from) {
    const int to = w.peer(from);
    w.in(to).limits.window = 65536;
    const auto big = pattern(1 << 20, 9);
    w.send(from, to, header(adi::Packet::eager, 1, big.size()), big, 7);
    w.pump_landed(from, to, 1);
    check_msg(w.in(to).msgs[0], big, 16, 0);
}

// A large payload that the receiver takes only part of.
struct Discard {
    const char* name;
    Limits limits;        // for the payload; the packet after it is taken whole
    std::size_t kept;     // of the payload
    std::size_t windows;  // landings handed out for it
};
const Discard kDiscards[] = {
    // The landing, then one of capacity 0 for the rest.
    {"into one landing smaller than the payload", {100000, 0}, 100000, 2},
    // A zero-byte receive of a large message: on_header returns capacity 0.
    {"into no landing at all", {0, 0}, 0, 1},
    // 3 full landings, one of 3392 bytes, then capacity 0.
    {"into 64 KiB landings, fewer than the payload fills", {200000, 65536}, 200000, 5},
};

void discard(World& w, int from, adi::Packet type, const Discard& d) {
    const int to = w.peer(from);
    const auto big = pattern(1 << 20, 9);
    const auto after = pattern(5000, 10);
    w.in(to).next = {d.limits};
    w.send(from, to, header(type, 1, big.size()), big, 8);
    // The packet behind it must still be framed correctly.
    w.send(from, to, header(adi::Packet::eager, 2, after.size()), after, 9);
    w.pump_landed(from, to, 2);
    check_msg(w.in(to).msgs[0], prefix(big, d.kept), d.windows, d.kept > 0 ? 1 : 0);
    check_msg(w.in(to).msgs[1], after, 1, 0);
    CHECK(same_header(w.in(to).msgs[1].header, header(adi::Packet::eager, 2, after.size())));
    check_completed(w.in(from));
}

// Payloads of many sizes, each kept up to 2500 bytes in landings of 1000.
void truncate_all(World& w, int from) {
    const int to = w.peer(from);
    w.in(to).limits = Limits{2500, 1000};
    const std::vector<std::size_t> sizes = {100000, 8000, 2500, 2499, 0, 1 << 20, 3000};
    std::vector<std::vector<std::byte>> data;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        data.push_back(pattern(sizes[i], static_cast<unsigned>(i + 5)));
        const auto type = sizes[i] > 16384 ? adi::Packet::rndv_data : adi::Packet::eager;
        w.send(from, to, header(type, static_cast<int>(i), sizes[i]), data[i], 1 + i);
    }
    w.pump_landed(from, to, sizes.size());
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        INFO("payload of " << sizes[i] << " bytes");
        CHECK(w.in(to).msgs[i].header.tag == static_cast<int>(i));
        // 1000 + 1000 + 500, then capacity 0 when more remains.
        const bool cut = sizes[i] > 2500;
        check_msg(w.in(to).msgs[i], prefix(data[i], std::min<std::size_t>(sizes[i], 2500)),
                  cut ? 4 : windows_for(sizes[i], 1000), cut ? 1 : 0);
    }
    check_completed(w.in(from));
}

// send_now from `from` to `to` until the method refuses, or 16 MiB (self
// never does); each buffer is overwritten as soon as send_now took it.
// Returns what it took.
std::vector<std::vector<std::byte>> send_now_fill(World& w, int from, int to) {
    std::vector<std::vector<std::byte>> took;
    std::vector<std::byte> buf;
    for (std::size_t bytes = 0; bytes < (16u << 20); bytes += buf.size()) {
        const int tag = static_cast<int>(took.size());
        buf = pattern(16000 + static_cast<std::size_t>(tag % 7) * 13, static_cast<unsigned>(tag));
        if (!w.method(from).send_now(to, header(adi::Packet::eager, tag, buf.size()), buf.data(), buf.size())) break;
        took.push_back(buf);
        std::fill(buf.begin(), buf.end(), std::byte{0xee});
        // It kept what the link did not take: what follows must wait behind it.
        if (w.method(from).has_queued_sends()) {
            CHECK_FALSE(w.method(from).send_now(to, header(adi::Packet::eager, -1, 0), nullptr, 0));
            break;
        }
    }
    return took;
}

// A normal send (tag `tag`) after what send_now took. While it is queued
// send_now refuses, even once the receiver has made room. Returns its payload.
std::vector<std::byte> send_behind(World& w, int from, int to, int tag) {
    auto next = pattern(3000, 77);
    if (w.send(from, to, header(adi::Packet::eager, tag, next.size()), next, 77) == adi::SendStatus::queued) {
        CHECK_FALSE(w.method(from).send_now(to, header(adi::Packet::eager, -1, 0), nullptr, 0));
        w.method(to).poll(w.in(to));
        if (w.method(from).has_queued_sends()) {
            CHECK_FALSE(w.method(from).send_now(to, header(adi::Packet::eager, -1, 0), nullptr, 0));
        }
    }
    return next;
}

}  // namespace

TEST_CASE("conformance: every method in adi's table is a subject of the suite") {
    std::vector<std::string> table;
    for (const dev::MethodEntry& e : dev::method_table()) table.emplace_back(e.name);
    std::vector<std::string> tested;
    for (const Subject& s : subjects()) {
        if (tested.empty() || tested.back() != s.method) tested.emplace_back(s.method);
    }
    CHECK(tested == table);
}

TEST_CASE("conformance: a method names itself and reaches its peer, never itself (self: only itself)") {
    each_method([](World& w) {
        for (int r = 0; r < w.size(); ++r) {
            const adi::Capabilities& caps = w.method(r).caps();
            CHECK(caps.eager_limit > 0);
            CHECK(caps.poll_cost >= 1);
            CHECK(w.method(r).reaches(w.peer(r)));
            if (w.size() == 2) CHECK_FALSE(w.method(r).reaches(r));
        }
        if (w.size() == 1) CHECK_FALSE(w.method(0).reaches(1));
    });
}

TEST_CASE("conformance: empty, small and header-only packets arrive with their header intact") {
    each_method([](World& w) {
        const int to = w.peer(0);
        Packets p;
        p.add(adi::Packet::eager, 0, 0);
        p.add(adi::Packet::eager_sync, 37, 1);
        p.add(adi::Packet::cts, 123456, 0);  // no payload, whatever its length
        p.add(adi::Packet::sync_ack, 0, 0);
        p.add(adi::Packet::eager, 1, 2);
        p.send(w, 0);
        w.pump_until([&] { return w.in(to).headers.size() == 5 && w.in(0).sent.size() == w.in(0).queued.size(); });
        p.check(w.in(to), 0);
        // on_payload for both payload packets, the empty one included; none for the others.
        CHECK(w.in(to).landed == 3);
        CHECK(w.in(to).msgs[0].data.empty());
        CHECK(w.in(to).msgs[0].windows == 1);
        check_completed(w.in(0));
        // Nothing is delivered twice.
        for (int i = 0; i < 100; ++i) w.poll_all();
        CHECK(w.in(to).headers.size() == 5);
        CHECK(w.in(to).landed == 3);
    });
}

TEST_CASE("conformance: packets of every size arrive whole and in order, and every send completes once") {
    each_method([](World& w) {
        each_end(w, [&](int from) {
            const int to = w.peer(from);
            Packets p;
            p.add_mixed(static_cast<unsigned>(10 * from));
            p.send(w, from);
            w.pump_landed(from, to, p.payloads());
            p.check(w.in(to), from);
            check_completed(w.in(from));
            CHECK_FALSE(w.method(from).has_queued_sends());
        });
    });
}

TEST_CASE("conformance: both ranks send at once, and each one's packets keep their order") {
    each_pair([](World& w) {
        // Small packets chase large payloads, with header-only packets between.
        const std::vector<std::size_t> sizes = {0, 1,     40, 4056,  16385,  100000, (1 << 20) + 7,
                                                8, 65536, 3,  16424, 200000, 16384,  4096};
        Packets p[2];
        for (int from = 0; from < 2; ++from) {
            for (unsigned i = 0; i < 120; ++i) {
                const std::size_t n = sizes[i % sizes.size()];
                const adi::Packet type = i % 5 == 4  ? adi::Packet::rts
                                         : n > 16384 ? adi::Packet::rndv_data
                                                     : adi::Packet::eager;
                p[from].add(type, n, i * 2 + static_cast<unsigned>(from));
            }
        }
        p[0].send(w, 0);
        p[1].send(w, 1);
        w.pump_until([&] {
            for (int r = 0; r < 2; ++r) {
                if (w.in(r).landed < p[1 - r].payloads() || w.in(r).sent.size() < w.in(r).queued.size()) return false;
            }
            return true;
        });
        for (int to = 0; to < 2; ++to) {
            INFO("to rank " << to);
            p[1 - to].check(w.in(to), 1 - to);
            check_completed(w.in(to));
        }
    });
}

TEST_CASE("conformance: a large payload lands whole in one landing") {
    each_method([](World& w) {
        each_end(w, [&](int from) {
            const int to = w.peer(from);
            const auto big = pattern((3 << 20) + 5, 2);
            w.send(from, to, header(adi::Packet::rndv_data, 1, big.size()), big, 9);
            w.pump_landed(from, to, 1);
            const Msg& m = w.in(to).msgs[0];
            CHECK(diff(m.data, big) == "");
            CHECK(m.windows == 1);  // it fit: no on_landing_full
            check_completed(w.in(from));
        });
    });
}

TEST_CASE("conformance: a payload larger than its landing goes on through on_landing_full, every byte in order") {
    each_method([](World& w) {
        each_end(w, [&](int from) {
            SECTION("in 1000-byte landings, and a small packet after it") { landings_small(w, from); }
            SECTION("in 10007-byte landings, packets of every size") { landings_odd(w, from); }
            SECTION("in 64 KiB landings, from scattered buffers") { landings_scattered(w, from); }
            SECTION("in landings that divide it exactly") { landings_exact(w, from); }
            check_completed(w.in(from));
        });
    });
}

TEST_CASE("conformance: what the landings cannot take is discarded, and the next packet is intact") {
    each_method([](World& w) {
        each_end(w, [&](int from) {
            for (const adi::Packet type : {adi::Packet::rndv_data, adi::Packet::eager}) {
                for (const Discard& d : kDiscards) {
                    DYNAMIC_SECTION(d.name << ", as " << (type == adi::Packet::eager ? "eager" : "rendezvous")
                                           << " data") {
                        discard(w, from, type, d);
                    }
                }
            }
        });
    });
}

TEST_CASE("conformance: every payload truncated in small landings, whatever its size") {
    each_method([](World& w) { each_end(w, [&](int from) { truncate_all(w, from); }); });
}

TEST_CASE("conformance: many packets sent before the receiver polls all arrive, in order") {
    each_method([](World& w) {
        const int to = w.peer(0);
        Packets p;
        for (unsigned i = 0; i < 300; ++i) p.add(adi::Packet::eager, i % 10 == 9 ? 20000 : 4000 + i, i);
        p.send(w, 0);
        // The sender alone makes what progress it can.
        for (int i = 0; i < 10; ++i) w.method(0).poll(w.in(0));
        w.pump_landed(0, to, 300);
        p.check(w.in(to), 0);
        check_completed(w.in(0));
        CHECK_FALSE(w.method(0).has_queued_sends());
    });
}

TEST_CASE("conformance: send_now takes a whole packet or nothing, frees the buffer at once, and never overtakes") {
    each_subject(true, [](const Subject& s, World& w) {
        const int to = w.peer(0);
        link_open(w, 0, to);
        std::vector<std::vector<std::byte>> want = send_now_fill(w, 0, to);
        // The shortcut is optional: a method without it refuses every packet.
        CHECK((s.sends_now ? want.size() > 1 : want.empty()));
        want.push_back(send_behind(w, 0, to, static_cast<int>(want.size())));
        w.pump_until([&] { return w.in(to).landed == want.size() && !w.method(0).has_queued_sends(); });
        // Drained: it takes a packet again.
        const int tag = static_cast<int>(want.size());
        CHECK(w.method(0).send_now(to, header(adi::Packet::eager, tag, 0), nullptr, 0) == s.sends_now);
        if (s.sends_now) want.emplace_back();
        w.pump_until([&] { return w.in(to).landed == want.size(); });
        check_in_order(w.in(to), want);
        check_completed(w.in(0));  // nothing of send_now's reports a token
    });
}

TEST_CASE("conformance: an idle receiver may sleep, and a packet that arrives wakes it") {
    each_method([](World& w) {
        const int to = w.peer(0);
        adi::Method& m = w.method(to);
        const auto d = pattern(64, 3);
        for (int round = 0; round < 3; ++round) {
            INFO("round " << round);
            REQUIRE(m.sleep_prepare());  // nothing to poll
            if (m.wait_fd() >= 0) CHECK(readable(m.wait_fd(), 0) == 0);
            w.send(0, to, header(adi::Packet::eager, round, d.size()), d, 1);
            // The first round of tcp wakes on the connection the send opened.
            // Without a descriptor the engine sleeps a bounded time and polls
            // again: the packet only must not be lost.
            if (m.wait_fd() >= 0) CHECK(readable(m.wait_fd(), 10000) == 1);
            m.sleep_end();
            w.pump_until([&] { return w.in(to).landed == static_cast<std::size_t>(round) + 1; });
            CHECK(diff(w.in(to).msgs.back().data, d) == "");
        }
    });
}
