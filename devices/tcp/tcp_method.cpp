#include "devices/tcp/tcp_method.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

#include "base/knob.hpp"
#include "base/little_endian.hpp"
#include "devices/tcp/handshake.hpp"
#include "devices/tcp/network.hpp"
#include "wireup/emulation.hpp"

namespace strata::dev::tcp {

namespace {

const base::KnobInt eager_limit{"STRATA_TCP_EAGER_LIMIT", 65536,
                                "TCP: messages up to this size go eagerly, larger ones by rendezvous", true};
const base::KnobString network_knob{"STRATA_NETWORK", "",
                                    "network for TCP traffic: interface name or IPv4 subnet (mpirun -net)"};
const base::KnobString port_range_knob{"STRATA_PORT_RANGE", "",
                                       "TCP listening ports LOW:HIGH, for firewalls (mpirun -port-range)"};

const base::KnobString data_tls_knob{
    "STRATA_DATA_TLS", "off",
    "TLS on TCP links between ranks: off, wan (between ranks of different sites) or all; the job file's "
    "security: {data: tls} sets wan"};

const base::KnobInt streams_knob{
    "STRATA_TCP_STREAMS", 1,
    "TCP connections a process uses to send to each peer at another site, 1 to 16: payloads above "
    "STRATA_TCP_STRIPE_UNIT are striped over them (the job file's network: {streams: N}; per communicator the "
    "MPIX_PARALLEL_STREAMS attribute)"};
const base::KnobInt stripe_unit_knob{
    "STRATA_TCP_STRIPE_UNIT", 65536,
    "TCP: with several streams, payloads larger than this go in stripes of this size, round robin over the "
    "streams (at least 512)",
    true};

// Held packets due within this long keep the process polling instead of
// sleeping; the timer wakes it this long before later ones.
constexpr std::int64_t kEmulationSpinNs = 2'000'000;

constexpr std::size_t kChallengeSize = security::kNonceBytes + security::kProofBytes;
constexpr std::size_t kResponseSize = security::kProofBytes;
constexpr std::size_t kAnswerSize = 4;  // the acceptor's u32, little-endian: 1 accepts the connection
constexpr auto kHandshakeTimeout = std::chrono::seconds(10);
constexpr std::size_t kStaging = 64 * 1024;

constexpr std::uint64_t kKeyListener = 1ull << 32;
constexpr std::uint64_t kKeyPeer = 2ull << 32;
constexpr std::uint64_t kKeyIncoming = 3ull << 32;
constexpr std::uint64_t kKeyTimer = 4ull << 32;
// Extra streams: kind | stream << 24 | peer.
constexpr std::uint64_t kKeyOut = 5ull << 32;  // ours to the peer
constexpr std::uint64_t kKeyIn = 6ull << 32;   // the peer's to us
constexpr std::uint32_t kPeerBits = 0xffffffu;
constexpr std::uint64_t kKindBits = 0xffffffff00000000ull;  // the kind part of a key

std::uint64_t stream_key(std::uint64_t kind, std::uint32_t stream, int peer) {
    return kind | static_cast<std::uint64_t>(stream) << 24 | static_cast<std::uint32_t>(peer);
}

void socket_tune(int fd) {
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

std::string errno_text(int e) { return std::strerror(e); }

// Sends a few bytes on a socket that was just connected or accepted: they fit
// in the empty socket buffer, so a short write means the link is broken.
bool send_small(int fd, const void* data, std::size_t n) {
    return ::send(fd, data, n, MSG_NOSIGNAL) == static_cast<ssize_t>(n);
}

}  // namespace

TcpMethod::TcpMethod(adi::MethodContext ctx) : ctx_(std::move(ctx)) {
    caps_.name = "tcp";
    caps_.eager_limit = static_cast<std::size_t>(eager_limit.get());
    caps_.poll_cost = 100;
    stripe_unit_ = static_cast<std::size_t>(std::clamp<std::int64_t>(stripe_unit_knob.get(), 512, 1 << 30));
    epfd_ = epoll_create1(EPOLL_CLOEXEC);
    peers_ = std::vector<Peer>(static_cast<std::size_t>(ctx_.size));
    for (std::size_t i = 0; i < peers_.size(); ++i) peers_[i].c.key = kKeyPeer | static_cast<std::uint32_t>(i);
}

TcpMethod::~TcpMethod() { shutdown(); }

void TcpMethod::conn_watch(Conn& c, bool add) {
    epoll_event ev{};
    ev.events = (c.want_in ? EPOLLIN : 0u) | (c.want_out ? EPOLLOUT : 0u);
    ev.data.u64 = c.key;
    epoll_ctl(epfd_, add ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, c.fd, &ev);
}

void TcpMethod::set_want_out(Conn& c, bool on) {
    if (c.want_out == on || c.fd < 0) return;
    c.want_out = on;
    conn_watch(c, false);
}

void TcpMethod::set_want_in(Conn& c, bool on) {
    if (c.want_in == on || c.fd < 0) return;
    c.want_in = on;
    conn_watch(c, false);
}

void TcpMethod::conn_close(Conn& c) {
    c.tls.reset();
    if (c.fd >= 0) {
        epoll_ctl(epfd_, EPOLL_CTL_DEL, c.fd, nullptr);
        ::close(c.fd);
    }
    c.fd = -1;
    c.want_out = false;
    c.want_in = true;
}

TcpMethod::Conn* TcpMethod::conn_of(int peer, std::uint64_t key) {
    Peer& p = peers_[static_cast<std::size_t>(peer)];
    const std::size_t k = static_cast<std::size_t>((key >> 24) & 0xff);
    auto& list = (key & kKindBits) == kKeyOut ? p.sends : p.recvs;
    return k >= 1 && k <= list.size() ? list[k - 1].get() : nullptr;
}

base::Status TcpMethod::listen_open() {
    auto ifs = interfaces_list();
    auto choice = network_choose(network_knob.get(), ifs);
    if (!choice) return choice.failure();
    auto range = port_range_parse(port_range_knob.get());
    if (!range) return range.failure();

    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (listen_fd_ < 0) {
        return base::Error{"cannot create a TCP socket: " + errno_text(errno)};
    }
    int one = 1;
    setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(choice->any ? INADDR_ANY : choice->bind_address);
    const std::string where = choice->any ? "all addresses" : ipv4_text(choice->bind_address);
    int last_errno = 0;
    bool bound = false;
    if (range->low == 0) {
        addr.sin_port = 0;
        bound = ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
        last_errno = errno;
    } else {
        // Start at a rank-dependent port so processes on one host rarely collide.
        const int span = range->high - range->low + 1;
        for (int i = 0; i < span && !bound; ++i) {
            int port = range->low + (ctx_.rank + i) % span;
            addr.sin_port = htons(static_cast<std::uint16_t>(port));
            bound = ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
            if (!bound) last_errno = errno;
        }
    }
    if (!bound) {
        return base::Error{range->low == 0
                               ? "cannot bind a TCP listener on " + where + ": " + errno_text(last_errno)
                               : "no free port in STRATA_PORT_RANGE=" + port_range_knob.get() + " on " + where +
                                     " (last error: " + errno_text(last_errno) + "); widen the range"};
    }
    if (::listen(listen_fd_, 1024) != 0) {
        return base::Error{"cannot listen on TCP port: " + errno_text(errno)};
    }
    socklen_t len = sizeof addr;
    getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = kKeyListener;
    epoll_ctl(epfd_, EPOLL_CTL_ADD, listen_fd_, &ev);
    return {};
}

base::Status TcpMethod::publish(wireup::BusinessCard& card) {
    if (base::Status opened = listen_open(); !opened) return opened;
    auto ifs = interfaces_list();
    auto choice = network_choose(network_knob.get(), ifs);
    std::string text;
    for (const auto& a : choice->publish) {
        if (!text.empty()) text += ',';
        text += a;
    }
    card.addresses.emplace_back("tcp", text + ":" + std::to_string(port_));
    // Both ends of a link must agree on TLS, or each waits for the other:
    // every rank shows its setting, and connect_world compares them.
    card.data_tls = data_tls_knob.get();
    return {};
}

base::Status TcpMethod::settings_check(const std::vector<wireup::BusinessCard>& cards, int my_rank) const {
    if (data_tls_ != "off" && data_tls_ != "wan" && data_tls_ != "all") {
        return base::Error{"STRATA_DATA_TLS='" + data_tls_ + "': expected off, wan or all"};
    }
    const std::int64_t streams = streams_knob.get();
    if (streams < 1 || streams > wireup::kStreamsMax) {
        return base::Error{"STRATA_TCP_STREAMS=" + std::to_string(streams) + ": expected 1 to " +
                           std::to_string(wireup::kStreamsMax) + " connections per link between sites"};
    }
    if (cards.size() > kPeerBits) {
        return base::Error{"the TCP method numbers at most " + std::to_string(kPeerBits) + " processes"};
    }
    for (std::size_t i = 0; i < cards.size(); ++i) {
        const std::string& theirs = cards[i].data_tls;
        if (!cards[i].address_of("tcp").empty() && theirs != data_tls_) {
            return base::Error{
                "STRATA_DATA_TLS is '" + data_tls_ + "' at rank " + std::to_string(my_rank) + " but '" + theirs +
                "' at rank " + std::to_string(i) +
                ": the links between them cannot agree on TLS; set it once "
                "for the whole job (a job file's security: {data: tls}, or mpirun -x STRATA_DATA_TLS=...)"};
        }
    }
    return {};
}

base::Status TcpMethod::connect_world(const adi::World& world) {
    const auto& cards = world.cards;
    const int my_rank = world.rank;
    ctx_.rank = my_rank;
    data_tls_ = data_tls_knob.get();
    if (base::Status valid = settings_check(cards, my_rank); !valid) return valid;
    const std::int64_t streams = streams_knob.get();
    const auto me = static_cast<std::size_t>(my_rank);
    if (me < cards.size()) my_site_ = cards[me].site;
    // Equal "host" labels mean the same kernel and network namespace, where
    // loopback reaches; equal host names do not (namespaces share them).
    const std::string my_host = me < cards.size() ? cards[me].host : "";
    for (std::size_t i = 0; i < cards.size() && i < peers_.size(); ++i) {
        Peer& p = peers_[i];
        p.hostname = cards[i].hostname;
        p.site = cards[i].site;
        // Several streams for the links that cross the wide area.
        p.streams = p.site != my_site_ ? static_cast<int>(streams) : 1;
        std::string a = cards[i].address_of("tcp");
        auto colon = a.rfind(':');
        if (colon == std::string::npos) continue;
        p.port = std::atoi(a.c_str() + colon + 1);
        std::vector<std::string> list;
        std::size_t start = 0;
        std::string addrs = a.substr(0, colon);
        while (start <= addrs.size()) {
            auto comma = addrs.find(',', start);
            if (comma == std::string::npos) comma = addrs.size();
            if (comma > start) list.push_back(addrs.substr(start, comma - start));
            start = comma + 1;
        }
        if (list.empty()) continue;
        p.address = list.front();
        // On one host the loopback path is the shortest, when the peer listens on it.
        if (!my_host.empty() && cards[i].host == my_host) {
            for (const auto& x : list) {
                if (x == "127.0.0.1") p.address = x;
            }
        }
    }
    if (base::Status shaped = emulator_.configure(world, wireup::emulation_setting(), ctx_.job_key); !shaped)
        return shaped;
    if (emulator_.active()) {
        epoll_event ev{};
        ev.events = EPOLLIN;
        ev.data.u64 = kKeyTimer;
        epoll_ctl(epfd_, EPOLL_CTL_ADD, emulator_.timer_fd(), &ev);
    }
    return {};
}

bool TcpMethod::streams_set(int peer, int n) {
    if (n < 1 || n > wireup::kStreamsMax || peer < 0 || static_cast<std::size_t>(peer) >= peers_.size()) return false;
    // Packets already handed over keep the layout they were queued with
    // (each plan names its streams): the count applies from the next one.
    peers_[static_cast<std::size_t>(peer)].streams = n;
    return true;
}

int TcpMethod::streams_out(int peer) const {
    const Peer& p = peers_[static_cast<std::size_t>(peer)];
    int n = 1;
    for (const auto& c : p.sends) n += c != nullptr && c->established ? 1 : 0;
    return n;
}

int TcpMethod::streams_in(int peer) const {
    const Peer& p = peers_[static_cast<std::size_t>(peer)];
    int n = 1;
    for (const auto& c : p.recvs) n += c != nullptr && c->established ? 1 : 0;
    return n;
}

std::string TcpMethod::report() const {
    std::string out;
    const auto add = [&](const char* dir, std::size_t peer, std::size_t conns) {
        out += out.empty() ? "streams: " : "; ";
        out += dir;
        out += " rank ";
        out += std::to_string(peer);
        out += ": ";
        out += std::to_string(conns);
        out += " connections";
    };
    for (std::size_t i = 0; i < peers_.size(); ++i) {
        const int peer = static_cast<int>(i);
        if (!peers_[i].sends.empty()) add("to", i, static_cast<std::size_t>(streams_out(peer)));
        if (!peers_[i].recvs.empty()) add("from", i, static_cast<std::size_t>(streams_in(peer)));
    }
    // Stripes received: taken straight from the streams, or held by the emulation.
    const std::uint64_t received = counters_.stripes_received + emulator_.stripes_delivered();
    if (counters_.stripes_sent > 0 || received > 0) {
        out += out.empty() ? "streams: " : "; ";
        out += std::to_string(counters_.stripes_sent);
        out += " stripes sent, ";
        out += std::to_string(received);
        out += " received";
    }
    return out;
}

bool TcpMethod::sleep_prepare() {
    const std::int64_t due_in = emulator_.next_due_in();
    if (due_in < 0) return true;
    if (due_in < kEmulationSpinNs) return false;
    emulator_.arm(kEmulationSpinNs);
    return true;
}

bool TcpMethod::reaches(int peer) const {
    return peer != ctx_.rank && !peers_[static_cast<std::size_t>(peer)].address.empty();
}

void TcpMethod::start_connect(int peer, Conn& c) {
    Peer& p = peers_[static_cast<std::size_t>(peer)];
    const std::string target = p.address + ":" + std::to_string(p.port);
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        link_failed(peer, "cannot create a socket for rank " + std::to_string(peer) + ": " + errno_text(errno), nullptr);
        return;
    }
    socket_tune(fd);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(p.port));
    inet_pton(AF_INET, p.address.c_str(), &addr.sin_addr);
    c.fd = fd;
    c.want_out = true;
    c.want_in = true;
    conn_watch(c, true);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 && errno != EINPROGRESS) {
        link_failed(peer, "cannot reach rank " + std::to_string(peer) + " at " + target + ": " + errno_text(errno), nullptr);
        return;
    }
    c.link = Link::connecting;
}

void TcpMethod::on_connected(int peer, Conn& c) {
    Peer& p = peers_[static_cast<std::size_t>(peer)];
    int err = 0;
    socklen_t len = sizeof err;
    getsockopt(c.fd, SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) {
        link_failed(peer,
                    "cannot reach rank " + std::to_string(peer) + " (host " + p.hostname + ") at " + p.address + ":" +
                        std::to_string(p.port) + ": " + errno_text(err) +
                        "; check that the rank is running, that STRATA_NETWORK selects a network both hosts share, "
                        "and that STRATA_PORT_RANGE is open in the firewall",
                    nullptr);
        return;
    }
    if (!security::nonce_fill(c.nonce)) {
        link_failed(peer, "cannot make a nonce for the handshake with rank " + std::to_string(peer) +
                              ": the OpenSSL random generator is not seeded", nullptr);
        return;
    }
    const auto hello = hello_encode(
        Hello{static_cast<std::uint32_t>(ctx_.rank), static_cast<std::uint32_t>(peer), c.stream, c.nonce});
    if (!send_small(c.fd, hello.data(), hello.size())) {
        link_failed(peer, "handshake with rank " + std::to_string(peer) + " failed: " + errno_text(errno), nullptr);
        return;
    }
    c.link = Link::hello_sent;
    c.reply_got = 0;
    c.reply_need = kChallengeSize;
    set_want_out(c, false);
}

security::Proof TcpMethod::link_proof(security::ProofRole role, const security::Nonce& connector,
                                      const security::Nonce& acceptor, std::uint32_t from, std::uint32_t to,
                                      std::uint32_t stream) const {
    return stream == 0 ? security::proof_make(ctx_.job_key, role, connector, acceptor, from, to)
                       : security::proof_make(ctx_.job_key, role, connector, acceptor, from, to, stream);
}

void TcpMethod::on_reply(int peer, Conn& c, adi::Upcalls& up) {
    Peer& p = peers_[static_cast<std::size_t>(peer)];
    const std::string where = p.address + ":" + std::to_string(p.port);
    while (c.reply_got < c.reply_need) {
        ssize_t n = ::recv(c.fd, c.reply.data() + c.reply_got, c.reply_need - c.reply_got, 0);
        if (n > 0) {
            c.reply_got += static_cast<std::size_t>(n);
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        link_failed(peer,
                    "rank " + std::to_string(peer) + " at " + where +
                        " closed the connection during the handshake; is it a process of this job?",
                    &up);
        return;
    }
    const auto me = static_cast<std::uint32_t>(ctx_.rank);
    const auto them = static_cast<std::uint32_t>(peer);
    if (c.link == Link::hello_sent) {
        security::Nonce theirs{};
        security::Proof proof{};
        std::memcpy(theirs.data(), c.reply.data(), theirs.size());
        std::memcpy(proof.data(), c.reply.data() + theirs.size(), proof.size());
        const auto expected = link_proof(security::ProofRole::link_acceptor, c.nonce, theirs, me, them, c.stream);
        if (!security::proof_equal(expected, proof)) {
            link_failed(peer,
                        "the process listening at " + where + " (rank " + std::to_string(peer) +
                            "'s address) does not know this job's key: it is not rank " + std::to_string(peer),
                        &up);
            return;
        }
        const auto mine = link_proof(security::ProofRole::link_connector, c.nonce, theirs, me, them, c.stream);
        if (!send_small(c.fd, mine.data(), mine.size())) {
            link_failed(peer, "handshake with rank " + std::to_string(peer) + " failed: " + errno_text(errno), &up);
            return;
        }
        c.link = Link::response_sent;
        c.acceptor_nonce = theirs;
        c.reply_got = 0;
        c.reply_need = kAnswerSize;
        return;
    }
    std::uint32_t answer = 0;
    std::memcpy(&answer, c.reply.data(), 4);
    if (base::from_little(answer) == 1) {
        link_established(peer, c, false, c.nonce, c.acceptor_nonce, me, them);
        if (c.link == Link::connected) conn_ready(peer, c, up);
    } else if (c.stream == 0) {
        // The peer's own connection to us wins; it will arrive on the listener.
        conn_close(c);
        c.link = Link::awaiting_incoming;
    } else {
        link_failed(peer, "rank " + std::to_string(peer) + " refused stream " + std::to_string(c.stream) + " of its link",
                    &up);
    }
}

void TcpMethod::incoming_drop(int fd, const char* why) {
    auto it = incoming_.find(fd);
    if (it == incoming_.end()) return;
    if (why != nullptr)
        std::fprintf(stderr, "strata: rank %d: refused a TCP connection from %s: %s\n", ctx_.rank,
                     it->second.from.c_str(), why);
    epoll_ctl(epfd_, EPOLL_CTL_DEL, fd, nullptr);
    ::close(fd);
    incoming_.erase(it);
}

void TcpMethod::incoming_expire() {
    const auto now = std::chrono::steady_clock::now();
    std::vector<int> late;
    for (const auto& [fd, in] : incoming_)
        if (now - in.since > kHandshakeTimeout) late.push_back(fd);
    for (int fd : late) incoming_drop(fd, "no handshake within 10 s");
}

void TcpMethod::on_incoming(int fd) {
    auto it = incoming_.find(fd);
    if (it == incoming_.end()) return;
    Incoming& in = it->second;
    const std::size_t need = in.challenged ? kResponseSize : kHelloSize;
    std::uint8_t buf[kHelloSize];
    while (in.got.size() < need) {
        ssize_t n = ::recv(fd, buf, need - in.got.size(), 0);
        if (n > 0) {
            in.got.insert(in.got.end(), buf, buf + n);
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        // Silently: the rank that loses a simultaneous connect closes its
        // attempt here too, and a stranger who gives up has proved nothing.
        incoming_drop(fd, nullptr);
        return;
    }
    if (!in.challenged) {
        if (base::Status challenged = challenge_incoming(in); !challenged)
            incoming_drop(fd, challenged.error().c_str());
        return;
    }
    decide_incoming(in);
}

base::Status TcpMethod::challenge_incoming(Incoming& in) {
    const std::optional<Hello> hello =
        hello_decode(std::span<const std::uint8_t, kHelloSize>(in.got.data(), kHelloSize));
    if (!hello) {
        return base::Error{"not a Strata handshake"};
    }
    in.from_rank = hello->from;
    in.stream = hello->stream;
    in.connector_nonce = hello->nonce;
    const std::uint32_t to = hello->to;
    if (to != static_cast<std::uint32_t>(ctx_.rank) || in.from_rank >= peers_.size() ||
        in.from_rank == static_cast<std::uint32_t>(ctx_.rank)) {
        return base::Error{"invalid ranks in the handshake"};
    }
    if (in.stream >= static_cast<std::uint32_t>(wireup::kStreamsMax)) {
        return base::Error{"invalid stream in the handshake"};
    }
    if (!security::nonce_fill(in.acceptor_nonce)) {
        return base::Error{"cannot make a nonce (the OpenSSL random generator is not seeded)"};
    }
    const auto proof = link_proof(security::ProofRole::link_acceptor, in.connector_nonce, in.acceptor_nonce,
                                  in.from_rank, to, in.stream);
    std::array<std::uint8_t, kChallengeSize> challenge{};
    std::memcpy(challenge.data(), in.acceptor_nonce.data(), in.acceptor_nonce.size());
    std::memcpy(challenge.data() + in.acceptor_nonce.size(), proof.data(), proof.size());
    if (!send_small(in.fd, challenge.data(), challenge.size())) {
        return base::Error{"the connection broke during the handshake"};
    }
    in.challenged = true;
    in.got.clear();
    return {};
}

void TcpMethod::decide_incoming(Incoming& in) {
    const std::uint32_t from = in.from_rank;
    const std::uint32_t stream = in.stream;
    security::Proof proof{};
    std::memcpy(proof.data(), in.got.data(), proof.size());
    const auto expected = link_proof(security::ProofRole::link_connector, in.connector_nonce, in.acceptor_nonce, from,
                                     static_cast<std::uint32_t>(ctx_.rank), stream);
    const int fd = in.fd;
    if (!security::proof_equal(expected, proof)) {
        incoming_drop(fd, "it failed the job-key challenge");
        return;
    }
    const int peer = static_cast<int>(from);
    Peer& p = peers_[from];
    bool accept = false;
    if (stream == 0) {
        accept = p.c.link == Link::idle || p.c.link == Link::awaiting_incoming ||
                 ((p.c.link == Link::connecting || p.c.link == Link::hello_sent ||
                   p.c.link == Link::response_sent) &&
                  peer < ctx_.rank);
    } else {
        // The sender opens each of its streams once.
        accept = p.c.link != Link::failed &&
                 (p.recvs.size() < stream || p.recvs[stream - 1] == nullptr);
    }
    const std::uint32_t answer = base::to_little<std::uint32_t>(accept ? 1 : 0);
    if (!send_small(fd, &answer, sizeof answer) || !accept) {
        incoming_drop(fd, nullptr);
        return;
    }
    const security::Nonce connector_nonce = in.connector_nonce;
    const security::Nonce acceptor_nonce = in.acceptor_nonce;
    incoming_.erase(fd);
    Conn* c = &p.c;
    if (stream == 0) {
        if (p.c.fd >= 0) {  // our own attempt loses to the lower rank's
            epoll_ctl(epfd_, EPOLL_CTL_DEL, p.c.fd, nullptr);
            ::close(p.c.fd);
        }
    } else {
        if (p.recvs.size() < stream) p.recvs.resize(stream);
        p.recvs[stream - 1] = std::make_unique<Conn>();
        c = p.recvs[stream - 1].get();
        c->stream = stream;
        c->key = stream_key(kKeyIn, stream, peer);
    }
    c->fd = fd;
    c->want_out = false;
    c->want_in = true;
    conn_watch(*c, false);  // accepted, it is in the set already
    link_established(peer, *c, true, connector_nonce, acceptor_nonce, from, static_cast<std::uint32_t>(ctx_.rank));
}

bool TcpMethod::wants_tls(int peer) const {
    if (data_tls_ == "all") return true;
    return data_tls_ == "wan" && peers_[static_cast<std::size_t>(peer)].site != my_site_;
}

void TcpMethod::link_established(int peer, Conn& c, bool server, const security::Nonce& connector,
                                 const security::Nonce& acceptor, std::uint32_t from, std::uint32_t to) {
    // Stream 0 and the streams we read need room for what arrives; a stream
    // we only write to reads nothing but its end (and TLS's own records).
    c.rx.resize(c.stream == 0 || server ? kStaging : 256);
    if (!wants_tls(peer)) {
        c.link = Link::connected;
        c.established = true;
        set_want_out(c, !c.out.empty());
        return;
    }
    const TlsLink::Key key = link_proof(security::ProofRole::link_tls_key, connector, acceptor, from, to, c.stream);
    base::Result<std::unique_ptr<TlsLink>> tls = TlsLink::create(server, c.fd, key);
    if (!tls) {
        link_failed(peer, tls.error(), nullptr);
        return;
    }
    c.tls = std::move(*tls);
    c.link = Link::tls_handshake;
    switch (c.tls->handshake()) {
        case TlsLink::Step::failed:
            link_failed(peer, "TLS with rank " + std::to_string(peer) + ": " + c.tls->error(), nullptr);
            return;
        case TlsLink::Step::again:
            // The handshake goes on at the next polls.
            set_want_out(c, c.tls->wants_write());
            return;
        case TlsLink::Step::done:
            // The other side was quick (or this process was descheduled after
            // its first flight). The next poll finishes the step in
            // tls_step(), which sends what waits and reads what TLS may
            // already hold.
            set_want_out(c, true);
            return;
    }
}

void TcpMethod::tls_step(int peer, Conn& c, adi::Upcalls& up) {
    switch (c.tls->handshake()) {
        case TlsLink::Step::again: set_want_out(c, c.tls->wants_write()); return;
        case TlsLink::Step::failed:
            link_failed(peer, "TLS with rank " + std::to_string(peer) + ": " + c.tls->error(), &up);
            return;
        case TlsLink::Step::done:
            c.link = Link::connected;
            c.established = true;
            set_want_out(c, !c.out.empty());
            conn_ready(peer, c, up);
            return;
    }
}

void TcpMethod::conn_ready(int peer, Conn& c, adi::Upcalls& up) {
    Peer& p = peers_[static_cast<std::size_t>(peer)];
    flush(peer, c, &up);
    if (c.link != Link::connected) return;
    // TLS may already hold the first data; a stream a striped payload waits
    // for may be this one.
    if (c.stream == 0) {
        if (c.tls) read_peer(peer, up);
    } else if (&c != &p.c && c.key == stream_key(kKeyIn, c.stream, peer)) {
        read_stream(peer, c, up);
    }
}

adi::SendStatus TcpMethod::send(int peer, const adi::Header& h, std::span<const iovec> data, std::uint64_t token) {
    Peer& p = peers_[static_cast<std::size_t>(peer)];
    Conn& c = p.c;
    if (c.link == Link::failed || c.link == Link::closed) return adi::SendStatus::failed;

    std::uint64_t total = sizeof(adi::Header);
    for (const iovec& v : data) total += v.iov_len;
    // A large payload to a peer that gets several streams goes in stripes.
    if (p.streams > 1 && total - sizeof(adi::Header) > stripe_unit_)
        return send_striped(peer, h, data, token, total - sizeof(adi::Header));
    // On a link wide-area emulation shapes, the stamp goes first.
    const bool shaped = emulator_.shaped(peer);
    const std::uint64_t due = shaped ? base::to_little(emulator_.stamp(peer, 0, total)) : 0;
    if (shaped) total += sizeof due;
    if (c.link == Link::connected && c.out.empty()) {
        adi::Header scratch;
        const adi::Header& wire = adi::wire_bytes(h, scratch);
        iovec iov[9];
        std::size_t n_iov = 0;
        if (shaped) iov[n_iov++] = iovec{const_cast<std::uint64_t*>(&due), sizeof due};
        iov[n_iov++] = iovec{const_cast<adi::Header*>(&wire), sizeof wire};
        const std::size_t limit = n_iov + 7;
        for (const iovec& v : data) {
            if (n_iov == limit) break;
            iov[n_iov++] = v;
        }
        msghdr m{};
        m.msg_iov = iov;
        m.msg_iovlen = n_iov;
        ++counters_.writes;
        // A header alone (control packets, empty messages) skips the msghdr
        // and iovec import of sendmsg().
        ssize_t n = c.tls        ? c.tls->writev(iov, static_cast<int>(n_iov))
                    : n_iov == 1 ? ::send(c.fd, &wire, sizeof wire, MSG_NOSIGNAL)
                                 : ::sendmsg(c.fd, &m, MSG_NOSIGNAL);
        if (n == static_cast<ssize_t>(total)) return adi::SendStatus::done;
        if (n == TlsLink::kFailed) {
            link_failed(peer, "sending to rank " + std::to_string(peer) + " failed: " + c.tls->error(), nullptr);
            return adi::SendStatus::failed;
        }
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
            link_failed(peer, "sending to rank " + std::to_string(peer) + " failed: " + errno_text(errno), nullptr);
            return adi::SendStatus::failed;
        }
        auto pkt = out_packet(h, data, token, shaped, due);
        // Drop what already left.
        std::size_t sent = n > 0 ? static_cast<std::size_t>(n) : 0;
        std::size_t i = 0;
        while (sent > 0 && i < pkt->iov.size()) {
            std::size_t take = std::min(sent, pkt->iov[i].iov_len);
            pkt->iov[i].iov_base = static_cast<char*>(pkt->iov[i].iov_base) + take;
            pkt->iov[i].iov_len -= take;
            sent -= take;
            if (pkt->iov[i].iov_len == 0) ++i;
        }
        pkt->iov.erase(pkt->iov.begin(), pkt->iov.begin() + static_cast<std::ptrdiff_t>(i));
        c.out.push_back(std::move(pkt));
        set_want_out(c, true);
        return adi::SendStatus::queued;
    }

    c.out.push_back(out_packet(h, data, token, shaped, due));
    if (c.link == Link::idle) start_connect(peer, c);
    if (c.link == Link::failed) return adi::SendStatus::failed;
    if (c.link == Link::connected) set_want_out(c, true);
    return adi::SendStatus::queued;
}

adi::SendStatus TcpMethod::send_striped(int peer, const adi::Header& h, std::span<const iovec> data,
                                        std::uint64_t token, std::uint64_t payload) {
    Peer& p = peers_[static_cast<std::size_t>(peer)];
    const int n = p.streams;
    if (p.sends.size() < static_cast<std::size_t>(n - 1)) p.sends.resize(static_cast<std::size_t>(n - 1));
    for (int k = 1; k < n; ++k) {
        std::unique_ptr<Conn>& s = p.sends[static_cast<std::size_t>(k - 1)];
        if (!s) {
            s = std::make_unique<Conn>();
            s->stream = static_cast<std::uint32_t>(k);
            s->key = stream_key(kKeyOut, s->stream, peer);
        }
        if (s->link == Link::closed) {
            link_failed(peer, "rank " + std::to_string(peer) + " closed stream " + std::to_string(k) + " of its link",
                        nullptr);
            return adi::SendStatus::failed;
        }
        if (s->link == Link::idle) start_connect(peer, *s);
        if (p.c.link == Link::failed) return adi::SendStatus::failed;
    }
    const bool shaped = emulator_.shaped(peer);
    // This call holds one count of the group until it has tried to write, so
    // the group completes here (done) or later (on_sent), never both.
    auto group = std::make_shared<Striped>();
    group->left = 1;
    StripeRecord plan{};
    plan.type = kRecordPlan;
    plan.streams = static_cast<std::uint8_t>(n);
    plan.unit = static_cast<std::uint32_t>(stripe_unit_);
    plan.seq = p.stripe_seq++;
    plan.total = payload;
    auto first = std::make_unique<OutPacket>();
    first->record = plan;
    first->header = h;
    to_wire(first->record);
    adi::to_wire(first->header);
    first->group = group;
    if (shaped) {
        first->due = base::to_little(emulator_.stamp(peer, 0, 2 * sizeof(adi::Header)));
        first->iov.push_back(iovec{&first->due, sizeof first->due});
    }
    first->iov.push_back(iovec{&first->record, sizeof first->record});
    first->iov.push_back(iovec{&first->header, sizeof first->header});
    ++group->left;
    p.c.out.push_back(std::move(first));
    const std::uint64_t count = stripe_count(payload, stripe_unit_);
    for (std::uint64_t i = 0; i < count; ++i) {
        const auto k = static_cast<std::size_t>(i % static_cast<std::uint64_t>(n));
        Conn& c = k == 0 ? p.c : *p.sends[k - 1];
        auto pkt = std::make_unique<OutPacket>();
        pkt->record.type = kRecordStripe;
        pkt->record.seq = plan.seq;
        pkt->record.offset = stripe_offset(plan, i);
        pkt->record.length = stripe_length(plan, i);
        pkt->record.total = payload;
        pkt->group = group;
        if (shaped) {
            pkt->due = base::to_little(emulator_.stamp(
                peer, static_cast<int>(k), sizeof pkt->record + static_cast<std::size_t>(pkt->record.length)));
            pkt->iov.push_back(iovec{&pkt->due, sizeof pkt->due});
        }
        pkt->iov.push_back(iovec{&pkt->record, sizeof pkt->record});
        iov_slice(data, static_cast<std::size_t>(pkt->record.offset), static_cast<std::size_t>(pkt->record.length),
                  pkt->iov);
        to_wire(pkt->record);
        ++group->left;
        c.out.push_back(std::move(pkt));
    }
    counters_.stripes_sent += count;
    if (p.c.link == Link::idle) start_connect(peer, p.c);
    if (p.c.link == Link::failed) return adi::SendStatus::failed;
    if (p.c.link == Link::connected) flush(peer, p.c, nullptr);
    for (int k = 1; k < n && p.c.link != Link::failed; ++k) {
        Conn& s = *p.sends[static_cast<std::size_t>(k - 1)];
        if (s.link == Link::connected) flush(peer, s, nullptr);
    }
    if (p.c.link == Link::failed) return adi::SendStatus::failed;
    if (--group->left == 0) return adi::SendStatus::done;
    group->token = token;
    return adi::SendStatus::queued;
}

std::unique_ptr<TcpMethod::OutPacket> TcpMethod::out_packet(const adi::Header& h, std::span<const iovec> data,
                                                             std::uint64_t token, bool shaped, std::uint64_t due) {
    auto pkt = std::make_unique<OutPacket>();
    pkt->due = due;
    pkt->header = h;
    adi::to_wire(pkt->header);
    pkt->token = token;
    if (shaped) pkt->iov.push_back(iovec{&pkt->due, sizeof pkt->due});
    pkt->iov.push_back(iovec{&pkt->header, sizeof pkt->header});
    for (const iovec& v : data) pkt->iov.push_back(v);
    return pkt;
}

bool TcpMethod::send_now(int peer, const adi::Header& h, const std::byte* data, std::size_t n) {
    Peer& p = peers_[static_cast<std::size_t>(peer)];
    Conn& c = p.c;
    if (c.link != Link::connected || !c.out.empty() || c.tls || emulator_.shaped(peer) ||
        (p.streams > 1 && n > stripe_unit_))
        return false;
    adi::Header scratch;
    const adi::Header& wire = adi::wire_bytes(h, scratch);
    iovec iov[2] = {iovec{const_cast<adi::Header*>(&wire), sizeof wire}, iovec{const_cast<std::byte*>(data), n}};
    msghdr m{};
    m.msg_iov = iov;
    m.msg_iovlen = 2;
    ++counters_.writes;
    const ssize_t w = n == 0 ? ::send(c.fd, &wire, sizeof wire, MSG_NOSIGNAL) : ::sendmsg(c.fd, &m, MSG_NOSIGNAL);
    const std::size_t total = sizeof h + n;
    if (w == static_cast<ssize_t>(total)) return true;
    // Nothing left: send() takes it from here (and reports a broken link).
    if (w <= 0) return false;
    // Part of the packet is in the stream: the rest must follow, from a copy.
    auto pkt = std::make_unique<OutPacket>();
    pkt->header = wire;
    pkt->copy.resize(total - static_cast<std::size_t>(w));
    const std::size_t from = static_cast<std::size_t>(w);
    std::size_t at = 0;
    if (from < sizeof h) {
        at = sizeof h - from;
        std::memcpy(pkt->copy.data(), reinterpret_cast<const std::byte*>(&wire) + from, at);
    }
    const std::size_t data_from = from > sizeof h ? from - sizeof h : 0;
    if (n > data_from) std::memcpy(pkt->copy.data() + at, data + data_from, n - data_from);
    pkt->iov.push_back(iovec{pkt->copy.data(), pkt->copy.size()});
    c.out.push_back(std::move(pkt));
    set_want_out(c, true);
    return true;
}

void TcpMethod::flush(int peer, Conn& c, adi::Upcalls* up) {
    while (!c.out.empty() && c.link == Link::connected) {
        OutPacket& pkt = *c.out.front();
        msghdr m{};
        m.msg_iov = pkt.iov.data();
        m.msg_iovlen = std::min<std::size_t>(pkt.iov.size(), IOV_MAX);
        ++counters_.writes;
        ssize_t n = c.tls ? c.tls->writev(m.msg_iov, static_cast<int>(m.msg_iovlen))
                          : ::sendmsg(c.fd, &m, MSG_NOSIGNAL);
        if (n < 0) {
            if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
            const std::string why = c.tls ? c.tls->error() : errno_text(errno);
            link_failed(peer, "sending to rank " + std::to_string(peer) + " failed: " + why, up);
            return;
        }
        std::size_t sent = static_cast<std::size_t>(n);
        std::size_t i = 0;
        while (sent > 0 && i < pkt.iov.size()) {
            std::size_t take = std::min(sent, pkt.iov[i].iov_len);
            pkt.iov[i].iov_base = static_cast<char*>(pkt.iov[i].iov_base) + take;
            pkt.iov[i].iov_len -= take;
            sent -= take;
            if (pkt.iov[i].iov_len == 0) ++i;
        }
        while (i < pkt.iov.size() && pkt.iov[i].iov_len == 0) ++i;
        pkt.iov.erase(pkt.iov.begin(), pkt.iov.begin() + static_cast<std::ptrdiff_t>(i));
        if (!pkt.iov.empty()) break;  // the socket buffer is full
        std::uint64_t token = pkt.token;
        const std::shared_ptr<Striped> group = std::move(pkt.group);
        c.out.pop_front();
        if (group) token = --group->left == 0 ? group->token : 0;
        if (token == 0) continue;
        // Inside send() (no upcalls): reported at the next poll.
        if (up != nullptr)
            up->on_sent(token);
        else
            sent_later_.push_back(token);
    }
    set_want_out(c, !c.out.empty());
}

void TcpMethod::land_bytes(Peer& p, int peer, adi::Upcalls& up, const std::byte* src, std::size_t n) {
    std::size_t done = 0;
    while (done < n && p.land_at < p.land.capacity && p.land.dest != nullptr) {
        const std::size_t copy = std::min(p.land.capacity - p.land_at, n - done);
        std::memcpy(p.land.dest + p.land_at, src + done, copy);
        p.land_at += copy;
        done += copy;
        p.pay_done += copy;
        landing_advance(p, peer, up);
    }
    // Whatever no landing takes is discarded (truncation).
    p.pay_done += n - done;
}

void TcpMethod::parse_staged(int peer, adi::Upcalls& up) {
    Peer& p = peers_[static_cast<std::size_t>(peer)];
    Conn& c = p.c;
    while (c.link == Link::connected) {
        if (p.in_payload) {
            if (p.striped) break;  // its bytes come through stripes_read()
            const std::uint64_t left = p.cur.length - p.pay_done;
            const std::size_t avail = c.rx_end - c.rx_begin;
            const std::size_t take = static_cast<std::size_t>(std::min<std::uint64_t>(left, avail));
            land_bytes(p, peer, up, c.rx.data() + c.rx_begin, take);
            c.rx_begin += take;
            if (p.pay_done < p.cur.length) break;  // need more from the socket
            p.in_payload = false;
            up.on_payload(peer, p.cur, p.land);
            continue;
        }
        if (c.rx_end - c.rx_begin < sizeof(adi::Header)) break;
        if (static_cast<std::uint8_t>(c.rx[c.rx_begin]) >= adi::kMethodRecordFirst) {
            // A striped packet: its plan, then its header (stripes.hpp).
            if (c.rx_end - c.rx_begin < 2 * sizeof(adi::Header)) break;
            StripeRecord plan{};
            std::memcpy(&plan, c.rx.data() + c.rx_begin, sizeof plan);
            from_wire(plan);
            std::memcpy(&p.cur, c.rx.data() + c.rx_begin + sizeof plan, sizeof p.cur);
            adi::from_wire(p.cur);
            c.rx_begin += 2 * sizeof(adi::Header);
            if (plan.type != kRecordPlan || plan.streams == 0 || plan.streams > wireup::kStreamsMax ||
                plan.unit == 0 || plan.total != adi::wire_payload(p.cur)) {
                link_failed(peer, "rank " + std::to_string(peer) + " sent a malformed stripe plan", &up);
                return;
            }
            p.land = up.on_header(peer, p.cur);
            p.land_at = 0;
            p.pay_done = 0;
            p.in_payload = true;
            p.striped = true;
            p.plan = plan;
            p.stripe = 0;
            p.stripe_head = false;
            p.stripe_left = 0;
            break;
        }
        std::memcpy(&p.cur, c.rx.data() + c.rx_begin, sizeof(adi::Header));
        adi::from_wire(p.cur);
        c.rx_begin += sizeof(adi::Header);
        if (const std::uint64_t pay = adi::wire_payload(p.cur); c.rx_end - c.rx_begin >= pay) {
            // All of it is here: delivered in one step.
            const std::size_t at = c.rx_begin;
            c.rx_begin += pay;
            up.on_packet(peer, p.cur, c.rx.data() + at);
            continue;
        }
        adi::Landing land = up.on_header(peer, p.cur);
        if (adi::carries_payload(p.cur.type)) {
            p.in_payload = true;
            p.land = land;
            p.land_at = 0;
            p.pay_done = 0;
        }
    }
    if (c.rx_begin == c.rx_end) {
        c.rx_begin = 0;
        c.rx_end = 0;
    } else if (c.rx_begin > 0 && !p.in_payload) {
        // Keep a partial header at the front so the next read completes it.
        std::memmove(c.rx.data(), c.rx.data() + c.rx_begin, c.rx_end - c.rx_begin);
        c.rx_end -= c.rx_begin;
        c.rx_begin = 0;
    }
}

void TcpMethod::landing_advance(Peer& p, int peer, adi::Upcalls& up) {
    if (p.land_at == p.land.capacity && p.land.capacity > 0 && p.pay_done < p.cur.length) {
        p.land = up.on_landing_full(peer, p.cur, p.land);
        p.land_at = 0;
    }
}

ssize_t TcpMethod::conn_read(Conn& c, iovec* iov, int n_iov) {
    ++counters_.reads;
    // recv() on one buffer costs about 100 ns less than readv() here (no
    // iovec import, no VFS layer), and one buffer is the small-message case.
    // TLS reads one buffer at a time (a record at most), so it fills the
    // landing buffer first and the staging buffer on the next round.
    return c.tls        ? c.tls->read(iov[0].iov_base, iov[0].iov_len)
           : n_iov == 1 ? ::recv(c.fd, iov[0].iov_base, iov[0].iov_len, 0)
                        : ::readv(c.fd, iov, n_iov);
}

[[gnu::always_inline]] inline ssize_t TcpMethod::conn_recv(Conn& c, void* buf, std::size_t n) {
    ++counters_.reads;
    return c.tls ? c.tls->read(buf, n) : ::recv(c.fd, buf, n, 0);
}

// What a failed read on `c` from `peer` returned, in words: the peer closed
// (n == 0), TLS failed, or the system call did (errno).
[[gnu::always_inline]] inline std::string TcpMethod::read_failure(int peer, const Conn& c, ssize_t n) const {
    if (n == 0)
        return "rank " + std::to_string(peer) + " (host " + peers_[static_cast<std::size_t>(peer)].hostname +
               ") closed its connection";
    return "receiving from rank " + std::to_string(peer) +
           " failed: " + (n == TlsLink::kFailed ? c.tls->error() : errno_text(errno));
}

[[gnu::always_inline]] inline bool TcpMethod::read_retry(int peer, const Conn& c, ssize_t n, adi::Upcalls& up) {
    if (n == -1 && errno == EINTR) return true;
    if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK)) return false;
    link_failed(peer, read_failure(peer, c, n), &up);
    return false;
}

[[gnu::always_inline]] inline TcpMethod::Conn* TcpMethod::stripe_conn(int peer, Peer& p, adi::Upcalls& up) {
    const auto k = static_cast<std::size_t>(p.stripe % p.plan.streams);
    Conn* c = k == 0 ? &p.c : k <= p.recvs.size() ? p.recvs[k - 1].get() : nullptr;
    if (c == nullptr || c->link == Link::tls_handshake) return nullptr;  // its handshake ends in conn_ready()
    if (c->link != Link::connected) {
        link_failed(peer,
                    "rank " + std::to_string(peer) + " closed stream " + std::to_string(k) +
                        " of its link in the middle of a message",
                    &up);
        return nullptr;
    }
    return c;
}

[[gnu::always_inline]] inline bool TcpMethod::stripe_head_next(int peer, Peer& p, Conn& c, adi::Upcalls& up, ssize_t& n,
                                                               std::size_t& asked) {
    if (c.rx_end - c.rx_begin < sizeof(StripeRecord)) {
        // Complete the record: the rest of it and what follows.
        if (c.rx_begin > 0) {
            std::memmove(c.rx.data(), c.rx.data() + c.rx_begin, c.rx_end - c.rx_begin);
            c.rx_end -= c.rx_begin;
            c.rx_begin = 0;
        }
        asked = c.rx.size() - c.rx_end;
        n = conn_recv(c, c.rx.data() + c.rx_end, asked);
        if (n > 0) c.rx_end += static_cast<std::size_t>(n);
        return true;
    }
    StripeRecord rec{};
    std::memcpy(&rec, c.rx.data() + c.rx_begin, sizeof rec);
    from_wire(rec);
    c.rx_begin += sizeof rec;
    if (rec.type != kRecordStripe || rec.seq != p.plan.seq || rec.offset != stripe_offset(p.plan, p.stripe) ||
        rec.length != stripe_length(p.plan, p.stripe)) {
        link_failed(peer, "rank " + std::to_string(peer) + " sent a stripe out of order", &up);
        return false;
    }
    p.stripe_head = true;
    p.stripe_left = rec.length;
    return true;
}

[[gnu::always_inline]] inline ssize_t TcpMethod::stripe_read_direct(int peer, Peer& p, Conn& c, adi::Upcalls& up,
                                                                    std::size_t& asked) {
    // Straight into the landing, and what follows on this stream
    // into its staging buffer.
    c.rx_begin = c.rx_end = 0;
    iovec iov[2];
    int n_iov = 0;
    std::size_t direct = 0;
    if (p.land.dest != nullptr && p.land_at < p.land.capacity) {
        direct = static_cast<std::size_t>(std::min<std::uint64_t>(p.stripe_left, p.land.capacity - p.land_at));
        iov[n_iov++] = iovec{p.land.dest + p.land_at, direct};
    }
    iov[n_iov++] = iovec{c.rx.data(), c.rx.size()};
    asked = direct + c.rx.size();
    const ssize_t n = conn_read(c, iov, n_iov);
    if (n > 0) {
        const std::size_t into = std::min(static_cast<std::size_t>(n), direct);
        p.land_at += into;
        p.pay_done += into;
        p.stripe_left -= into;
        c.rx_end = static_cast<std::size_t>(n) - into;
        if (into > 0) landing_advance(p, peer, up);
    }
    return n;
}

[[gnu::always_inline]] inline bool TcpMethod::stripe_done(int peer, Peer& p, std::uint64_t count, adi::Upcalls& up) {
    p.stripe_head = false;
    ++counters_.stripes_received;
    if (++p.stripe != count) return false;
    p.striped = false;
    p.in_payload = false;
    set_want_in(p.c, true);
    up.on_payload(peer, p.cur, p.land);
    return true;
}

bool TcpMethod::stripes_read(int peer, adi::Upcalls& up) {
    Peer& p = peers_[static_cast<std::size_t>(peer)];
    const std::uint64_t count = stripe_count(p.plan.total, p.plan.unit);
    while (p.c.link == Link::connected) {
        Conn* c = stripe_conn(peer, p, up);
        if (c == nullptr) return false;
        set_want_in(*c, true);
        std::size_t asked = 0;
        ssize_t n = 0;
        if (!p.stripe_head) {
            if (!stripe_head_next(peer, p, *c, up, n, asked)) return false;
        } else if (c->rx_begin < c->rx_end) {
            const std::size_t take =
                static_cast<std::size_t>(std::min<std::uint64_t>(p.stripe_left, c->rx_end - c->rx_begin));
            land_bytes(p, peer, up, c->rx.data() + c->rx_begin, take);
            c->rx_begin += take;
            p.stripe_left -= take;
        } else {
            n = stripe_read_direct(peer, p, *c, up, asked);
        }
        if (n < 0 || (asked > 0 && n == 0)) {
            if (read_retry(peer, *c, n, up)) continue;
            return false;
        }
        if (c->rx_begin == c->rx_end) c->rx_begin = c->rx_end = 0;
        if (p.stripe_head && p.stripe_left == 0) {
            if (stripe_done(peer, p, count, up)) return true;
            continue;
        }
        // A short read emptied the socket: wait for it to say more has come.
        if (!c->tls && asked > 0 && static_cast<std::size_t>(n) < asked && c->rx_begin == c->rx_end) return false;
    }
    return false;
}

bool TcpMethod::stripes_go(int peer, adi::Upcalls& up) {
    Peer& p = peers_[static_cast<std::size_t>(peer)];
    while (p.striped) {
        if (!stripes_read(peer, up)) {
            // Stream 0's bytes wait while another stream's come first.
            if (p.striped && p.stripe % p.plan.streams != 0) set_want_in(p.c, false);
            return false;
        }
        parse_staged(peer, up);
    }
    return p.c.link == Link::connected;
}

void TcpMethod::read_stream(int peer, Conn& c, adi::Upcalls& up) {
    Peer& p = peers_[static_cast<std::size_t>(peer)];
    const bool ours = c.key == stream_key(kKeyOut, c.stream, peer);
    if (!ours && !emulator_.shaped(peer)) {
        if (p.striped && p.stripe % p.plan.streams == c.stream) {
            stripes_go(peer, up);
        } else {
            // Its bytes are not the next ones: they wait in the socket.
            set_want_in(c, false);
        }
        return;
    }
    // A stream the emulation holds the packets of reads all it gets; a
    // stream we send on only learns that the peer closed it.
    while (c.link == Link::connected) {
        iovec iov{c.rx.data(), c.rx.size()};
        const ssize_t n = conn_read(c, &iov, 1);
        if (n > 0) {
            if (!ours) emulator_.feed(peer, static_cast<int>(c.stream), c.rx.data(), static_cast<std::size_t>(n));
            if (!c.tls && static_cast<std::size_t>(n) < iov.iov_len) return;
            continue;
        }
        if (n == -1 && errno == EINTR) continue;
        if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        if (n == 0 && c.out.empty()) {
            conn_close(c);
            c.link = Link::closed;
            return;
        }
        link_failed(peer, read_failure(peer, c, n), &up);
        return;
    }
}

[[gnu::always_inline]] inline std::size_t TcpMethod::read_iov(Peer& p, iovec* iov, int& n_iov) {
    Conn& c = p.c;
    std::size_t direct = 0;
    // In the middle of a payload with an empty staging buffer: read the rest
    // straight into the landing buffer, and what follows into staging.
    if (p.in_payload && c.rx_begin == c.rx_end && p.land_at < p.land.capacity && p.land.dest != nullptr) {
        c.rx_begin = c.rx_end = 0;
        std::uint64_t left = p.cur.length - p.pay_done;
        direct = static_cast<std::size_t>(std::min<std::uint64_t>(left, p.land.capacity - p.land_at));
        iov[n_iov++] = iovec{p.land.dest + p.land_at, direct};
    }
    if (c.rx_begin == c.rx_end) c.rx_begin = c.rx_end = 0;
    iov[n_iov++] = iovec{c.rx.data() + c.rx_end, c.rx.size() - c.rx_end};
    return direct;
}

[[gnu::always_inline]] inline void TcpMethod::direct_landed(int peer, Peer& p, std::size_t into, adi::Upcalls& up) {
    p.pay_done += into;
    p.land_at += into;
    if (p.pay_done == p.cur.length) {
        p.in_payload = false;
        up.on_payload(peer, p.cur, p.land);
    } else {
        landing_advance(p, peer, up);
    }
}

void TcpMethod::peer_close(Peer& p) {
    conn_close(p.c);
    p.c.link = Link::closed;
    for (auto* list : {&p.sends, &p.recvs})
        for (auto& s : *list)
            if (s != nullptr) {
                conn_close(*s);
                s->link = Link::closed;
            }
}

[[gnu::always_inline]] inline void TcpMethod::peer_closed(int peer, adi::Upcalls& up) {
    Peer& p = peers_[static_cast<std::size_t>(peer)];
    // Normal after MPI_Finalize, fatal for anything still owed.
    bool owed = !p.c.out.empty() || p.in_payload;
    for (const auto& s : p.sends) owed = owed || (s != nullptr && !s->out.empty());
    if (owed) {
        link_failed(peer, read_failure(peer, p.c, 0), &up);
        return;
    }
    peer_close(p);
}

void TcpMethod::read_peer(int peer, adi::Upcalls& up) {
    Peer& p = peers_[static_cast<std::size_t>(peer)];
    Conn& c = p.c;
    if (p.striped && !stripes_go(peer, up)) return;
    while (c.link == Link::connected) {
        iovec iov[2];
        int n_iov = 0;
        const std::size_t direct = read_iov(p, iov, n_iov);
        const std::size_t asked = direct + iov[n_iov - 1].iov_len;
        const ssize_t n = conn_read(c, iov, n_iov);
        if (n < 0) {
            if (read_retry(peer, c, n, up)) continue;
            return;
        }
        if (n == 0) {
            peer_closed(peer, up);
            return;
        }
        std::size_t got = static_cast<std::size_t>(n);
        if (direct > 0) {
            const std::size_t into = std::min(got, direct);
            got -= into;
            direct_landed(peer, p, into, up);
        }
        c.rx_end += got;
        if (emulator_.shaped(peer)) {
            // Whole packets are held until their stamp (emulator.hpp).
            emulator_.feed(peer, 0, c.rx.data() + c.rx_begin, c.rx_end - c.rx_begin);
            c.rx_begin = c.rx_end = 0;
        } else {
            parse_staged(peer, up);
            if (p.striped && !stripes_go(peer, up)) return;
        }
        // A short read emptied the socket: reading again now would only return
        // EAGAIN, one more system call on every message's critical path. The
        // epoll set is level-triggered, so whatever arrives next is reported at
        // the next poll.
        // (TLS returns a record per read and may hold more: it reads on until EAGAIN.)
        if (!c.tls && static_cast<std::size_t>(n) < asked) return;
    }
}

void TcpMethod::link_failed(int peer, const std::string& why, adi::Upcalls* up) {
    Peer& p = peers_[static_cast<std::size_t>(peer)];
    if (p.c.link == Link::failed) return;
    p.c.link = Link::failed;
    p.error = why;
    conn_close(p.c);
    p.c.out.clear();
    for (auto* list : {&p.sends, &p.recvs}) {
        for (auto& s : *list) {
            if (s == nullptr) continue;
            conn_close(*s);
            s->out.clear();
            s->link = Link::failed;
        }
    }
    p.striped = false;
    if (up != nullptr) {
        up->on_peer_failed(peer, why);
    } else {
        failures_.emplace_back(peer, why);
    }
}

[[gnu::always_inline]] inline void TcpMethod::incoming_accept() {
    for (;;) {
        sockaddr_in from{};
        socklen_t len = sizeof from;
        int fd = ::accept4(listen_fd_, reinterpret_cast<sockaddr*>(&from), &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) break;
        socket_tune(fd);
        incoming_expire();
        Incoming in;
        in.fd = fd;
        in.since = std::chrono::steady_clock::now();
        in.from = ipv4_text(ntohl(from.sin_addr.s_addr)) + ":" + std::to_string(ntohs(from.sin_port));
        incoming_.emplace(fd, std::move(in));
        epoll_event ev{};
        ev.events = EPOLLIN;
        ev.data.u64 = kKeyIncoming | static_cast<std::uint32_t>(fd);
        epoll_ctl(epfd_, EPOLL_CTL_ADD, fd, &ev);
    }
}

[[gnu::always_inline]] inline void TcpMethod::handshake_event(int peer, Conn& c, std::uint32_t events,
                                                              adi::Upcalls& up) {
    switch (c.link) {
        case Link::connecting:
            if ((events & (EPOLLOUT | EPOLLERR | EPOLLHUP)) != 0) on_connected(peer, c);
            break;
        case Link::hello_sent:
        case Link::response_sent: on_reply(peer, c, up); break;
        case Link::tls_handshake: tls_step(peer, c, up); break;
        default: break;
    }
}

[[gnu::always_inline]] inline void TcpMethod::peer_event(int peer, std::uint32_t events, adi::Upcalls& up) {
    Conn& c = peers_[static_cast<std::size_t>(peer)].c;
    if (c.link != Link::connected) {
        handshake_event(peer, c, events, up);
        return;
    }
    if ((events & (EPOLLIN | EPOLLERR | EPOLLHUP)) != 0) read_peer(peer, up);
    if ((events & EPOLLOUT) != 0 && c.link == Link::connected) flush(peer, c, &up);
}

[[gnu::always_inline]] inline bool TcpMethod::stream_event(std::uint64_t key, std::uint32_t events, adi::Upcalls& up) {
    const int peer = static_cast<int>(key & kPeerBits);
    Conn* c = conn_of(peer, key);
    if (c == nullptr) return false;
    if (c->link != Link::connected) {
        handshake_event(peer, *c, events, up);
        return true;
    }
    if ((events & (EPOLLERR | EPOLLHUP)) != 0 && (key & kKindBits) == kKeyIn && !c->want_in) {
        // A muted stream broke: it would be reported at every poll.
        conn_close(*c);
        c->link = Link::closed;
        return true;
    }
    if ((events & (EPOLLIN | EPOLLERR | EPOLLHUP)) != 0) read_stream(peer, *c, up);
    if ((events & EPOLLOUT) != 0 && c->link == Link::connected) flush(peer, *c, &up);
    return true;
}

int TcpMethod::poll(adi::Upcalls& up) {
    int events = 0;
    events += adi::failures_report(up, failures_);
    if (!sent_later_.empty()) {
        const std::vector<std::uint64_t> done = std::exchange(sent_later_, {});
        for (const std::uint64_t token : done) up.on_sent(token);
        events += static_cast<int>(done.size());
    }
    epoll_event evs[64];
    ++counters_.waits;
    int n = epoll_wait(epfd_, evs, 64, 0);
    for (int i = 0; i < n; ++i) {
        const std::uint64_t key = evs[i].data.u64;
        const std::uint64_t kind = key & kKindBits;
        const int index = static_cast<int>(key & 0xffffffffu);
        if (kind == kKeyListener) {
            incoming_accept();
        } else if (kind == kKeyIncoming) {
            on_incoming(index);
        } else if (kind == kKeyTimer) {
            emulator_.timer_clear();
        } else if (kind == kKeyPeer) {
            peer_event(index, evs[i].events, up);
        } else if (kind == kKeyOut || kind == kKeyIn) {
            if (!stream_event(key, evs[i].events, up)) continue;
        }
        ++events;
    }
    events += emulator_.deliver(up);
    events += adi::failures_report(up, failures_);
    return events;
}

bool TcpMethod::has_queued_sends() const {
    for (const Peer& p : peers_) {
        if (p.c.link == Link::failed) continue;
        if (!p.c.out.empty()) return true;
        for (const auto& s : p.sends)
            if (s != nullptr && !s->out.empty()) return true;
    }
    return false;
}

void TcpMethod::shutdown() {
    for (Peer& p : peers_) peer_close(p);
    for (auto& [fd, in] : incoming_) ::close(fd);
    incoming_.clear();
    if (listen_fd_ >= 0) ::close(listen_fd_);
    listen_fd_ = -1;
    if (epfd_ >= 0) ::close(epfd_);
    epfd_ = -1;
}

std::unique_ptr<adi::Method> create(const adi::MethodContext& ctx) { return std::make_unique<TcpMethod>(ctx); }

}  // namespace strata::dev::tcp
