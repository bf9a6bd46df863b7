// The shared-memory device within one process: two or three ShmMethod
// instances stand for the processes of one host, each with its own segment,
// driven by hand. Only counters and events decide a test, never timing.
//
// All instances share this process's probe word, which the last publish()
// sets: only the instance published last passes its peers' single-copy probe.
// World publishes in reverse rank order, so rank 0 can send in a single copy
// (its peers read its memory) and every other rank streams large payloads
// through the rings: both paths are covered between the same instances.
#include <catch2/catch.hpp>

#include <dirent.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "devices/shm/shm_method.hpp"

using namespace strata;
using strata::dev::shm::ShmMethod;

namespace {

// One message as the receiving engine would hold it: a buffer of at most
// `accept` bytes, offered in windows of at most `window` bytes.
struct Msg {
    int peer = -1;
    adi::Header header{};
    std::vector<std::byte> data;  // what was accepted (truncation: less than length)
    std::size_t window = 0;
    std::size_t windows = 0;       // landings handed out
    std::size_t discarded_calls = 0;  // on_landing_full after the buffer was full
    bool done = false;
};

// Collects what one method delivers, following the contract of adi/method.hpp.
class Sink final : public adi::Upcalls {
public:
    // Limits for the next messages: accept at most `accept` bytes of each
    // (0 = whole), in landings of at most `window` bytes (0 = whole).
    std::size_t accept = 0;
    std::size_t window = 0;
    bool refuse = false;  // accept nothing: a landing of capacity 0

    adi::Landing on_header(int peer, const adi::Header& h) override {
        headers.push_back(h);
        peers.push_back(peer);
        if (!adi::carries_payload(h.type)) return {};
        Msg& m = msgs.emplace_back();
        m.peer = peer;
        m.header = h;
        m.data.resize(refuse ? 0 : accept == 0 ? h.length : std::min<std::size_t>(accept, h.length));
        m.window = window == 0 ? m.data.size() : window;
        return next_landing(m, 0);
    }
    adi::Landing on_landing_full(int peer, const adi::Header& h, const adi::Landing& landing) override {
        Msg& m = msg_of(landing);
        CHECK(peer == m.peer);
        CHECK(h.tag == m.header.tag);
        CHECK(landing.capacity > 0);
        const std::size_t end = static_cast<std::size_t>(landing.dest - m.data.data()) + landing.capacity;
        if (end >= m.data.size()) ++m.discarded_calls;
        return next_landing(m, end);
    }
    void on_payload(int peer, const adi::Header& h, const adi::Landing& landing) override {
        Msg& m = msg_of(landing);
        CHECK(peer == m.peer);
        CHECK(h.tag == m.header.tag);
        CHECK_FALSE(m.done);
        m.done = true;
        ++landed;
    }
    void on_sent(std::uint64_t token) override { sent.push_back(token); }
    void on_peer_failed(int peer, const std::string& why) override { failures.emplace_back(peer, why); }

    std::vector<adi::Header> headers;
    std::vector<int> peers;
    std::deque<Msg> msgs;  // a deque: landings point into elements that must not move
    std::size_t landed = 0;
    std::vector<std::uint64_t> sent;
    std::vector<std::pair<int, std::string>> failures;

private:
    adi::Landing next_landing(Msg& m, std::size_t offset) {
        ++m.windows;
        adi::Landing l;
        l.cookie = &m;
        if (offset < m.data.size()) {
            l.dest = m.data.data() + offset;
            l.capacity = std::min(m.window, m.data.size() - offset);
        }
        return l;  // past the accepted bytes: capacity 0, the rest is discarded
    }
    Msg& msg_of(const adi::Landing& l) {
        REQUIRE(l.cookie != nullptr);
        return *static_cast<Msg*>(l.cookie);
    }
};

std::vector<std::byte> pattern(std::size_t n, unsigned seed) {
    std::vector<std::byte> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::byte>((i * 131 + seed * 7 + i / 251) % 253);
    return v;
}

adi::Header header(adi::Packet type, int tag, std::size_t length) {
    adi::Header h{};
    h.type = type;
    h.flags = 0x5a;
    h.reserved = 0xbeef;
    h.context = 77;
    h.source = 3;
    h.tag = tag;
    h.length = length;
    h.sender_req = 0x1122334455667788ull + static_cast<unsigned>(tag);
    h.receiver_req = 0x8877665544332211ull - static_cast<unsigned>(tag);
    return h;
}

// "" when equal, else where the bytes first differ (Catch would print every byte).
std::string diff(const std::vector<std::byte>& got, const std::vector<std::byte>& want) {
    if (got == want) return "";
    const std::size_t n = std::min(got.size(), want.size());
    std::size_t i = 0;
    while (i < n && got[i] == want[i]) ++i;
    std::string s = "got " + std::to_string(got.size()) + " bytes, want " + std::to_string(want.size());
    if (i < n) {
        s += "; first difference at byte " + std::to_string(i) + ": got " + std::to_string(static_cast<int>(got[i])) +
             ", want " + std::to_string(static_cast<int>(want[i]));
    }
    return s;
}

std::vector<std::byte> prefix(const std::vector<std::byte>& v, std::size_t n) {
    return std::vector<std::byte>(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(n));
}

bool same_header(const adi::Header& a, const adi::Header& b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Names this process's segments in /dev/shm ("/strata-<pid>-<rank>-<salt>").
std::vector<std::string> my_segments() {
    std::vector<std::string> found;
    const std::string prefix = "strata-" + std::to_string(getpid()) + "-";
    if (DIR* d = opendir("/dev/shm")) {
        while (dirent* e = readdir(d)) {
            if (std::string(e->d_name).rfind(prefix, 0) == 0) found.emplace_back(e->d_name);
        }
        closedir(d);
    }
    return found;
}

// Whether `fd` is readable within `ms` milliseconds.
int readable(int fd, int ms) {
    pollfd p{fd, POLLIN, 0};
    return ::poll(&p, 1, ms);
}

// n methods in one process. hosts[r] is rank r's "host" label; an empty one
// means rank r publishes no shm address at all (no instance).
struct World {
    std::vector<std::unique_ptr<ShmMethod>> m;
    std::vector<Sink> sink;
    std::vector<wireup::BusinessCard> cards;

    // `edit` may change the published cards before everyone connects.
    explicit World(std::vector<std::string> hosts,
                   const std::function<void(std::vector<wireup::BusinessCard>&)>& edit = {})
        : m(hosts.size()), sink(hosts.size()), cards(hosts.size()) {
        const int n = static_cast<int>(hosts.size());
        for (int r = n - 1; r >= 0; --r) {  // rank 0 last: see the top of the file
            auto& card = cards[static_cast<std::size_t>(r)];
            card.hostname = "localhost";
            card.host = hosts[static_cast<std::size_t>(r)];
            if (hosts[static_cast<std::size_t>(r)].empty()) continue;
            m[static_cast<std::size_t>(r)] = std::make_unique<ShmMethod>(adi::MethodContext{r, n, "unit-test-key", "localhost"});
            std::string error;
            REQUIRE(m[static_cast<std::size_t>(r)]->publish(card, error));
            REQUIRE(error.empty());
        }
        if (edit) edit(cards);
        // connect_world waits for the peers' segments: all connect at once.
        std::vector<std::string> errors(hosts.size());
        std::vector<int> ok(hosts.size(), 1);
        std::vector<std::thread> threads;
        for (int r = 0; r < n; ++r) {
            if (!m[static_cast<std::size_t>(r)]) continue;
            threads.emplace_back([this, r, &errors, &ok] {
                ok[static_cast<std::size_t>(r)] =
                    m[static_cast<std::size_t>(r)]->connect_world(adi::World{cards, {}, r},
                                                                errors[static_cast<std::size_t>(r)]) ? 1 : 0;
            });
        }
        for (auto& t : threads) t.join();
        for (int r = 0; r < n; ++r) {
            INFO("rank " << r << ": " << errors[static_cast<std::size_t>(r)]);
            REQUIRE(ok[static_cast<std::size_t>(r)] == 1);
        }
        // Every segment was mapped by all its peers: the last one removed its name.
        CHECK(my_segments().empty());
    }

    ~World() {
        for (auto& x : m) {
            if (x) x->shutdown();
        }
    }

    ShmMethod& at(int r) { return *m[static_cast<std::size_t>(r)]; }
    Sink& in(int r) { return sink[static_cast<std::size_t>(r)]; }

    adi::SendStatus send(int from, int to, const adi::Header& h, const std::vector<iovec>& iov, std::uint64_t token) {
        const auto st = at(from).send(to, h, std::span<const iovec>(iov.data(), iov.size()), token);
        REQUIRE(st != adi::SendStatus::failed);
        return st;
    }
    adi::SendStatus send(int from, int to, const adi::Header& h, const std::vector<std::byte>& data,
                         std::uint64_t token) {
        std::vector<iovec> iov;
        if (!data.empty()) iov.push_back(iovec{const_cast<std::byte*>(data.data()), data.size()});
        return send(from, to, h, iov, token);
    }

    void poll_all() {
        for (std::size_t r = 0; r < m.size(); ++r) {
            if (m[r]) m[r]->poll(sink[r]);
        }
    }
    template <class Done>
    void pump_until(Done&& done) {
        for (long i = 0; i < 2'000'000 && !done(); ++i) poll_all();
        REQUIRE(done());
        for (auto& s : sink) REQUIRE(s.failures.empty());
    }
};

}  // namespace

TEST_CASE("shm: an empty and a small packet arrive with their header intact") {
    World w({"h1", "h1"});
    const auto small = pattern(37, 1);
    const adi::Header h0 = header(adi::Packet::eager, 10, 0);
    const adi::Header h1 = header(adi::Packet::eager_sync, 11, small.size());
    const adi::Header h2 = header(adi::Packet::cts, 12, 123456);  // no payload whatever its length
    CHECK(w.send(0, 1, h0, std::vector<std::byte>{}, 0) == adi::SendStatus::done);
    CHECK(w.send(0, 1, h1, small, 0) == adi::SendStatus::done);
    CHECK(w.send(0, 1, h2, std::vector<iovec>{}, 0) == adi::SendStatus::done);
    // Only the receiver polls: copied packets need nothing from the sender.
    for (long i = 0; i < 1000 && w.in(1).headers.size() < 3; ++i) w.at(1).poll(w.in(1));
    Sink& s = w.in(1);
    REQUIRE(s.headers.size() == 3);
    CHECK(same_header(s.headers[0], h0));
    CHECK(same_header(s.headers[1], h1));
    CHECK(same_header(s.headers[2], h2));
    CHECK(s.peers == std::vector<int>{0, 0, 0});
    // on_payload for both payload packets, the empty one included; none for cts.
    REQUIRE(s.msgs.size() == 2);
    CHECK(s.landed == 2);
    CHECK(s.msgs[0].done);
    CHECK(s.msgs[0].data.empty());
    CHECK(diff(s.msgs[1].data, small) == "");
    CHECK(w.in(0).sent.empty());
    CHECK(w.at(1).poll(w.in(1)) == 0);
}

TEST_CASE("shm: packets of mixed sizes from one peer arrive in order and intact") {
    World w({"h1", "h1"});
    // Ring 128 KiB: a record holds at most 32 KiB, so a fragment carries
    // 32720 payload bytes after the header, 32760 without.
    const std::vector<std::size_t> sizes = {0,     1,     8,          40,     4096,    32719,   32720,     32721,
                                            32768, 65536, 100 * 1024, 3,      131072,  1 << 20, 100 * 1024 + 7,
                                            17,    0,     (1 << 20) + 13, 250000, 65440 + 32720};
    for (int from : {0, 1}) {
        const int to = 1 - from;
        DYNAMIC_SECTION("from rank " << from) {
            std::vector<std::vector<std::byte>> data;
            std::vector<adi::Header> hs;
            for (std::size_t i = 0; i < sizes.size(); ++i) {
                data.push_back(pattern(sizes[i], static_cast<unsigned>(i + 10 * from)));
                // Every third large one as rendezvous data: single copy from
                // rank 0, ring fragments from rank 1.
                const bool rndv = sizes[i] > 32720 && i % 3 == 0;
                hs.push_back(header(rndv ? adi::Packet::rndv_data : adi::Packet::eager, static_cast<int>(i), sizes[i]));
            }
            std::vector<std::uint64_t> queued;
            for (std::size_t i = 0; i < data.size(); ++i) {
                if (w.send(from, to, hs[i], data[i], 1000 + i) == adi::SendStatus::queued) queued.push_back(1000 + i);
            }
            CHECK_FALSE(queued.empty());  // 1 MiB cannot fit a 128 KiB ring
            w.pump_until([&] { return w.in(to).landed == data.size() && w.in(from).sent.size() == queued.size(); });
            Sink& s = w.in(to);
            REQUIRE(s.msgs.size() == data.size());
            for (std::size_t i = 0; i < data.size(); ++i) {
                INFO("packet " << i << " of " << sizes[i] << " bytes");
                CHECK(same_header(s.msgs[i].header, hs[i]));
                CHECK(s.msgs[i].done);
                CHECK(diff(s.msgs[i].data, data[i]) == "");
            }
            // Each queued send completed exactly once.
            auto tokens = w.in(from).sent;
            std::sort(tokens.begin(), tokens.end());
            CHECK(tokens == queued);
            CHECK_FALSE(w.at(from).has_queued_sends());
            if (from == 0) {
                CHECK(w.at(1).single_copy_reads() > 0);
            } else {
                CHECK(w.at(0).single_copy_reads() == 0);
            }
        }
    }
}

TEST_CASE("shm: a large rendezvous payload crosses in a single copy") {
    World w({"h1", "h1"});
    REQUIRE(w.at(1).single_copy_from(0));
    const auto big = pattern(1 << 20, 5);
    const auto reads0 = w.at(1).single_copy_reads();
    CHECK(w.send(0, 1, header(adi::Packet::rndv_data, 1, big.size()), big, 42) == adi::SendStatus::queued);
    // The sender alone cannot complete it: the receiver has not read it yet.
    for (int i = 0; i < 100; ++i) w.at(0).poll(w.in(0));
    CHECK(w.in(0).sent.empty());
    for (long i = 0; i < 1000 && w.in(1).landed == 0; ++i) w.at(1).poll(w.in(1));
    REQUIRE(w.in(1).landed == 1);
    CHECK(diff(w.in(1).msgs[0].data, big) == "");
    CHECK(w.at(1).single_copy_reads() > reads0);
    // The completion record goes back through the sender's inbox.
    for (long i = 0; i < 1000 && w.in(0).sent.empty(); ++i) w.at(0).poll(w.in(0));
    CHECK(w.in(0).sent == std::vector<std::uint64_t>{42});
    CHECK(w.in(1).failures.empty());

    SECTION("into 64 KiB landings, from scattered buffers") {
        // Windows that end inside the sender's iovecs, and iovecs of one byte.
        std::vector<std::vector<std::byte>> parts = {pattern(70000, 1), pattern(1, 2), pattern(300001, 3),
                                                     pattern(12345, 4), pattern(1, 5), pattern(700000, 6)};
        std::vector<iovec> iov;
        std::vector<std::byte> whole;
        for (auto& p : parts) {
            iov.push_back(iovec{p.data(), p.size()});
            whole.insert(whole.end(), p.begin(), p.end());
        }
        w.in(1).window = 65536;
        const auto before = w.at(1).single_copy_reads();
        CHECK(w.send(0, 1, header(adi::Packet::rndv_data, 2, whole.size()), iov, 43) == adi::SendStatus::queued);
        w.pump_until([&] { return w.in(1).landed == 2 && w.in(0).sent.size() == 2; });
        const Msg& m = w.in(1).msgs[1];
        CHECK(diff(m.data, whole) == "");
        CHECK(m.windows == (whole.size() + 65535) / 65536);
        CHECK(m.discarded_calls == 0);
        CHECK(w.at(1).single_copy_reads() - before >= m.windows);
        CHECK(w.in(0).sent.back() == 43);
    }
    SECTION("into a landing smaller than the payload") {
        w.in(1).accept = 100000;
        CHECK(w.send(0, 1, header(adi::Packet::rndv_data, 3, big.size()), big, 44) == adi::SendStatus::queued);
        w.pump_until([&] { return w.in(1).landed == 2 && w.in(0).sent.size() == 2; });
        const Msg& m = w.in(1).msgs[1];
        CHECK(m.done);
        CHECK(diff(m.data, prefix(big, 100000)) == "");
        CHECK(w.in(0).sent.back() == 44);
    }
    SECTION("into no landing at all") {
        // A zero-byte receive of a large message: on_header returns capacity 0.
        w.in(1).refuse = true;
        CHECK(w.send(0, 1, header(adi::Packet::rndv_data, 4, big.size()), big, 45) == adi::SendStatus::queued);
        w.pump_until([&] { return w.in(1).landed == 2 && w.in(0).sent.size() == 2; });
        CHECK(w.in(1).msgs[1].done);
        CHECK(w.in(1).msgs[1].windows == 1);
        CHECK(w.in(0).sent.back() == 45);
    }
}

TEST_CASE("shm: without single copy, large payloads stream through the ring") {
    World w({"h1", "h1"});
    // Rank 0 cannot read rank 1's memory (see the top of the file).
    REQUIRE_FALSE(w.at(0).single_copy_from(1));
    const auto big = pattern(1 << 20, 9);

    SECTION("into 64 KiB landings") {
        w.in(0).window = 65536;
        CHECK(w.send(1, 0, header(adi::Packet::rndv_data, 1, big.size()), big, 7) == adi::SendStatus::queued);
        w.pump_until([&] { return w.in(0).landed == 1 && w.in(1).sent.size() == 1; });
        const Msg& m = w.in(0).msgs[0];
        CHECK(diff(m.data, big) == "");
        CHECK(m.windows == 16);
        CHECK(m.discarded_calls == 0);
        CHECK(w.in(1).sent == std::vector<std::uint64_t>{7});
    }
    SECTION("into a landing smaller than the payload: the rest is discarded") {
        w.in(0).accept = 100 * 1024;
        CHECK(w.send(1, 0, header(adi::Packet::rndv_data, 2, big.size()), big, 8) == adi::SendStatus::queued);
        // A packet behind the truncated one must still be framed correctly
        // (the limit applies when its header arrives; 5000 bytes fit it).
        const auto after = pattern(5000, 10);
        w.send(1, 0, header(adi::Packet::eager, 3, after.size()), after, 9);
        w.pump_until([&] { return w.in(0).landed == 2; });
        const Msg& m = w.in(0).msgs[0];
        CHECK(m.done);
        CHECK(diff(m.data, prefix(big, 100 * 1024)) == "");
        CHECK(diff(w.in(0).msgs[1].data, after) == "");
        CHECK(same_header(w.in(0).msgs[1].header, header(adi::Packet::eager, 3, after.size())));
    }
    SECTION("truncated and in windows") {
        w.in(0).accept = 200000;
        w.in(0).window = 65536;
        CHECK(w.send(1, 0, header(adi::Packet::eager, 4, big.size()), big, 10) == adi::SendStatus::queued);
        w.pump_until([&] { return w.in(0).landed == 1; });
        const Msg& m = w.in(0).msgs[0];
        CHECK(diff(m.data, prefix(big, 200000)) == "");
        CHECK(m.windows == 5);  // 3 full windows, one of 3392 bytes, then capacity 0
        CHECK(m.discarded_calls == 1);
    }
    CHECK(w.at(0).single_copy_reads() == 0);
}

TEST_CASE("shm: a full ring queues sends until the receiver drains it") {
    World w({"h1", "h1"});
    constexpr std::size_t kCount = 300;
    std::vector<std::vector<std::byte>> data;
    for (std::size_t i = 0; i < kCount; ++i) data.push_back(pattern(i % 10 == 9 ? 20000 : 4000 + i, static_cast<unsigned>(i)));
    std::vector<adi::SendStatus> st;
    for (std::size_t i = 0; i < kCount; ++i) st.push_back(w.send(0, 1, header(adi::Packet::eager, static_cast<int>(i), data[i].size()), data[i], 500 + i));
    // The first packets fit; from the first queued one on, everything queues
    // behind it (order), and nothing more fits until the receiver reads.
    const auto first_queued = std::find(st.begin(), st.end(), adi::SendStatus::queued);
    REQUIRE(first_queued != st.end());
    CHECK(first_queued != st.begin());
    CHECK(std::all_of(first_queued, st.end(), [](adi::SendStatus s) { return s == adi::SendStatus::queued; }));
    CHECK(w.at(0).has_queued_sends());
    for (int i = 0; i < 10; ++i) w.at(0).poll(w.in(0));
    CHECK(w.in(0).sent.empty());
    CHECK(w.in(1).landed == 0);

    // The sender may sleep while it waits for room: the receiver's drain must
    // ring its doorbell.
    REQUIRE(w.at(0).sleep_prepare());
    CHECK(readable(w.at(0).wait_fd(), 0) == 0);
    w.at(1).poll(w.in(1));
    const std::size_t first_batch = w.in(1).landed;
    CHECK(first_batch == static_cast<std::size_t>(first_queued - st.begin()));
    CHECK(readable(w.at(0).wait_fd(), 5000) == 1);
    w.at(0).sleep_end();
    CHECK(readable(w.at(0).wait_fd(), 0) == 0);

    // Alternate receiver and sender until everything arrived.
    for (long i = 0; i < 100000 && (w.in(1).landed < kCount || w.at(0).has_queued_sends()); ++i) {
        w.at(1).poll(w.in(1));
        w.at(0).poll(w.in(0));
    }
    REQUIRE(w.in(1).landed == kCount);
    for (std::size_t i = 0; i < kCount; ++i) {
        INFO("packet " << i);
        CHECK(w.in(1).msgs[i].header.tag == static_cast<int>(i));
        CHECK(diff(w.in(1).msgs[i].data, data[i]) == "");
    }
    CHECK_FALSE(w.at(0).has_queued_sends());
    std::vector<std::uint64_t> expect;
    for (std::size_t i = static_cast<std::size_t>(first_queued - st.begin()); i < kCount; ++i) expect.push_back(500 + i);
    CHECK(w.in(0).sent == expect);  // in order, each once
    CHECK(w.in(0).failures.empty());
    CHECK(w.in(1).failures.empty());
}

TEST_CASE("shm: payload bytes left in the ring are never taken for a record") {
    // The reader finds records by their first word. Payloads here are made of
    // words that look like records (size 64, kind "packet"), and the sizes
    // shift record starts around for many laps of the 128 KiB ring, so every
    // line start lands on old payload bytes now and then: only the clearing of
    // consumed lines keeps the reader from taking them for records.
    World w({"h1", "h1"});
    std::vector<std::byte> fake(4096);
    const std::uint64_t word = 64 | std::uint64_t{1} << 32;
    for (std::size_t i = 0; i + 8 <= fake.size(); i += 8) std::memcpy(fake.data() + i, &word, 8);
    std::size_t sent = 0;
    std::size_t total = 0;
    for (int round = 0; round < 400; ++round) {
        const std::size_t n = 24 + static_cast<std::size_t>(round * 97 % 4000);
        const std::vector<std::byte> data(fake.begin(), fake.begin() + static_cast<std::ptrdiff_t>(n));
        REQUIRE(w.send(0, 1, header(adi::Packet::eager, round, n), data, 0) == adi::SendStatus::done);
        REQUIRE(w.send(0, 1, header(adi::Packet::eager, 100000 + round, 0), std::vector<std::byte>{}, 0) ==
                adi::SendStatus::done);
        sent += 2;
        total += n;
        // Read everything, then poll again: an old line must not look like news.
        for (int i = 0; i < 3; ++i) w.at(1).poll(w.in(1));
        REQUIRE(w.in(1).landed == sent);
    }
    CHECK(total > 6 * 131072);  // several laps
    Sink& s = w.in(1);
    REQUIRE(s.msgs.size() == sent);
    for (int round = 0; round < 400; ++round) {
        const auto& m = s.msgs[static_cast<std::size_t>(2 * round)];
        INFO("round " << round);
        CHECK(m.header.tag == round);
        CHECK(m.data.size() == 24 + static_cast<std::size_t>(round * 97 % 4000));
        CHECK(s.msgs[static_cast<std::size_t>(2 * round + 1)].header.tag == 100000 + round);
    }
    CHECK(w.at(1).poll(w.in(1)) == 0);
    CHECK_FALSE(w.at(1).busy());
}

TEST_CASE("shm: send_now sends all of a packet or nothing, and never overtakes queued ones") {
    World w({"h1", "h1"});
    const auto data = pattern(3000, 5);
    // Fill the ring with send_now alone: it refuses once a packet no longer fits.
    int accepted = 0;
    while (w.at(0).send_now(1, header(adi::Packet::eager, accepted, data.size()), data.data(), data.size())) {
        ++accepted;
        REQUIRE(accepted < 1000);
    }
    CHECK(accepted > 10);
    CHECK_FALSE(w.at(0).has_queued_sends());  // refused means nothing was kept
    // Too big for one record: refused whatever the room.
    const auto big = pattern(40000, 6);
    CHECK_FALSE(w.at(0).send_now(1, header(adi::Packet::eager, 9999, big.size()), big.data(), big.size()));
    // A normal send now queues; while it waits, send_now must refuse even
    // after room appears, or it would overtake it.
    REQUIRE(w.send(0, 1, header(adi::Packet::eager, accepted, data.size()), data, 77) == adi::SendStatus::queued);
    w.at(1).poll(w.in(1));
    CHECK(w.in(1).landed == static_cast<std::size_t>(accepted));
    CHECK_FALSE(w.at(0).send_now(1, header(adi::Packet::eager, -1, 0), nullptr, 0));
    w.at(0).poll(w.in(0));  // the queued packet goes
    CHECK(w.in(0).sent == std::vector<std::uint64_t>{77});
    CHECK(w.at(0).send_now(1, header(adi::Packet::eager, accepted + 1, 0), nullptr, 0));
    w.pump_until([&] { return w.in(1).landed == static_cast<std::size_t>(accepted) + 2; });
    for (int i = 0; i <= accepted + 1; ++i) {
        INFO("packet " << i);
        CHECK(w.in(1).msgs[static_cast<std::size_t>(i)].header.tag == i);
        if (i <= accepted) CHECK(diff(w.in(1).msgs[static_cast<std::size_t>(i)].data, data) == "");
    }
}

TEST_CASE("shm: a single-copy send queued behind a full ring completes once") {
    World w({"h1", "h1"});
    std::vector<std::vector<std::byte>> small;
    for (unsigned i = 0; i < 40; ++i) small.push_back(pattern(8000, i));
    for (unsigned i = 0; i < small.size(); ++i) w.send(0, 1, header(adi::Packet::eager, static_cast<int>(i), small[i].size()), small[i], 0);
    REQUIRE(w.at(0).has_queued_sends());
    const auto big = pattern(500000, 77);
    CHECK(w.send(0, 1, header(adi::Packet::rndv_data, 40, big.size()), big, 4242) == adi::SendStatus::queued);
    const auto reads = w.at(1).single_copy_reads();
    w.pump_until([&] { return w.in(1).landed == 41 && !w.in(0).sent.empty() && !w.at(0).has_queued_sends(); });
    for (int i = 0; i < 100; ++i) w.poll_all();
    CHECK(w.in(0).sent == std::vector<std::uint64_t>{4242});  // not once from the ring and again from the reader
    CHECK(diff(w.in(1).msgs[40].data, big) == "");
    CHECK(w.at(1).single_copy_reads() > reads);
    for (unsigned i = 0; i < small.size(); ++i) CHECK(diff(w.in(1).msgs[i].data, small[i]) == "");
}

TEST_CASE("shm: a payload in more iovecs than a single-copy descriptor holds streams through the ring") {
    World w({"h1", "h1"});
    std::vector<std::vector<std::byte>> parts;
    std::vector<iovec> iov;
    std::vector<std::byte> whole;
    for (unsigned i = 0; i < 100; ++i) parts.push_back(pattern(1000 + i * 37, i));
    parts.push_back({});  // an empty piece in between
    for (unsigned i = 0; i < 20; ++i) parts.push_back(pattern(5, i));
    for (auto& p : parts) {
        iov.push_back(iovec{p.data(), p.size()});
        whole.insert(whole.end(), p.begin(), p.end());
    }
    REQUIRE(whole.size() > 100000);
    const auto reads = w.at(1).single_copy_reads();
    w.send(0, 1, header(adi::Packet::rndv_data, 1, whole.size()), iov, 5);
    w.pump_until([&] { return w.in(1).landed == 1 && w.in(0).sent.size() == 1; });
    CHECK(diff(w.in(1).msgs[0].data, whole) == "");
    CHECK(w.at(1).single_copy_reads() == reads);
    CHECK(w.in(0).sent == std::vector<std::uint64_t>{5});

    // Up to the limit, with empty pieces, it goes by single copy.
    std::vector<iovec> iov64(iov.begin(), iov.begin() + 60);
    iov64.push_back(iovec{parts[100].data(), 0});
    iov64.insert(iov64.end(), iov.begin() + 60, iov.begin() + 63);
    REQUIRE(iov64.size() == 64);
    std::vector<std::byte> want;
    for (const iovec& v : iov64) want.insert(want.end(), static_cast<std::byte*>(v.iov_base), static_cast<std::byte*>(v.iov_base) + v.iov_len);
    w.in(1).window = 4096;  // windows that cut through the pieces
    w.send(0, 1, header(adi::Packet::rndv_data, 2, want.size()), iov64, 6);
    w.pump_until([&] { return w.in(1).landed == 2 && w.in(0).sent.size() == 2; });
    CHECK(diff(w.in(1).msgs[1].data, want) == "");
    CHECK(w.at(1).single_copy_reads() > reads);
}

TEST_CASE("shm: three processes exchange with each other at once") {
    World w({"h1", "h1", "h1"});
    CHECK(w.at(1).single_copy_from(0));
    CHECK(w.at(2).single_copy_from(0));
    CHECK_FALSE(w.at(2).single_copy_from(1));
    constexpr int kPer = 60;
    std::vector<std::vector<std::byte>> data[3][3];
    for (int from = 0; from < 3; ++from) {
        for (int to = 0; to < 3; ++to) {
            if (to == from) continue;
            for (int i = 0; i < kPer; ++i) {
                const std::size_t n = i % 13 == 0 ? 150000 + static_cast<std::size_t>(i) : static_cast<std::size_t>(i * 97 % 9000);
                data[from][to].push_back(pattern(n, static_cast<unsigned>(from * 1000 + to * 100 + i)));
            }
        }
    }
    // Interleave: every round each rank sends one packet to each peer.
    for (int i = 0; i < kPer; ++i) {
        for (int from = 0; from < 3; ++from) {
            for (int to = 0; to < 3; ++to) {
                if (to == from) continue;
                const auto& d = data[from][to][static_cast<std::size_t>(i)];
                const auto type = d.size() > 100000 ? adi::Packet::rndv_data : adi::Packet::eager;
                w.send(from, to, header(type, i, d.size()), d, static_cast<std::uint64_t>(1 + i));
            }
        }
        w.poll_all();
    }
    w.pump_until([&] {
        for (int r = 0; r < 3; ++r) {
            if (w.in(r).landed != 2 * kPer || w.at(r).has_queued_sends()) return false;
        }
        return true;
    });
    for (int to = 0; to < 3; ++to) {
        int next[3] = {0, 0, 0};
        for (const Msg& m : w.in(to).msgs) {
            const int from = m.peer;
            REQUIRE(from >= 0);
            REQUIRE(from < 3);
            REQUIRE(from != to);
            INFO("from " << from << " to " << to << " packet " << next[from]);
            CHECK(m.header.tag == next[from]);
            CHECK(diff(m.data, data[from][to][static_cast<std::size_t>(next[from])]) == "");
            ++next[from];
        }
    }
}

TEST_CASE("shm: reaches only other processes of the same host that published an address") {
    // Ranks 0 and 1 on h1, rank 2 alone on h2, rank 3 on h1 without shm.
    World w({"h1", "h1", "h2", ""});
    CHECK_FALSE(w.at(0).reaches(0));
    CHECK(w.at(0).reaches(1));
    CHECK_FALSE(w.at(0).reaches(2));
    CHECK_FALSE(w.at(0).reaches(3));
    CHECK_FALSE(w.at(0).reaches(-1));
    CHECK_FALSE(w.at(0).reaches(4));
    CHECK(w.at(1).reaches(0));
    CHECK_FALSE(w.at(1).reaches(1));
    CHECK_FALSE(w.at(1).reaches(3));
    for (int r = 0; r < 4; ++r) CHECK_FALSE(w.at(2).reaches(r));
    // The lone process has nothing to wait for and sleeps at once.
    CHECK(w.at(2).sleep_prepare());
    w.at(2).sleep_end();
    CHECK(w.at(2).poll(w.in(2)) == 0);
    // The pair still works.
    const auto d = pattern(100, 1);
    w.send(1, 0, header(adi::Packet::eager, 1, d.size()), d, 0);
    w.pump_until([&] { return w.in(0).landed == 1; });
    CHECK(diff(w.in(0).msgs[0].data, d) == "");
}

TEST_CASE("shm: processes of another account on the same host are left to other methods") {
    // Rank 2 claims another uid: ranks 0 and 1 must not count it as local (they
    // could not open each other's 0600 segments), and it must agree.
    World w({"h1", "h1", "h1"}, [](std::vector<wireup::BusinessCard>& cards) {
        for (auto& [method, address] : cards[2].addresses) {
            if (method == "shm") address = address.substr(0, address.rfind(',') + 1) + std::to_string(::getuid() + 1);
        }
    });
    CHECK(w.at(0).reaches(1));
    CHECK(w.at(1).reaches(0));
    for (int r : {0, 1}) CHECK_FALSE(w.at(r).reaches(2));
    for (int r = 0; r < 3; ++r) CHECK_FALSE(w.at(2).reaches(r));
    const auto d = pattern(64, 2);
    w.send(0, 1, header(adi::Packet::eager, 1, d.size()), d, 0);
    w.pump_until([&] { return w.in(1).landed == 1; });
    CHECK(diff(w.in(1).msgs[0].data, d) == "");
}

TEST_CASE("shm: a sleeping receiver's doorbell rings when a packet arrives") {
    World w({"h1", "h1"});
    const int fd = w.at(1).wait_fd();
    REQUIRE(fd >= 0);
    CHECK_FALSE(w.at(1).busy());
    REQUIRE(w.at(1).sleep_prepare());
    CHECK(readable(fd, 0) == 0);
    const auto d = pattern(64, 3);
    w.send(0, 1, header(adi::Packet::eager, 1, d.size()), d, 0);
    CHECK(readable(fd, 5000) == 1);
    w.at(1).sleep_end();
    CHECK(readable(fd, 0) == 0);  // sleep_end consumed the ring

    // A packet waits: no sleeping, and no doorbell needed.
    CHECK(w.at(1).busy());
    CHECK_FALSE(w.at(1).sleep_prepare());
    w.send(0, 1, header(adi::Packet::eager, 2, d.size()), d, 0);
    CHECK(readable(fd, 0) == 0);
    w.at(1).sleep_end();
    w.at(1).poll(w.in(1));
    REQUIRE(w.in(1).landed == 2);
    CHECK(w.in(1).msgs[1].header.tag == 2);

    // Empty again: sleeps. A process that is awake is not rung.
    CHECK(w.at(1).sleep_prepare());
    w.at(1).sleep_end();
    w.send(0, 1, header(adi::Packet::eager, 3, d.size()), d, 0);
    CHECK(readable(fd, 0) == 0);
    CHECK_FALSE(w.at(1).sleep_prepare());
    w.at(1).sleep_end();
    w.at(1).poll(w.in(1));
    CHECK(w.in(1).landed == 3);

    // A single-copy send wakes the receiver too, and its completion wakes the sender.
    const auto big = pattern(300000, 4);
    REQUIRE(w.at(1).sleep_prepare());
    CHECK(w.send(0, 1, header(adi::Packet::rndv_data, 4, big.size()), big, 99) == adi::SendStatus::queued);
    CHECK(readable(fd, 5000) == 1);
    w.at(1).sleep_end();
    REQUIRE(w.at(0).sleep_prepare());
    w.at(1).poll(w.in(1));
    CHECK(diff(w.in(1).msgs.back().data, big) == "");
    CHECK(readable(w.at(0).wait_fd(), 5000) == 1);
    w.at(0).sleep_end();
    w.at(0).poll(w.in(0));
    CHECK(w.in(0).sent == std::vector<std::uint64_t>{99});
}

TEST_CASE("shm: shutdown leaves nothing in /dev/shm") {
    {
        World w({"h1", "h1", "h1"});
        const auto d = pattern(10, 1);
        w.send(2, 0, header(adi::Packet::eager, 1, d.size()), d, 0);
        w.pump_until([&] { return w.in(0).landed == 1; });
        for (int r = 0; r < 3; ++r) w.at(r).shutdown();
        CHECK(w.at(0).wait_fd() == -1);
    }
    CHECK(my_segments().empty());
}

TEST_CASE("shm: a reader that keeps finding packets never takes a consumed line for a new one") {
    // Consumed lines are cleared and handed back in batches: when a poll finds
    // nothing, or a quarter of the ring is held. Here the writer refills all
    // the room it has before every poll, so every poll finds packets: the
    // quarter rule alone must hand lines back, and before the reader could
    // come round to a consumed, uncleared line.
    World w({"h1", "h1"});
    const auto d = pattern(16, 3);  // one 64-byte line per record
    int sent = 0;
    for (int step = 0; step < 40; ++step) {
        // Odd steps fill the ring; even ones leave room, so record starts move
        // against the quarter marks.
        const int before = sent;
        const int most = step % 2 == 0 ? 1000 + step : 1 << 30;
        while (sent - before < most &&
               w.at(0).send_now(1, header(adi::Packet::eager, sent, d.size()), d.data(), d.size())) {
            ++sent;
        }
        INFO("step " << step);
        REQUIRE(sent > before);  // room came back
        REQUIRE(w.at(1).poll(w.in(1)) == sent - before);
        REQUIRE(w.in(1).landed == static_cast<std::size_t>(sent));
    }
    CHECK(sent > 8 * 131072 / 64);  // many laps of the ring
    for (int i = 0; i < sent; ++i) {
        if (w.in(1).msgs[static_cast<std::size_t>(i)].header.tag != i) FAIL("packet " << i << " out of order");
    }
    // An idle poll hands back everything: the whole ring is free again.
    CHECK(w.at(1).poll(w.in(1)) == 0);
    int room = 0;
    while (w.at(0).send_now(1, header(adi::Packet::eager, sent + room, d.size()), d.data(), d.size())) ++room;
    CHECK(room == 131072 / 64);
}

TEST_CASE("shm: poll_peer reads only the ring of the peer asked for") {
    World w({"h1", "h1", "h1"});
    const auto d = pattern(100, 4);
    w.send(1, 0, header(adi::Packet::eager, 1, d.size()), d, 0);
    w.send(2, 0, header(adi::Packet::eager, 2, d.size()), d, 0);
    CHECK(w.at(0).poll_peer(1, w.in(0)) == 1);
    REQUIRE(w.in(0).landed == 1);
    CHECK(w.in(0).msgs[0].peer == 1);
    CHECK(w.at(0).poll_peer(1, w.in(0)) == 0);
    CHECK(w.at(0).busy());  // rank 2's packet still waits
    CHECK(w.at(0).poll(w.in(0)) == 1);
    CHECK(w.in(0).msgs[1].peer == 2);
    CHECK(diff(w.in(0).msgs[1].data, d) == "");
}

TEST_CASE("shm: a large single copy is shared: the waiting sender copies chunks into the landing too") {
    // The sender writes into the receiver's memory: rank 0 must pass its probe
    // of rank 1 too, so rank 1's card names the probe value that rank 0 left
    // in this process's probe word (see the top of the file).
    World w({"h1", "h1"}, [](std::vector<wireup::BusinessCard>& cards) {
        auto field = [](const std::string& a, int i) {
            std::size_t at = 0;
            for (int k = 0; k < i; ++k) at = a.find(',', at) + 1;
            return std::pair{at, a.find(',', at) - at};
        };
        std::string& one = cards[1].addresses.at(0).second;
        const std::string& zero = cards[0].addresses.at(0).second;
        const auto [from, len] = field(zero, 3);
        const auto [to, old_len] = field(one, 3);
        one.replace(to, old_len, zero.substr(from, len));
    });
    REQUIRE(w.at(1).single_copy_from(0));
    REQUIRE(w.at(0).single_copy_from(1));
    std::uint64_t token = 100;
    // Sizes around the chunk (128 KiB): the smallest shared one, one ending
    // inside a chunk, a large one.
    for (std::size_t n : {std::size_t{256 * 1024}, std::size_t{(1 << 20) + 13}, std::size_t{8 << 20}}) {
        INFO("payload " << n);
        const auto big = pattern(n, static_cast<unsigned>(n % 251));
        const auto reads = w.at(1).single_copy_reads();
        const auto writes = w.at(0).shared_writes();
        const std::size_t landed = w.in(1).landed;
        const std::size_t sent = w.in(0).sent.size();
        ++token;
        REQUIRE(w.send(0, 1, header(adi::Packet::rndv_data, 7, n), big, token) == adi::SendStatus::queued);
        // Both ends poll at once, as two processes would.
        std::thread sender([&] {
            for (long i = 0; i < 20'000'000 && w.in(0).sent.size() == sent; ++i) w.at(0).poll(w.in(0));
        });
        for (long i = 0; i < 20'000'000 && w.in(1).landed == landed; ++i) w.at(1).poll(w.in(1));
        sender.join();
        REQUIRE(w.in(1).landed == landed + 1);
        REQUIRE(w.in(0).sent.size() == sent + 1);
        CHECK(w.in(0).sent.back() == token);
        CHECK(diff(w.in(1).msgs.back().data, big) == "");
        // Every chunk was copied once, by one end or the other.
        const std::size_t chunks = (n + 128 * 1024 - 1) / (128 * 1024);
        CHECK((w.at(1).single_copy_reads() - reads) + (w.at(0).shared_writes() - writes) == chunks);
        CHECK(w.in(0).failures.empty());
        CHECK(w.in(1).failures.empty());
    }
}
