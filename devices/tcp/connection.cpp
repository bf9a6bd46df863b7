#include "devices/tcp/connection.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <utility>

#include "base/little_endian.hpp"
#include "devices/tcp/handshake.hpp"

namespace strata::dev::tcp {

void socket_tune(int fd) {
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

std::string errno_text(int e) { return std::strerror(e); }

std::unique_ptr<OutPacket> out_packet(const adi::Header& h, std::span<const iovec> data, std::uint64_t token,
                                      const std::optional<std::uint64_t>& due) {
    auto pkt = std::make_unique<OutPacket>();
    pkt->header = h;
    adi::to_wire(pkt->header);
    pkt->token = token;
    if (due) pkt->stamp(*due);
    pkt->iov.push_back(iovec{&pkt->header, sizeof pkt->header});
    for (const iovec& v : data) pkt->iov.push_back(v);
    return pkt;
}

void iov_consume(std::vector<iovec>& iov, std::size_t sent) {
    std::size_t i = 0;
    while (sent > 0 && i < iov.size()) {
        const std::size_t take = std::min(sent, iov[i].iov_len);
        iov[i].iov_base = static_cast<char*>(iov[i].iov_base) + take;
        iov[i].iov_len -= take;
        sent -= take;
        if (iov[i].iov_len == 0) ++i;
    }
    while (i < iov.size() && iov[i].iov_len == 0) ++i;
    iov.erase(iov.begin(), iov.begin() + static_cast<std::ptrdiff_t>(i));
}

void Connection::watch(bool add) {
    epoll_event ev{};
    ev.events = (want_in ? EPOLLIN : 0u) | (want_out ? EPOLLOUT : 0u);
    ev.data.u64 = key;
    epoll_ctl(epfd, add ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd, &ev);
}

void Connection::set_want_out(bool on) {
    if (want_out == on || fd < 0) return;
    want_out = on;
    watch(false);
}

void Connection::set_want_in(bool on) {
    if (want_in == on || fd < 0) return;
    want_in = on;
    watch(false);
}

void Connection::close() {
    tls.reset();
    if (dialer) fd = dialer->take();  // the socket is the connection's to close
    dialer.reset();
    if (fd >= 0) {
        epoll_ctl(epfd, EPOLL_CTL_DEL, fd, nullptr);
        ::close(fd);
    }
    fd = -1;
    want_out = false;
    want_in = true;
}

base::Status Connection::connect_start(const Remote& r) {
    const std::string target = r.address + ":" + std::to_string(r.port);
    const int s = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (s < 0) return base::Error{"cannot create a socket for rank " + std::to_string(r.rank) + ": " + errno_text(errno)};
    socket_tune(s);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(r.port));
    inet_pton(AF_INET, r.address.c_str(), &addr.sin_addr);
    fd = s;
    want_out = true;
    want_in = true;
    watch(true);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 && errno != EINPROGRESS)
        return base::Error{"cannot reach rank " + std::to_string(r.rank) + " at " + target + ": " + errno_text(errno)};
    state = State::connecting;
    return {};
}

void Connection::relay_start(relay::Dialer d) {
    dialer = std::make_unique<relay::Dialer>(std::move(d));
    fd = dialer->fd();
    want_out = true;
    want_in = true;
    watch(true);
    state = State::relay_handshake;
}

base::Status Connection::hello_send(const Remote& r, std::uint32_t me) {
    int err = 0;
    socklen_t len = sizeof err;
    getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) {
        return base::Error{"cannot reach rank " + std::to_string(r.rank) + " (host " + r.hostname + ") at " +
                           r.address + ":" + std::to_string(r.port) + ": " + errno_text(err) +
                           "; check that the rank is running, that STRATA_NETWORK selects a network both hosts "
                           "share, and that STRATA_PORT_RANGE is open in the firewall"};
    }
    if (!security::nonce_fill(nonce)) {
        return base::Error{"cannot make a nonce for the handshake with rank " + std::to_string(r.rank) +
                           ": the OpenSSL random generator is not seeded"};
    }
    const auto hello = hello_encode(Hello{me, static_cast<std::uint32_t>(r.rank), stream, nonce, r.set});
    if (!send_small(fd, hello.data(), hello.size()))
        return base::Error{"handshake with rank " + std::to_string(r.rank) + " failed: " + errno_text(errno)};
    state = State::hello_sent;
    reply_got = 0;
    reply_need = kChallengeSize;
    set_want_out(false);
    return {};
}

base::Result<Connection::Reply> Connection::reply_read(const Remote& r, const std::string& job_key, std::uint32_t me) {
    const std::string where = r.address + ":" + std::to_string(r.port);
    while (reply_got < reply_need) {
        const ssize_t n = ::recv(fd, reply.data() + reply_got, reply_need - reply_got, 0);
        if (n > 0) {
            reply_got += static_cast<std::size_t>(n);
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return Reply::pending;
        return base::Error{"rank " + std::to_string(r.rank) + " at " + where +
                           " closed the connection during the handshake; is it a process of this job?"};
    }
    if (state == State::hello_sent) {
        if (base::Status answered = challenge_answer(r, job_key, me); !answered) return answered.failure();
        return Reply::pending;
    }
    std::uint32_t answer = 0;
    std::memcpy(&answer, reply.data(), sizeof answer);
    return base::from_little(answer) == 1 ? Reply::accepted : Reply::refused;
}

base::Status Connection::challenge_answer(const Remote& r, const std::string& job_key, std::uint32_t me) {
    const auto them = static_cast<std::uint32_t>(r.rank);
    security::Nonce theirs{};
    security::Proof proof{};
    std::memcpy(theirs.data(), reply.data(), theirs.size());
    std::memcpy(proof.data(), reply.data() + theirs.size(), proof.size());
    const auto expected = link_proof(job_key, security::ProofRole::link_acceptor, nonce, theirs, me, them, stream);
    if (!security::proof_equal(expected, proof)) {
        const std::string rank = std::to_string(r.rank);
        return base::Error{"the process listening at " + r.address + ":" + std::to_string(r.port) + " (rank " + rank +
                           "'s address) does not know this job's key: it is not rank " + rank};
    }
    const auto mine = link_proof(job_key, security::ProofRole::link_connector, nonce, theirs, me, them, stream);
    if (!send_small(fd, mine.data(), mine.size()))
        return base::Error{"handshake with rank " + std::to_string(r.rank) + " failed: " + errno_text(errno)};
    state = State::response_sent;
    acceptor_nonce = theirs;
    reply_got = 0;
    reply_need = kAnswerSize;
    return {};
}

void Connection::adopt(int accepted_fd) {
    fd = accepted_fd;
    want_out = false;
    want_in = true;
    watch(false);  // accepted, it is in the set already
}

base::Status Connection::establish(bool server, const std::optional<TlsLink::Key>& tls_key, int rank) {
    // Stream 0 and the streams we read need room for what arrives; a stream
    // we only write to reads nothing but its end (and TLS's own records).
    rx.buf.resize(stream == 0 || server ? kStaging : kStagingWriteOnly);
    if (!tls_key) {
        state = State::connected;
        established = true;
        set_want_out(!out.empty());
        return {};
    }
    base::Result<std::unique_ptr<TlsLink>> made = TlsLink::create(server, fd, *tls_key);
    if (!made) return made.failure();
    tls = std::move(*made);
    state = State::tls_handshake;
    switch (tls->handshake()) {
        case TlsLink::Step::failed: return base::Error{"TLS with rank " + std::to_string(rank) + ": " + tls->error()};
        case TlsLink::Step::again:
            // The handshake goes on at the next polls.
            set_want_out(tls->wants_write());
            return {};
        case TlsLink::Step::done:
            // The other side was quick (or this process was descheduled after
            // its first flight). The next poll finishes the step in
            // tls_step(), which sends what waits and reads what TLS may
            // already hold.
            set_want_out(true);
            return {};
    }
    return {};
}

base::Result<bool> Connection::tls_step(int rank) {
    switch (tls->handshake()) {
        case TlsLink::Step::again: set_want_out(tls->wants_write()); return false;
        case TlsLink::Step::failed: return base::Error{"TLS with rank " + std::to_string(rank) + ": " + tls->error()};
        case TlsLink::Step::done: break;
    }
    state = State::connected;
    established = true;
    set_want_out(!out.empty());
    return true;
}

ssize_t Connection::read(iovec* iov, int n_iov) {
    ++reads;
    // recv() on one buffer costs about 100 ns less than readv() here (no
    // iovec import, no VFS layer), and one buffer is the small-message case.
    // TLS reads one buffer at a time (a record at most), so it fills the
    // landing buffer first and the staging buffer on the next round.
    return tls        ? tls->read(iov[0].iov_base, iov[0].iov_len)
           : n_iov == 1 ? ::recv(fd, iov[0].iov_base, iov[0].iov_len, 0)
                        : ::readv(fd, iov, n_iov);
}

std::string Connection::read_failure(const Remote& r, ssize_t n) const {
    const int e = errno;
    std::string why;
    if (n == 0) {
        why = "rank " + std::to_string(r.rank);
        why += " (host ";
        why += r.hostname;
        why += ") closed its connection";
        return why;
    }
    why = "receiving from rank " + std::to_string(r.rank);
    why += " failed: ";
    why += n == TlsLink::kFailed ? tls->error() : errno_text(e);
    return why;
}

base::Status Connection::flush(adi::Upcalls* up, std::vector<std::uint64_t>& later) {
    while (!out.empty() && state == State::connected) {
        OutPacket& pkt = *out.front();
        const ssize_t n = write(pkt.iov.data(), std::min<std::size_t>(pkt.iov.size(), IOV_MAX));
        if (n < 0) {
            if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
            return base::Error{tls ? tls->error() : errno_text(errno)};
        }
        iov_consume(pkt.iov, static_cast<std::size_t>(n));
        if (!pkt.iov.empty()) break;  // the socket buffer is full
        std::uint64_t token = pkt.token;
        const std::shared_ptr<SendGroup> group = std::move(pkt.group);
        out.pop_front();
        if (group) token = --group->left == 0 ? group->token : 0;
        if (token == 0) continue;
        // Inside send() (no upcalls): reported at the next poll.
        if (up != nullptr)
            up->on_sent(token);
        else
            later.push_back(token);
    }
    set_want_out(!out.empty());
    return {};
}

void Connection::queue_rest(std::unique_ptr<OutPacket> pkt, std::size_t sent) {
    iov_consume(pkt->iov, sent);
    out.push_back(std::move(pkt));
    set_want_out(true);
}

}  // namespace strata::dev::tcp
