#include "devices/tcp/tcp_method.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "base/knob.hpp"
#include "devices/tcp/handshake.hpp"
#include "devices/tcp/network.hpp"

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

// Held packets due within this long keep the process polling instead of
// sleeping; the timer wakes it this long before later ones.
constexpr std::int64_t kEmulationSpinNs = 2'000'000;

constexpr std::size_t kChallengeSize = security::kNonceBytes + security::kProofBytes;
constexpr std::size_t kResponseSize = security::kProofBytes;
constexpr std::size_t kAnswerSize = 4;
constexpr auto kHandshakeTimeout = std::chrono::seconds(10);
constexpr std::size_t kStaging = 64 * 1024;

constexpr std::uint64_t kKeyListener = 1ull << 32;
constexpr std::uint64_t kKeyPeer = 2ull << 32;
constexpr std::uint64_t kKeyIncoming = 3ull << 32;
constexpr std::uint64_t kKeyTimer = 4ull << 32;

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
    epfd_ = epoll_create1(EPOLL_CLOEXEC);
    peers_ = std::vector<Peer>(static_cast<std::size_t>(ctx_.size));
}

TcpMethod::~TcpMethod() { shutdown(); }

void TcpMethod::watch(int fd, std::uint64_t key, bool want_out, bool add) {
    epoll_event ev{};
    ev.events = EPOLLIN | (want_out ? EPOLLOUT : 0u);
    ev.data.u64 = key;
    epoll_ctl(epfd_, add ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd, &ev);
}

void TcpMethod::set_want_out(int peer, bool on) {
    Peer& p = peers_[static_cast<std::size_t>(peer)];
    if (p.want_out == on || p.fd < 0) return;
    p.want_out = on;
    watch(p.fd, kKeyPeer | static_cast<std::uint32_t>(peer), on, false);
}

bool TcpMethod::listen_open(std::string& error) {
    auto ifs = interfaces_list();
    auto choice = network_choose(network_knob.get(), ifs, error);
    if (!choice) return false;
    auto range = port_range_parse(port_range_knob.get(), error);
    if (!range) return false;

    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (listen_fd_ < 0) {
        error = "cannot create a TCP socket: " + errno_text(errno);
        return false;
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
        error = range->low == 0 ? "cannot bind a TCP listener on " + where + ": " + errno_text(last_errno)
                                : "no free port in STRATA_PORT_RANGE=" + port_range_knob.get() + " on " + where +
                                      " (last error: " + errno_text(last_errno) + "); widen the range";
        return false;
    }
    if (::listen(listen_fd_, 1024) != 0) {
        error = "cannot listen on TCP port: " + errno_text(errno);
        return false;
    }
    socklen_t len = sizeof addr;
    getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    watch(listen_fd_, kKeyListener, false, true);
    return true;
}

bool TcpMethod::publish(wireup::BusinessCard& card, std::string& error) {
    if (!listen_open(error)) return false;
    auto ifs = interfaces_list();
    std::string unused;
    auto choice = network_choose(network_knob.get(), ifs, unused);
    std::string text;
    for (const auto& a : choice->publish) {
        if (!text.empty()) text += ',';
        text += a;
    }
    card.addresses.emplace_back("tcp", text + ":" + std::to_string(port_));
    // Both ends of a link must agree on TLS, or each waits for the other:
    // every rank shows its setting, and connect_world compares them.
    card.data_tls = data_tls_knob.get();
    return true;
}

bool TcpMethod::connect_world(const adi::World& world, std::string& error) {
    const auto& cards = world.cards;
    const int my_rank = world.rank;
    ctx_.rank = my_rank;
    data_tls_ = data_tls_knob.get();
    if (data_tls_ != "off" && data_tls_ != "wan" && data_tls_ != "all") {
        error = "STRATA_DATA_TLS='" + data_tls_ + "': expected off, wan or all";
        return false;
    }
    const auto me = static_cast<std::size_t>(my_rank);
    for (std::size_t i = 0; i < cards.size(); ++i) {
        const std::string& theirs = cards[i].data_tls;
        if (!cards[i].address_of("tcp").empty() && theirs != data_tls_) {
            error = "STRATA_DATA_TLS is '" + data_tls_ + "' at rank " + std::to_string(my_rank) + " but '" + theirs +
                    "' at rank " + std::to_string(i) + ": the links between them cannot agree on TLS; set it once "
                    "for the whole job (a job file's security: {data: tls}, or mpirun -x STRATA_DATA_TLS=...)";
            return false;
        }
    }
    if (me < cards.size()) my_site_ = cards[me].site;
    // Equal "host" labels mean the same kernel and network namespace, where
    // loopback reaches; equal host names do not (namespaces share them).
    const std::string my_host = me < cards.size() ? cards[me].host : "";
    for (std::size_t i = 0; i < cards.size() && i < peers_.size(); ++i) {
        Peer& p = peers_[i];
        p.hostname = cards[i].hostname;
        p.site = cards[i].site;
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
    if (!emulator_.configure(world, wireup::emulation_setting(), ctx_.job_key, error)) return false;
    if (emulator_.active()) watch(emulator_.timer_fd(), kKeyTimer, false, true);
    return true;
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

void TcpMethod::start_connect(int peer) {
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
    p.fd = fd;
    p.want_out = true;
    watch(fd, kKeyPeer | static_cast<std::uint32_t>(peer), true, true);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 && errno != EINPROGRESS) {
        link_failed(peer, "cannot reach rank " + std::to_string(peer) + " at " + target + ": " + errno_text(errno), nullptr);
        return;
    }
    p.link = Link::connecting;
}

void TcpMethod::on_connected(int peer) {
    Peer& p = peers_[static_cast<std::size_t>(peer)];
    int err = 0;
    socklen_t len = sizeof err;
    getsockopt(p.fd, SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) {
        link_failed(peer,
                    "cannot reach rank " + std::to_string(peer) + " (host " + p.hostname + ") at " + p.address + ":" +
                        std::to_string(p.port) + ": " + errno_text(err) +
                        "; check that the rank is running, that STRATA_NETWORK selects a network both hosts share, "
                        "and that STRATA_PORT_RANGE is open in the firewall",
                    nullptr);
        return;
    }
    if (!security::nonce_fill(p.nonce)) {
        link_failed(peer, "cannot make a nonce for the handshake with rank " + std::to_string(peer) +
                              ": the OpenSSL random generator is not seeded", nullptr);
        return;
    }
    const auto hello =
        hello_encode(Hello{static_cast<std::uint32_t>(ctx_.rank), static_cast<std::uint32_t>(peer), p.nonce});
    if (!send_small(p.fd, hello.data(), hello.size())) {
        link_failed(peer, "handshake with rank " + std::to_string(peer) + " failed: " + errno_text(errno), nullptr);
        return;
    }
    p.link = Link::hello_sent;
    p.reply_got = 0;
    p.reply_need = kChallengeSize;
    set_want_out(peer, false);
}

void TcpMethod::on_reply(int peer) {
    Peer& p = peers_[static_cast<std::size_t>(peer)];
    const std::string where = p.address + ":" + std::to_string(p.port);
    while (p.reply_got < p.reply_need) {
        ssize_t n = ::recv(p.fd, p.reply.data() + p.reply_got, p.reply_need - p.reply_got, 0);
        if (n > 0) {
            p.reply_got += static_cast<std::size_t>(n);
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        link_failed(peer,
                    "rank " + std::to_string(peer) + " at " + where +
                        " closed the connection during the handshake; is it a process of this job?",
                    nullptr);
        return;
    }
    const auto me = static_cast<std::uint32_t>(ctx_.rank);
    const auto them = static_cast<std::uint32_t>(peer);
    if (p.link == Link::hello_sent) {
        security::Nonce theirs{};
        security::Proof proof{};
        std::memcpy(theirs.data(), p.reply.data(), theirs.size());
        std::memcpy(proof.data(), p.reply.data() + theirs.size(), proof.size());
        const auto expected =
            security::proof_make(ctx_.job_key, security::ProofRole::link_acceptor, p.nonce, theirs, me, them);
        if (!security::proof_equal(expected, proof)) {
            link_failed(peer,
                        "the process listening at " + where + " (rank " + std::to_string(peer) +
                            "'s address) does not know this job's key: it is not rank " + std::to_string(peer),
                        nullptr);
            return;
        }
        const auto mine =
            security::proof_make(ctx_.job_key, security::ProofRole::link_connector, p.nonce, theirs, me, them);
        if (!send_small(p.fd, mine.data(), mine.size())) {
            link_failed(peer, "handshake with rank " + std::to_string(peer) + " failed: " + errno_text(errno),
                        nullptr);
            return;
        }
        p.link = Link::response_sent;
        p.acceptor_nonce = theirs;
        p.reply_got = 0;
        p.reply_need = kAnswerSize;
        return;
    }
    std::uint32_t answer = 0;
    std::memcpy(&answer, p.reply.data(), 4);
    if (answer == 1) {
        link_established(peer, false, p.nonce, p.acceptor_nonce, me, them);
    } else {
        // The peer's own connection to us wins; it will arrive on the listener.
        epoll_ctl(epfd_, EPOLL_CTL_DEL, p.fd, nullptr);
        ::close(p.fd);
        p.fd = -1;
        p.want_out = false;
        p.link = Link::awaiting_incoming;
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
    const char* why = nullptr;
    if (!in.challenged) {
        if (!challenge_incoming(in, why)) incoming_drop(fd, why);
        return;
    }
    decide_incoming(in);
}

bool TcpMethod::challenge_incoming(Incoming& in, const char*& why) {
    const std::optional<Hello> hello =
        hello_decode(std::span<const std::uint8_t, kHelloSize>(in.got.data(), kHelloSize));
    if (!hello) {
        why = "not a Strata handshake";
        return false;
    }
    in.from_rank = hello->from;
    in.connector_nonce = hello->nonce;
    const std::uint32_t to = hello->to;
    if (to != static_cast<std::uint32_t>(ctx_.rank) || in.from_rank >= peers_.size() ||
        in.from_rank == static_cast<std::uint32_t>(ctx_.rank)) {
        why = "invalid ranks in the handshake";
        return false;
    }
    if (!security::nonce_fill(in.acceptor_nonce)) {
        why = "cannot make a nonce (the OpenSSL random generator is not seeded)";
        return false;
    }
    const auto proof = security::proof_make(ctx_.job_key, security::ProofRole::link_acceptor, in.connector_nonce,
                                            in.acceptor_nonce, in.from_rank, to);
    std::array<std::uint8_t, kChallengeSize> challenge{};
    std::memcpy(challenge.data(), in.acceptor_nonce.data(), in.acceptor_nonce.size());
    std::memcpy(challenge.data() + in.acceptor_nonce.size(), proof.data(), proof.size());
    if (!send_small(in.fd, challenge.data(), challenge.size())) {
        why = "the connection broke during the handshake";
        return false;
    }
    in.challenged = true;
    in.got.clear();
    return true;
}

void TcpMethod::decide_incoming(Incoming& in) {
    const std::uint32_t from = in.from_rank;
    security::Proof proof{};
    std::memcpy(proof.data(), in.got.data(), proof.size());
    const auto expected = security::proof_make(ctx_.job_key, security::ProofRole::link_connector, in.connector_nonce,
                                               in.acceptor_nonce, from, static_cast<std::uint32_t>(ctx_.rank));
    const int fd = in.fd;
    if (!security::proof_equal(expected, proof)) {
        incoming_drop(fd, "it failed the job-key challenge");
        return;
    }
    const int peer = static_cast<int>(from);
    Peer& p = peers_[from];
    const bool accept = p.link == Link::idle || p.link == Link::awaiting_incoming ||
                        ((p.link == Link::connecting || p.link == Link::hello_sent || p.link == Link::response_sent) &&
                         peer < ctx_.rank);
    const std::uint32_t answer = accept ? 1 : 0;
    if (!send_small(fd, &answer, sizeof answer) || !accept) {
        incoming_drop(fd, nullptr);
        return;
    }
    const security::Nonce connector_nonce = in.connector_nonce;
    const security::Nonce acceptor_nonce = in.acceptor_nonce;
    incoming_.erase(fd);
    if (p.fd >= 0) {  // our own attempt loses to the lower rank's
        epoll_ctl(epfd_, EPOLL_CTL_DEL, p.fd, nullptr);
        ::close(p.fd);
    }
    p.fd = fd;
    p.want_out = false;
    watch(p.fd, kKeyPeer | from, false, false);
    link_established(peer, true, connector_nonce, acceptor_nonce, from, static_cast<std::uint32_t>(ctx_.rank));
}

bool TcpMethod::wants_tls(int peer) const {
    if (data_tls_ == "all") return true;
    return data_tls_ == "wan" && peers_[static_cast<std::size_t>(peer)].site != my_site_;
}

void TcpMethod::link_established(int peer, bool server, const security::Nonce& connector,
                                 const security::Nonce& acceptor, std::uint32_t from, std::uint32_t to) {
    Peer& p = peers_[static_cast<std::size_t>(peer)];
    p.rx.resize(kStaging);
    if (!wants_tls(peer)) {
        p.link = Link::connected;
        set_want_out(peer, !p.out.empty());
        return;
    }
    const TlsLink::Key key =
        security::proof_make(ctx_.job_key, security::ProofRole::link_tls_key, connector, acceptor, from, to);
    std::string error;
    p.tls = TlsLink::create(server, p.fd, key, error);
    if (!p.tls) {
        link_failed(peer, error, nullptr);
        return;
    }
    p.link = Link::tls_handshake;
    switch (p.tls->handshake()) {
        case TlsLink::Step::failed:
            link_failed(peer, "TLS with rank " + std::to_string(peer) + ": " + p.tls->error(), nullptr);
            return;
        case TlsLink::Step::again:
            // The handshake goes on at the next polls.
            set_want_out(peer, p.tls->wants_write());
            return;
        case TlsLink::Step::done:
            // The other side was quick (or this process was descheduled after
            // its first flight). The next poll finishes the step in
            // tls_step(), which sends what waits and reads what TLS may
            // already hold.
            set_want_out(peer, true);
            return;
    }
}

void TcpMethod::tls_step(int peer, adi::Upcalls& up) {
    Peer& p = peers_[static_cast<std::size_t>(peer)];
    switch (p.tls->handshake()) {
        case TlsLink::Step::again: set_want_out(peer, p.tls->wants_write()); return;
        case TlsLink::Step::failed:
            link_failed(peer, "TLS with rank " + std::to_string(peer) + ": " + p.tls->error(), &up);
            return;
        case TlsLink::Step::done:
            p.link = Link::connected;
            set_want_out(peer, !p.out.empty());
            flush(peer, up);
            // TLS may already hold the first data.
            if (p.link == Link::connected) read_peer(peer, up);
            return;
    }
}

adi::SendStatus TcpMethod::send(int peer, const adi::Header& h, std::span<const iovec> data, std::uint64_t token) {
    Peer& p = peers_[static_cast<std::size_t>(peer)];
    if (p.link == Link::failed || p.link == Link::closed) return adi::SendStatus::failed;

    std::uint64_t total = sizeof(adi::Header);
    for (const iovec& v : data) total += v.iov_len;
    // On a link wide-area emulation shapes, the stamp goes first.
    const bool shaped = emulator_.shaped(peer);
    const std::uint64_t due = shaped ? emulator_.stamp(peer, total) : 0;
    if (shaped) total += sizeof due;
    if (p.link == Link::connected && p.out.empty()) {
        iovec iov[9];
        std::size_t n_iov = 0;
        if (shaped) iov[n_iov++] = iovec{const_cast<std::uint64_t*>(&due), sizeof due};
        iov[n_iov++] = iovec{const_cast<adi::Header*>(&h), sizeof h};
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
        ssize_t n = p.tls ? p.tls->writev(iov, static_cast<int>(n_iov))
                    : n_iov == 1 ? ::send(p.fd, &h, sizeof h, MSG_NOSIGNAL)
                                 : ::sendmsg(p.fd, &m, MSG_NOSIGNAL);
        if (n == static_cast<ssize_t>(total)) return adi::SendStatus::done;
        if (n == -2) {
            link_failed(peer, "sending to rank " + std::to_string(peer) + " failed: " + p.tls->error(), nullptr);
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
        p.out.push_back(std::move(pkt));
        set_want_out(peer, true);
        return adi::SendStatus::queued;
    }

    p.out.push_back(out_packet(h, data, token, shaped, due));
    if (p.link == Link::idle) start_connect(peer);
    if (p.link == Link::failed) return adi::SendStatus::failed;
    if (p.link == Link::connected) set_want_out(peer, true);
    return adi::SendStatus::queued;
}

std::unique_ptr<TcpMethod::OutPacket> TcpMethod::out_packet(const adi::Header& h, std::span<const iovec> data,
                                                             std::uint64_t token, bool shaped, std::uint64_t due) {
    auto pkt = std::make_unique<OutPacket>();
    pkt->due = due;
    pkt->header = h;
    pkt->token = token;
    if (shaped) pkt->iov.push_back(iovec{&pkt->due, sizeof pkt->due});
    pkt->iov.push_back(iovec{&pkt->header, sizeof pkt->header});
    for (const iovec& v : data) pkt->iov.push_back(v);
    return pkt;
}

bool TcpMethod::send_now(int peer, const adi::Header& h, const std::byte* data, std::size_t n) {
    Peer& p = peers_[static_cast<std::size_t>(peer)];
    if (p.link != Link::connected || !p.out.empty() || p.tls || emulator_.shaped(peer)) return false;
    iovec iov[2] = {iovec{const_cast<adi::Header*>(&h), sizeof h}, iovec{const_cast<std::byte*>(data), n}};
    msghdr m{};
    m.msg_iov = iov;
    m.msg_iovlen = 2;
    ++counters_.writes;
    const ssize_t w = n == 0 ? ::send(p.fd, &h, sizeof h, MSG_NOSIGNAL) : ::sendmsg(p.fd, &m, MSG_NOSIGNAL);
    const std::size_t total = sizeof h + n;
    if (w == static_cast<ssize_t>(total)) return true;
    // Nothing left: send() takes it from here (and reports a broken link).
    if (w <= 0) return false;
    // Part of the packet is in the stream: the rest must follow, from a copy.
    auto pkt = std::make_unique<OutPacket>();
    pkt->header = h;
    pkt->copy.resize(total - static_cast<std::size_t>(w));
    const std::size_t from = static_cast<std::size_t>(w);
    std::size_t at = 0;
    if (from < sizeof h) {
        at = sizeof h - from;
        std::memcpy(pkt->copy.data(), reinterpret_cast<const std::byte*>(&h) + from, at);
    }
    const std::size_t data_from = from > sizeof h ? from - sizeof h : 0;
    if (n > data_from) std::memcpy(pkt->copy.data() + at, data + data_from, n - data_from);
    pkt->iov.push_back(iovec{pkt->copy.data(), pkt->copy.size()});
    p.out.push_back(std::move(pkt));
    set_want_out(peer, true);
    return true;
}

void TcpMethod::flush(int peer, adi::Upcalls& up) {
    Peer& p = peers_[static_cast<std::size_t>(peer)];
    while (!p.out.empty() && p.link == Link::connected) {
        OutPacket& pkt = *p.out.front();
        msghdr m{};
        m.msg_iov = pkt.iov.data();
        m.msg_iovlen = std::min<std::size_t>(pkt.iov.size(), IOV_MAX);
        ++counters_.writes;
        ssize_t n = p.tls ? p.tls->writev(m.msg_iov, static_cast<int>(m.msg_iovlen))
                          : ::sendmsg(p.fd, &m, MSG_NOSIGNAL);
        if (n < 0) {
            if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
            const std::string why = p.tls ? p.tls->error() : errno_text(errno);
            link_failed(peer, "sending to rank " + std::to_string(peer) + " failed: " + why, &up);
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
        p.out.pop_front();
        if (token != 0) up.on_sent(token);
    }
    set_want_out(peer, !p.out.empty());
}

void TcpMethod::parse_staged(int peer, adi::Upcalls& up) {
    Peer& p = peers_[static_cast<std::size_t>(peer)];
    while (p.link == Link::connected) {
        if (p.in_payload) {
            const std::uint64_t left = p.cur.length - p.pay_done;
            const std::size_t avail = p.rx_end - p.rx_begin;
            const std::size_t take = static_cast<std::size_t>(std::min<std::uint64_t>(left, avail));
            std::size_t done = 0;
            while (done < take && p.land_at < p.land.capacity && p.land.dest != nullptr) {
                const std::size_t copy = std::min(p.land.capacity - p.land_at, take - done);
                std::memcpy(p.land.dest + p.land_at, p.rx.data() + p.rx_begin + done, copy);
                p.land_at += copy;
                done += copy;
                p.pay_done += copy;
                landing_advance(p, peer, up);
            }
            // Whatever no landing takes is discarded (truncation).
            p.rx_begin += take;
            p.pay_done += take - done;
            if (p.pay_done < p.cur.length) break;  // need more from the socket
            p.in_payload = false;
            up.on_payload(peer, p.cur, p.land);
            continue;
        }
        if (p.rx_end - p.rx_begin < sizeof(adi::Header)) break;
        std::memcpy(&p.cur, p.rx.data() + p.rx_begin, sizeof(adi::Header));
        p.rx_begin += sizeof(adi::Header);
        if (const std::uint64_t pay = adi::wire_payload(p.cur); p.rx_end - p.rx_begin >= pay) {
            // All of it is here: delivered in one step.
            const std::size_t at = p.rx_begin;
            p.rx_begin += pay;
            up.on_packet(peer, p.cur, p.rx.data() + at);
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
    if (p.rx_begin == p.rx_end) {
        p.rx_begin = 0;
        p.rx_end = 0;
    } else if (p.rx_begin > 0 && !p.in_payload) {
        // Keep a partial header at the front so the next read completes it.
        std::memmove(p.rx.data(), p.rx.data() + p.rx_begin, p.rx_end - p.rx_begin);
        p.rx_end -= p.rx_begin;
        p.rx_begin = 0;
    }
}

void TcpMethod::landing_advance(Peer& p, int peer, adi::Upcalls& up) {
    if (p.land_at == p.land.capacity && p.land.capacity > 0 && p.pay_done < p.cur.length) {
        p.land = up.on_landing_full(peer, p.cur, p.land);
        p.land_at = 0;
    }
}

void TcpMethod::read_peer(int peer, adi::Upcalls& up) {
    Peer& p = peers_[static_cast<std::size_t>(peer)];
    while (p.link == Link::connected) {
        iovec iov[2];
        int n_iov = 0;
        std::size_t direct = 0;
        // In the middle of a payload with an empty staging buffer: read the rest
        // straight into the landing buffer, and what follows into staging.
        if (p.in_payload && p.rx_begin == p.rx_end && p.land_at < p.land.capacity && p.land.dest != nullptr) {
            p.rx_begin = p.rx_end = 0;
            std::uint64_t left = p.cur.length - p.pay_done;
            direct = static_cast<std::size_t>(std::min<std::uint64_t>(left, p.land.capacity - p.land_at));
            iov[n_iov++] = iovec{p.land.dest + p.land_at, direct};
        }
        if (p.rx_begin == p.rx_end) p.rx_begin = p.rx_end = 0;
        iov[n_iov++] = iovec{p.rx.data() + p.rx_end, p.rx.size() - p.rx_end};
        const std::size_t asked = direct + iov[n_iov - 1].iov_len;
        ++counters_.reads;
        // recv() on one buffer costs about 100 ns less than readv() here (no
        // iovec import, no VFS layer), and one buffer is the small-message case.
        // TLS reads one buffer at a time (a record at most), so it fills the
        // landing buffer first and the staging buffer on the next round.
        ssize_t n = p.tls ? p.tls->read(iov[0].iov_base, iov[0].iov_len)
                    : n_iov == 1 ? ::recv(p.fd, iov[0].iov_base, iov[0].iov_len, 0)
                                 : ::readv(p.fd, iov, n_iov);
        if (n == -2) {
            link_failed(peer, "receiving from rank " + std::to_string(peer) + " failed: " + p.tls->error(), &up);
            return;
        }
        if (n < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK) return;
            if (errno == EINTR) continue;
            link_failed(peer, "receiving from rank " + std::to_string(peer) + " failed: " + errno_text(errno), &up);
            return;
        }
        if (n == 0) {
            // The peer closed: normal after MPI_Finalize, fatal for anything still owed.
            epoll_ctl(epfd_, EPOLL_CTL_DEL, p.fd, nullptr);
            ::close(p.fd);
            p.fd = -1;
            p.link = Link::closed;
            if (!p.out.empty() || p.in_payload) {
                p.link = Link::connected;  // let link_failed report it
                link_failed(peer, "rank " + std::to_string(peer) + " (host " + p.hostname + ") closed its connection", &up);
            }
            return;
        }
        std::size_t got = static_cast<std::size_t>(n);
        if (direct > 0) {
            std::size_t into = std::min(got, direct);
            p.pay_done += into;
            p.land_at += into;
            got -= into;
            if (p.pay_done == p.cur.length) {
                p.in_payload = false;
                up.on_payload(peer, p.cur, p.land);
            } else {
                landing_advance(p, peer, up);
            }
        }
        p.rx_end += got;
        if (emulator_.shaped(peer)) {
            // Whole packets are held until their stamp (emulator.hpp).
            emulator_.feed(peer, p.rx.data() + p.rx_begin, p.rx_end - p.rx_begin);
            p.rx_begin = p.rx_end = 0;
        } else {
            parse_staged(peer, up);
        }
        // A short read emptied the socket: reading again now would only return
        // EAGAIN, one more system call on every message's critical path. The
        // epoll set is level-triggered, so whatever arrives next is reported at
        // the next poll.
        // (TLS returns a record per read and may hold more: it reads on until EAGAIN.)
        if (!p.tls && static_cast<std::size_t>(n) < asked) return;
    }
}

void TcpMethod::link_failed(int peer, const std::string& why, adi::Upcalls* up) {
    Peer& p = peers_[static_cast<std::size_t>(peer)];
    if (p.link == Link::failed) return;
    p.link = Link::failed;
    p.error = why;
    p.tls.reset();
    if (p.fd >= 0) {
        epoll_ctl(epfd_, EPOLL_CTL_DEL, p.fd, nullptr);
        ::close(p.fd);
        p.fd = -1;
    }
    p.out.clear();
    if (up != nullptr) {
        up->on_peer_failed(peer, why);
    } else {
        failures_.emplace_back(peer, why);
    }
}

int TcpMethod::poll(adi::Upcalls& up) {
    int events = 0;
    events += adi::failures_report(up, failures_);
    epoll_event evs[64];
    ++counters_.waits;
    int n = epoll_wait(epfd_, evs, 64, 0);
    for (int i = 0; i < n; ++i) {
        const std::uint64_t key = evs[i].data.u64;
        const std::uint64_t kind = key & 0xffffffff00000000ull;
        const int index = static_cast<int>(key & 0xffffffffu);
        if (kind == kKeyListener) {
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
                watch(fd, kKeyIncoming | static_cast<std::uint32_t>(fd), false, true);
            }
        } else if (kind == kKeyIncoming) {
            on_incoming(index);
        } else if (kind == kKeyTimer) {
            emulator_.timer_clear();
        } else if (kind == kKeyPeer) {
            Peer& p = peers_[static_cast<std::size_t>(index)];
            switch (p.link) {
                case Link::connecting:
                    if ((evs[i].events & (EPOLLOUT | EPOLLERR | EPOLLHUP)) != 0) on_connected(index);
                    break;
                case Link::hello_sent:
                case Link::response_sent:
                    on_reply(index);
                    if (p.link == Link::connected) flush(index, up);
                    break;
                case Link::tls_handshake: tls_step(index, up); break;
                case Link::connected:
                    if ((evs[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP)) != 0) read_peer(index, up);
                    if ((evs[i].events & EPOLLOUT) != 0 && p.link == Link::connected) flush(index, up);
                    break;
                default:
                    break;
            }
        }
        ++events;
    }
    events += emulator_.deliver(up);
    events += adi::failures_report(up, failures_);
    return events;
}

bool TcpMethod::has_queued_sends() const {
    for (const Peer& p : peers_) {
        if (!p.out.empty() && p.link != Link::failed) return true;
    }
    return false;
}

void TcpMethod::shutdown() {
    for (Peer& p : peers_) {
        p.tls.reset();
        if (p.fd >= 0) ::close(p.fd);
        p.fd = -1;
        p.link = Link::closed;
    }
    for (auto& [fd, in] : incoming_) ::close(fd);
    incoming_.clear();
    if (listen_fd_ >= 0) ::close(listen_fd_);
    listen_fd_ = -1;
    if (epfd_ >= 0) ::close(epfd_);
    epfd_ = -1;
}

std::unique_ptr<adi::Method> create(const adi::MethodContext& ctx) { return std::make_unique<TcpMethod>(ctx); }

}  // namespace strata::dev::tcp
