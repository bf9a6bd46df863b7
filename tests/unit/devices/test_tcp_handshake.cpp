// The TCP method's handshake (devices/tcp/handshake.hpp, connection.hpp)
// alone: a Connection dialling a loopback listener and the Incoming that
// accepts it, each step driven by hand, without a TcpMethod; and each side
// against a peer played byte by byte over a socketpair, so that messages
// arriving in pieces, strangers and wrong keys are seen step by step.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/little_endian.hpp"
#include "conformance.hpp"
#include "devices/tcp/connection.hpp"
#include "devices/tcp/handshake.hpp"

using namespace strata;
using namespace strata::dev::tcp;
using namespace strata::dev::testing;
using State = Connection::State;

namespace {

const std::string kKey = "unit-test-key";

bool ready(int fd, short events) {
    pollfd p{fd, events, 0};
    return ::poll(&p, 1, 5000) == 1;
}

struct Epoll {
    int fd = epoll_create1(EPOLL_CLOEXEC);
    ~Epoll() { ::close(fd); }
};

// A listener on loopback.
struct Listener {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int port = 0;
    Listener() {
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
        REQUIRE(::listen(fd, 4) == 0);
        socklen_t len = sizeof a;
        getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
        port = ntohs(a.sin_port);
    }
    ~Listener() { ::close(fd); }
    int accept_one() const {
        REQUIRE(ready(fd, POLLIN));
        return ::accept4(fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    }
};

// Two connected non-blocking sockets; [1] plays the other end by hand.
struct Pair {
    int fd[2] = {-1, -1};
    Pair() { REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fd) == 0); }
    ~Pair() {
        for (int f : fd)
            if (f >= 0) ::close(f);
    }
    // Hands fd[i] over to an owner that closes it.
    int take(int i) { return std::exchange(fd[i], -1); }
};

// A connection of rank `me`'s link to `peer`'s (stream `stream`) in `ep`.
void connection_init(Connection& c, const Epoll& ep, std::uint64_t key, std::uint32_t stream) {
    c.epfd = ep.fd;
    c.key = key;
    c.stream = stream;
}

// An existing socket joins the epoll set, as accepted ones do.
void watch_add(Connection& c, int fd) {
    c.fd = fd;
    c.watch(true);
}

Incoming::Read incoming_wait(Incoming& in) {
    for (;;) {
        const Incoming::Read r = in.read();
        if (r != Incoming::Read::again) return r;
        REQUIRE(ready(in.fd, POLLIN));
    }
}

// Reads the acceptor's replies until `c` leaves `from` (or fails).
base::Result<Connection::Reply> reply_wait(Connection& c, const Remote& r, const std::string& key, State from) {
    for (;;) {
        base::Result<Connection::Reply> got = c.reply_read(r, key, 0);
        if (!got || *got != Connection::Reply::pending || c.state != from) return got;
        REQUIRE(ready(c.fd, POLLIN));
    }
}

void send_bytes(int fd, const void* data, std::size_t n) {
    REQUIRE(::send(fd, data, n, MSG_NOSIGNAL) == static_cast<ssize_t>(n));
}

std::vector<std::uint8_t> recv_bytes(int fd, std::size_t n) {
    std::vector<std::uint8_t> out(n);
    std::size_t got = 0;
    while (got < n) {
        REQUIRE(ready(fd, POLLIN));
        const ssize_t k = ::recv(fd, out.data() + got, n - got, 0);
        REQUIRE(k > 0);
        got += static_cast<std::size_t>(k);
    }
    return out;
}

// The two ends of a link between rank 0 (connector) and rank 1 (acceptor)
// on loopback, up to the acceptor's decision.
struct Dial {
    Epoll ep;
    Listener listener;
    Connection c;  // rank 0's
    Remote remote;  // rank 1, as rank 0 sees it
    Incoming in;   // rank 1's view of the accepted connection

    explicit Dial(std::uint32_t stream, const std::string& acceptor_key = kKey) {
        connection_init(c, ep, 1, stream);
        remote = Remote{1, "host-b", "127.0.0.1", listener.port};
        REQUIRE(c.connect_start(remote).ok());
        CHECK(c.state == State::connecting);
        in.fd = listener.accept_one();
        REQUIRE(in.fd >= 0);
        REQUIRE(ready(c.fd, POLLOUT));
        const base::Status hello = c.hello_send(remote, 0);
        INFO(hello.error());
        REQUIRE(hello.ok());
        CHECK(c.state == State::hello_sent);
        REQUIRE(incoming_wait(in) == Incoming::Read::whole);
        const base::Status taken = in.hello_take();
        INFO(taken.error());
        REQUIRE(taken.ok());
        CHECK(in.to_rank == 1);
        CHECK(in.set == 0);
        const base::Status challenged = in.challenge(acceptor_key);
        INFO(challenged.error());
        REQUIRE(challenged.ok());
    }
    ~Dial() {
        if (in.fd >= 0) ::close(in.fd);
    }
};

}  // namespace

TEST_CASE("tcp handshake: a connection and the listener it dials prove the job key and become a link") {
    for (const std::uint32_t stream : {0u, 3u}) {
        INFO("stream " << stream);
        Dial d(stream);
        const auto challenge = reply_wait(d.c, d.remote, kKey, State::hello_sent);
        INFO(challenge.error());
        REQUIRE(challenge.ok());
        CHECK(d.c.state == State::response_sent);
        REQUIRE(incoming_wait(d.in) == Incoming::Read::whole);
        CHECK(d.in.from_rank == 0);
        CHECK(d.in.stream == stream);
        CHECK(d.in.proven(kKey));
        // The proofs bind the ranks: the same response does not prove a link to rank 0.
        d.in.to_rank = 0;
        CHECK_FALSE(d.in.proven(kKey));
        d.in.to_rank = 1;
        REQUIRE(d.in.answer(true));
        const auto answer = reply_wait(d.c, d.remote, kKey, State::response_sent);
        REQUIRE(answer.ok());
        CHECK(*answer == Connection::Reply::accepted);

        // Both ends established, plain: a packet queued at one end arrives at the other.
        REQUIRE(d.c.establish(false, std::nullopt, 1).ok());
        CHECK(d.c.state == State::connected);
        CHECK(d.c.rx.buf.size() == (stream == 0 ? kStaging : kStagingWriteOnly));
        Connection a;
        connection_init(a, d.ep, 2, stream);
        const int accepted = std::exchange(d.in.fd, -1);
        epoll_event ev{};  // accepted connections are in the set already (TcpMethod: under their own key)
        ev.events = EPOLLIN;
        REQUIRE(epoll_ctl(d.ep.fd, EPOLL_CTL_ADD, accepted, &ev) == 0);
        a.adopt(accepted);
        REQUIRE(a.establish(true, std::nullopt, 0).ok());
        CHECK(a.rx.buf.size() == kStaging);
        const auto data = pattern(1000, 1);
        const iovec v{const_cast<std::byte*>(data.data()), data.size()};
        a.out.push_back(out_packet(header(adi::Packet::eager, 4, data.size()), std::span<const iovec>(&v, 1), 77,
                                   std::nullopt));
        Recorder up;
        std::vector<std::uint64_t> later;
        REQUIRE(a.flush(&up, later).ok());
        CHECK(up.sent == std::vector<std::uint64_t>{77});
        CHECK(a.out.empty());
        CHECK(a.writes == 1);
        std::vector<std::byte> got(sizeof(adi::Header) + data.size());
        std::size_t at = 0;
        while (at < got.size()) {
            REQUIRE(ready(d.c.fd, POLLIN));
            iovec into{got.data() + at, got.size() - at};
            const ssize_t n = d.c.read(&into, 1);
            REQUIRE(n > 0);
            at += static_cast<std::size_t>(n);
        }
        CHECK(diff(std::vector<std::byte>(got.begin() + sizeof(adi::Header), got.end()), data) == "");
    }
}

TEST_CASE("tcp handshake: a listener without the job key is not taken for the rank") {
    Dial d(0, "another job's key");
    const auto challenge = reply_wait(d.c, d.remote, kKey, State::hello_sent);
    REQUIRE_FALSE(challenge.ok());
    CHECK(challenge.error() == "the process listening at 127.0.0.1:" + std::to_string(d.listener.port) +
                                   " (rank 1's address) does not know this job's key: it is not rank 1");
}

TEST_CASE("tcp handshake: the acceptor's answer 0 on stream 0 is a refusal, not a failure") {
    Dial d(0);
    REQUIRE(reply_wait(d.c, d.remote, kKey, State::hello_sent).ok());
    REQUIRE(incoming_wait(d.in) == Incoming::Read::whole);
    REQUIRE(d.in.proven(kKey));
    REQUIRE(d.in.answer(false));
    const auto answer = reply_wait(d.c, d.remote, kKey, State::response_sent);
    REQUIRE(answer.ok());
    CHECK(*answer == Connection::Reply::refused);
}

TEST_CASE("tcp handshake: the connecting side takes the challenge and the answer in pieces") {
    Epoll ep;
    Pair pair;
    Connection c;
    connection_init(c, ep, 1, 2);
    watch_add(c, pair.take(0));
    c.state = State::connecting;
    const Remote remote{1, "host-b", "10.0.0.2", 4000};
    REQUIRE(c.hello_send(remote, 0).ok());
    const auto hello_bytes = recv_bytes(pair.fd[1], kHelloSize);
    const std::optional<Hello> hello = hello_decode(std::span<const std::uint8_t, kHelloSize>(hello_bytes.data(), kHelloSize));
    REQUIRE(hello);
    CHECK(hello->from == 0);
    CHECK(hello->to == 1);
    CHECK(hello->stream == 2);
    // The acceptor's challenge, 7 bytes at a time.
    security::Nonce theirs{};
    theirs.fill(0x42);
    const auto proof = link_proof(kKey, security::ProofRole::link_acceptor, hello->nonce, theirs, 0, 1, 2);
    std::array<std::uint8_t, kChallengeSize> challenge{};
    std::memcpy(challenge.data(), theirs.data(), theirs.size());
    std::memcpy(challenge.data() + theirs.size(), proof.data(), proof.size());
    for (std::size_t at = 0; at < challenge.size(); at += 7) {
        CHECK(c.state == State::hello_sent);
        send_bytes(pair.fd[1], challenge.data() + at, std::min<std::size_t>(7, challenge.size() - at));
        const auto step = c.reply_read(remote, kKey, 0);
        REQUIRE(step.ok());
        CHECK(*step == Connection::Reply::pending);
    }
    CHECK(c.state == State::response_sent);
    const auto response = recv_bytes(pair.fd[1], kResponseSize);
    const auto expected = link_proof(kKey, security::ProofRole::link_connector, hello->nonce, theirs, 0, 1, 2);
    CHECK(std::equal(response.begin(), response.end(), expected.begin()));
    // A proof for another stream of the same link differs.
    CHECK(expected != link_proof(kKey, security::ProofRole::link_connector, hello->nonce, theirs, 0, 1, 1));
    // The answer in two pieces.
    const std::uint32_t yes = base::to_little<std::uint32_t>(1);
    const auto* answer = reinterpret_cast<const std::uint8_t*>(&yes);
    send_bytes(pair.fd[1], answer, 3);
    CHECK(*c.reply_read(remote, kKey, 0) == Connection::Reply::pending);
    send_bytes(pair.fd[1], answer + 3, 1);
    CHECK(*c.reply_read(remote, kKey, 0) == Connection::Reply::accepted);
}

TEST_CASE("tcp handshake: the connecting side says so when the other end closes") {
    Epoll ep;
    Pair pair;
    Connection c;
    connection_init(c, ep, 1, 0);
    watch_add(c, pair.take(0));
    c.state = State::connecting;
    const Remote remote{1, "host-b", "10.0.0.2", 4000};
    REQUIRE(c.hello_send(remote, 0).ok());
    ::close(pair.take(1));
    const auto step = c.reply_read(remote, kKey, 0);
    REQUIRE_FALSE(step.ok());
    CHECK(step.error() ==
          "rank 1 at 10.0.0.2:4000 closed the connection during the handshake; is it a process of this job?");
}

TEST_CASE("tcp handshake: the accepting side reads a Hello and a response that come a byte at a time") {
    Pair pair;
    Incoming in;
    in.fd = pair.fd[1];
    security::Nonce mine{};
    mine.fill(0x17);
    const auto hello = hello_encode(Hello{2, 1, 0, mine});
    for (std::size_t i = 0; i < hello.size(); ++i) {
        CHECK(in.read() == Incoming::Read::again);
        send_bytes(pair.fd[0], hello.data() + i, 1);
    }
    REQUIRE(in.read() == Incoming::Read::whole);
    REQUIRE(in.hello_take().ok());
    REQUIRE(in.claim_check(1, 0, 3).ok());
    REQUIRE(in.challenge(kKey).ok());
    CHECK(in.from_rank == 2);
    const auto challenge = recv_bytes(pair.fd[0], kChallengeSize);
    security::Nonce theirs{};
    std::memcpy(theirs.data(), challenge.data(), theirs.size());
    const auto acceptor_proof = link_proof(kKey, security::ProofRole::link_acceptor, mine, theirs, 2, 1, 0);
    CHECK(std::equal(acceptor_proof.begin(), acceptor_proof.end(), challenge.begin() + theirs.size()));
    const auto proof = link_proof(kKey, security::ProofRole::link_connector, mine, theirs, 2, 1, 0);
    for (std::size_t i = 0; i < proof.size(); ++i) {
        CHECK(in.read() == Incoming::Read::again);
        send_bytes(pair.fd[0], proof.data() + i, 1);
    }
    REQUIRE(in.read() == Incoming::Read::whole);
    CHECK(in.proven(kKey));
    CHECK_FALSE(in.proven("another job's key"));
    REQUIRE(in.answer(false));
    CHECK(recv_bytes(pair.fd[0], kAnswerSize) == std::vector<std::uint8_t>{0, 0, 0, 0});
}

TEST_CASE("tcp handshake: the accepting side sees a connector that leaves in the middle of its Hello") {
    Pair pair;
    Incoming in;
    in.fd = pair.fd[1];
    const auto hello = hello_encode(Hello{0, 1, 0, {}});
    send_bytes(pair.fd[0], hello.data(), 5);
    CHECK(in.read() == Incoming::Read::again);
    ::close(pair.take(0));
    CHECK(in.read() == Incoming::Read::closed);
}

TEST_CASE("tcp handshake: a Hello that is not this job's link to this rank is refused, saying why") {
    struct Case {
        std::uint32_t magic, from, to, stream;
        const char* why;
    };
    const Case cases[] = {
        {0x33525452, 0, 1, 0, "not a Strata handshake"},
        {kHelloMagic, 0, 2, 0, "invalid ranks in the handshake"},
        {kHelloMagic, 1, 1, 0, "invalid ranks in the handshake"},
        {kHelloMagic, 3, 1, 0, "invalid ranks in the handshake"},
        {kHelloMagic, 0, 1, 17, "invalid stream in the handshake"},
    };
    // Another job's processes (set ranks 4..5 beside this process's 1).
    Incoming other;
    other.from_rank = 5;
    other.to_rank = 1;
    CHECK(other.claim_check(1, 4, 2).ok());
    other.from_rank = 6;
    CHECK(other.claim_check(1, 4, 2).error() == "invalid ranks in the handshake");
    other.from_rank = 3;
    CHECK_FALSE(other.claim_check(1, 4, 2).ok());
    for (const Case& k : cases) {
        INFO(k.why << ": from " << k.from << " to " << k.to << ", stream " << k.stream);
        Pair pair;
        Incoming in;
        in.fd = pair.fd[1];
        auto bytes = hello_encode(Hello{k.from, k.to, k.stream, {}});
        const std::uint32_t magic = base::to_little(k.magic);
        std::memcpy(bytes.data(), &magic, sizeof magic);
        send_bytes(pair.fd[0], bytes.data(), bytes.size());
        REQUIRE(in.read() == Incoming::Read::whole);
        base::Status claimed = in.hello_take();
        if (claimed) claimed = in.claim_check(1, 0, 3);
        CHECK(claimed.error() == k.why);
        CHECK_FALSE(in.challenged);
    }
}

TEST_CASE("tcp handshake: TLS between two connections keyed alike, and a failure keyed apart") {
    for (const bool same : {true, false}) {
        INFO((same ? "same key" : "different keys"));
        Epoll ep;
        Pair pair;
        Connection client, server;
        connection_init(client, ep, 1, 0);
        connection_init(server, ep, 2, 0);
        watch_add(client, pair.take(0));
        watch_add(server, pair.take(1));
        TlsLink::Key key{};
        key.fill(1);
        TlsLink::Key other = key;
        other[31] = same ? 1 : 2;
        // The server may see the mismatch in its first step already.
        REQUIRE(client.establish(false, key, 1).ok());
        CHECK(client.state == State::tls_handshake);
        const base::Status started = server.establish(true, other, 0);
        std::string failed = started.error();
        for (int i = 0; i < 1000 && failed.empty(); ++i) {
            for (Connection* c : {&client, &server}) {
                if (c->state != State::tls_handshake) continue;
                const base::Result<bool> step = c->tls_step(c == &client ? 1 : 0);
                if (!step) failed = step.error();
            }
            if (client.state == State::connected && server.state == State::connected) break;
            ::poll(nullptr, 0, 1);
        }
        if (!same) {
            CHECK(failed.rfind("TLS with rank ", 0) == 0);
            continue;
        }
        INFO(failed);
        REQUIRE(client.state == State::connected);
        REQUIRE(server.state == State::connected);
        CHECK(client.established);
        // What one end writes, the other reads, through TLS.
        auto data = pattern(3000, 4);
        iovec v{data.data(), data.size()};
        REQUIRE(client.write(&v, 1) == static_cast<ssize_t>(data.size()));
        std::vector<std::byte> got(data.size());
        std::size_t at = 0;
        for (int i = 0; i < 1000 && at < got.size(); ++i) {
            const ssize_t n = server.recv(got.data() + at, got.size() - at);
            if (n > 0) at += static_cast<std::size_t>(n);
            else ::poll(nullptr, 0, 1);
        }
        CHECK(diff(got, data) == "");
    }
}
