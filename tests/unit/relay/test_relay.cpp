// The relay engine (relay/relay.hpp) with two relays in this process and
// ranks played by blocking sockets on loopback.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>

#include "relay/dial.hpp"
#include "relay_fixture.hpp"

using namespace strata;
using namespace strata::test;
using relay::Kind;
using relay::kWindow;

namespace {

const std::string kKey = "0123456789abcdef0123456789abcdef";

}  // namespace

TEST_CASE("relay: a connection with another job's key is refused", "[relay]") {
    RunningRelay r(kKey);
    const Handshake h = handshake(r.port(), "another key", open_of(Kind::attach, 1, 0));
    CHECK_FALSE(h.relay_proved);
    CHECK(h.answer == 0);
    const std::string line = r.log.wait_for("refused a connection from 127.0.0.1:");
    CHECK(line.find("does not match the job key") != std::string::npos);
    ::close(h.fd);
    const Handshake good = handshake(r.port(), kKey, open_of(Kind::attach, 1, 0));
    CHECK(good.relay_proved);
    CHECK(good.answer == 1);
    ::close(good.fd);
}

TEST_CASE("relay: bytes that are not an Open are refused and logged", "[relay]") {
    RunningRelay r(kKey);
    relay::Open o = open_of(Kind::attach, 1, 0);
    auto bytes = relay::open_encode(o);
    bytes[0] ^= 0xff;
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(kLoopback);
    a.sin_port = htons(static_cast<std::uint16_t>(r.port()));
    REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    REQUIRE(write_all(fd, bytes.data(), bytes.size()));
    CHECK(read_end(fd) == 0);
    CHECK(r.log.wait_for("not a relay handshake").find("127.0.0.1:") != std::string::npos);
    ::close(fd);
}

TEST_CASE("relay: a relay that dials a relay of another key refuses it, and the pair ends", "[relay]") {
    RunningRelay a(kKey);
    RunningRelay b("the key of another job");
    relay::Open o = open_of(Kind::pair, 0, 1);
    o.relay = b.endpoint();
    const Handshake h = handshake(a.port(), kKey, o);
    REQUIRE(h.answer == 1);
    CHECK(read_end(h.fd) <= 0);
    const std::string line = a.log.wait_for("cannot link to relay 127.0.0.1:" + std::to_string(b.port()));
    CHECK(line.find("did not prove the job key") != std::string::npos);
    CHECK(a.stats().links == 0);
    ::close(h.fd);
}

TEST_CASE("relay: a pair carries megabytes both ways at once, intact, and closes end to end", "[relay]") {
    RunningRelay a(kKey);
    RunningRelay b(kKey);
    const int d_attach = attach(b.port(), kKey, 1);
    const Pair p = pair_open(a, b, kKey, 0, 1, d_attach);
    constexpr std::size_t kBytes = 6 * 1024 * 1024;
    bool here_ok = false;
    std::thread here([&] { here_ok = exchange(p.here, 11, 22, kBytes); });
    const bool there_ok = exchange(p.there, 22, 11, kBytes);
    here.join();
    CHECK(here_ok);
    CHECK(there_ok);
    // The rank at A ends its side: the other reads what was sent, then EOF,
    // and can still answer.
    const std::uint8_t last[] = {'b', 'y', 'e'};
    REQUIRE(write_all(p.here, last, 3));
    ::shutdown(p.here, SHUT_WR);
    std::uint8_t got[3] = {};
    REQUIRE(read_all(p.there, got, 3));
    CHECK(std::memcmp(got, last, 3) == 0);
    CHECK(read_end(p.there) == 0);
    REQUIRE(write_all(p.there, last, 3));
    ::shutdown(p.there, SHUT_WR);
    REQUIRE(read_all(p.here, got, 3));
    CHECK(read_end(p.here) == 0);
    for (const RunningRelay* r : {&a, &b}) {
        // Both ways closed: each relay frees the stream and writes its last
        // frame (a hang here is the failure).
        while (r->stats().streams != 0 || r->stats().buffered != 0)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        const relay::Stats s = r->stats();
        CHECK(s.streams_opened == 1);
        CHECK(s.bytes_from_ranks == kBytes + 3);
        CHECK(s.bytes_to_ranks == kBytes + 3);
    }
    CHECK(a.stats().links_opened == 1);
    ::close(p.here);
    ::close(p.there);
    ::close(d_attach);
}

TEST_CASE("relay: a pair whose reader stalls does not stop another pair, and memory stays bounded", "[relay]") {
    RunningRelay a(kKey);
    RunningRelay b(kKey);
    const int d1 = attach(b.port(), kKey, 1);
    const int d2 = attach(b.port(), kKey, 2);
    const Pair flood = pair_open(a, b, kKey, 10, 1, d1);
    std::atomic<std::uint64_t> flooded{0};
    std::thread flooder([&] {
        std::vector<std::uint8_t> block(256 * 1024, 0x5a);
        while (write_all(flood.here, block.data(), block.size())) flooded += block.size();
    });
    // The stalled reader's window is full at B: A has nothing more to send.
    while (b.stats().buffered < kWindow) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    const Pair other = pair_open(a, b, kKey, 20, 2, d2);
    bool here_ok = false;
    std::thread here([&] { here_ok = exchange(other.here, 3, 4, 4 * 1024 * 1024); });
    const bool there_ok = exchange(other.there, 4, 3, 4 * 1024 * 1024);
    here.join();
    CHECK(here_ok);
    CHECK(there_ok);
    // Two streams: at most 2 * kWindow each, plus a link's write batch.
    const std::uint64_t bound = 2 * 2 * kWindow + 256 * 1024;
    const relay::Stats sa = a.stats();
    const relay::Stats sb = b.stats();
    WARN("flooded " << flooded.load() << " B; peak buffered: A " << sa.peak_buffered << " B, B " << sb.peak_buffered
                    << " B; bound " << bound << " B");
    CHECK(sa.peak_buffered <= bound);
    CHECK(sb.peak_buffered <= bound);
    ::shutdown(flood.here, SHUT_RDWR);
    flooder.join();
    for (const int fd : {flood.here, flood.there, other.here, other.there, d1, d2}) ::close(fd);
}

TEST_CASE("relay: ingress: a public site's rank reaches an attached rank, both ways", "[relay]") {
    RunningRelay r(kKey);
    const int d = attach(r.port(), kKey, 4);
    relay::Open in = open_of(Kind::ingress, 9, 4);
    in.stream = 2;
    const Handshake opened = handshake(r.port(), kKey, in);
    REQUIRE(opened.answer == 1);
    const relay::Notice n = notice_read(d);
    CHECK(n.type == relay::NoticeType::accept);
    CHECK(n.from == 9);
    CHECK(n.stream == 2);
    relay::Open take = open_of(Kind::accept, 4, 9);
    take.token = n.token;
    const Handshake taken = handshake(r.port(), kKey, take);
    REQUIRE(taken.answer == 1);
    bool back = false;
    std::thread other([&] { back = exchange(taken.fd, 2, 1, 3 << 20); });
    CHECK(exchange(opened.fd, 1, 2, 3 << 20));
    other.join();
    CHECK(back);
    ::shutdown(opened.fd, SHUT_WR);
    CHECK(read_end(taken.fd) == 0);  // the end passes too
    CHECK(r.stats().bytes_from_ranks == 3u << 20);
    // To a rank not attached here: refused.
    const Handshake nobody = handshake(r.port(), kKey, open_of(Kind::ingress, 9, 5));
    CHECK(nobody.answer == 0);
    for (const int fd : {d, opened.fd, taken.fd, nobody.fd}) ::close(fd);
}

namespace {

// A listening socket on loopback (a public rank's listener, mpirun's).
struct Listener {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    relay::Endpoint endpoint;
    Listener() {
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(kLoopback);
        socklen_t len = sizeof a;
        ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
        ::listen(fd, 4);
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
        endpoint = relay::Endpoint{kLoopback, ntohs(a.sin_port)};
    }
    ~Listener() { ::close(fd); }
};

}  // namespace

TEST_CASE("relay: egress: a rank reaches a public site's rank at its listener", "[relay]") {
    RunningRelay r(kKey);
    Listener rank7;
    relay::Open out = open_of(Kind::egress, 1, 7);
    out.relay = rank7.endpoint;
    const Handshake h = handshake(r.port(), kKey, out);
    REQUIRE(h.answer == 1);
    const int there = ::accept(rank7.fd, nullptr, nullptr);
    REQUIRE(there >= 0);
    bool back = false;
    std::thread other([&] { back = exchange(there, 4, 3, 2 << 20); });
    CHECK(exchange(h.fd, 3, 4, 2 << 20));
    other.join();
    CHECK(back);
    ::close(there);
    CHECK(read_end(h.fd) == 0);
    ::close(h.fd);
}

TEST_CASE("relay: control: a rank reaches mpirun's listener, and only a relay told where it is", "[relay]") {
    Listener mpirun;
    RunningRelay told(kKey, mpirun.endpoint);
    const Handshake h = handshake(told.port(), kKey, open_of(Kind::control, 3, 0));
    REQUIRE(h.answer == 1);
    const int there = ::accept(mpirun.fd, nullptr, nullptr);
    REQUIRE(there >= 0);
    bool back = false;
    std::thread other([&] { back = exchange(there, 6, 5, 100000); });
    CHECK(exchange(h.fd, 5, 6, 100000));
    other.join();
    CHECK(back);
    RunningRelay untold(kKey);
    const Handshake refused = handshake(untold.port(), kKey, open_of(Kind::control, 3, 0));
    CHECK(refused.answer == 0);
    CHECK(untold.log.wait_for("refused a connection").find("not told where mpirun is") != std::string::npos);
    for (const int fd : {h.fd, there, refused.fd}) ::close(fd);
}

TEST_CASE("relay: a second attach replaces the first; an unknown token is refused", "[relay]") {
    RunningRelay r(kKey);
    const int first = attach(r.port(), kKey, 4);
    const int second = attach(r.port(), kKey, 4);
    CHECK(read_end(first) == 0);
    relay::Open o = open_of(Kind::accept, 4, 0);
    o.token = 12345;
    const Handshake h = handshake(r.port(), kKey, o);
    CHECK(h.answer == 0);
    for (const int fd : {first, second, h.fd}) ::close(fd);
}

TEST_CASE("relay: a pair to a rank that is not attached is reset", "[relay]") {
    RunningRelay a(kKey);
    RunningRelay b(kKey);
    relay::Open o = open_of(Kind::pair, 0, 1);
    o.relay = b.endpoint();
    const Handshake h = handshake(a.port(), kKey, o);
    REQUIRE(h.answer == 1);
    CHECK(read_end(h.fd) <= 0);
    CHECK(a.log.wait_for("reset by the peer relay").find("rank 1 is not attached here") != std::string::npos);
    ::close(h.fd);
}

TEST_CASE("relay: a relay that stops says bye: the link's streams end, logged, and nothing is reported", "[relay]") {
    RunningRelay a(kKey);
    auto b = std::make_unique<RunningRelay>(kKey);
    const int b_port = b->port();
    const int d = attach(b_port, kKey, 1);
    const Pair p = pair_open(a, *b, kKey, 0, 1, d);
    const std::uint8_t ping[] = {1, 2, 3, 4};
    REQUIRE(write_all(p.here, ping, 4));
    std::uint8_t got[4];
    REQUIRE(read_all(p.there, got, 4));
    b->kill();
    CHECK(read_end(p.here) <= 0);
    const std::string line = a.log.wait_for("lost the link to relay 127.0.0.1:" + std::to_string(b_port) + ": ");
    CHECK(line.find("the relay stopped (its subjob ended) (1 streams reset)") != std::string::npos);
    CHECK(a.stats().links == 0);
    // An orderly end is no failure of the job: the relay that stopped answers for it.
    CHECK(a.reports.all().empty());
    for (const int fd : {p.here, p.there, d}) ::close(fd);
}

TEST_CASE("relay: frames from a peer relay are checked (stream id parity, reset reasons)", "[relay]") {
    RunningRelay r(kKey);
    // This test dials as a peer relay: its streams are odd.
    const Handshake link = handshake(r.port(), kKey, open_of(Kind::link, 0, 0));
    REQUIRE(link.answer == 1);
    const auto send_frame = [&](relay::FrameType type, std::uint32_t id, std::span<const std::uint8_t> payload) {
        const auto h = relay::frame_header_encode(relay::FrameHeader{type, id, static_cast<std::uint32_t>(payload.size())});
        REQUIRE(write_all(link.fd, h.data(), h.size()));
        REQUIRE(write_all(link.fd, payload.data(), payload.size()));
    };
    send_frame(relay::FrameType::open, 3, relay::open_payload_encode(relay::OpenPayload{5, 6, 0}));
    std::array<std::uint8_t, relay::kFrameHeaderSize> header{};
    REQUIRE(read_all(link.fd, header.data(), header.size()));
    const auto h = relay::frame_header_decode(header);
    REQUIRE(h);
    CHECK(h->type == relay::FrameType::reset);
    CHECK(h->id == 3);
    std::string reason(h->length, '\0');
    REQUIRE(read_all(link.fd, reinterpret_cast<std::uint8_t*>(reason.data()), reason.size()));
    CHECK(reason == "rank 6 is not attached here");
    // An even id is the relay's own to open: the link is dropped.
    send_frame(relay::FrameType::open, 4, relay::open_payload_encode(relay::OpenPayload{5, 6, 0}));
    CHECK(read_end(link.fd) <= 0);
    CHECK(r.log.wait_for("lost the link to relay 127.0.0.1:").find("not the peer's to open") != std::string::npos);
    ::close(link.fd);
}

TEST_CASE("relay::dial and Dialer: the ranks' side proves the key, checks the relay's, and says why it failed",
          "[relay]") {
    RunningRelay r(kKey);
    base::Result<int> ok = relay::dial(r.endpoint(), open_of(Kind::attach, 3, 0), kKey);
    REQUIRE(ok);
    // A relay of another job: its proof does not hold, and nothing is sent after the Open.
    RunningRelay other("the key of another job");
    base::Result<int> stranger = relay::dial(other.endpoint(), open_of(Kind::attach, 3, 0), kKey);
    REQUIRE_FALSE(stranger);
    CHECK(stranger.error() == "the relay at " + relay::endpoint_text(other.endpoint()) +
                                  ": it does not know this job's key: it is not this job's relay");
    // Refused: an ingress to a rank not attached.
    base::Result<int> refused = relay::dial(r.endpoint(), open_of(Kind::ingress, 3, 9), kKey);
    REQUIRE_FALSE(refused);
    CHECK(refused.error().find("it refused the connection") != std::string::npos);
    // Nobody listening.
    const relay::Endpoint closed{kLoopback, 1};
    base::Result<int> nobody = relay::dial(closed, open_of(Kind::attach, 3, 0), kKey);
    REQUIRE_FALSE(nobody);
    CHECK(nobody.error() == "the relay at 127.0.0.1:1: Connection refused");
    ::close(*ok);
}
