// Splices: a rank's connection forwarded to one more socket, with no link
// between relays: mpirun's wire-up listener (control: the one address the
// relay was started with, Options::wireup), a public site's rank (egress),
// or this site's rank that takes an offer (ingress). Two sockets, a queue
// each way of at most kWindow bytes (a side is read only while the other's
// queue has room), an end passed on once what precedes it is written, and a
// failure on either side closing both.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>

#include "relay/engine.hpp"

namespace strata::relay {

namespace {

std::uint64_t splice_serial(std::uint64_t key) { return key & ((std::uint64_t{1} << 56) - 1); }

}  // namespace

// A new splice with the pending connection's socket as side 0.
std::uint64_t Engine::splice_add(Pending& p, std::string far) {
    const std::uint64_t serial = splice_serial(key_make(Role::splice_rank));
    Splice s;
    s.rank = p.open.from;
    s.to = p.open.to;
    s.far = std::move(far);
    s.since = Clock::now();
    s.side[0] = watch_take(epoll_.get(), p.w, std::uint64_t{static_cast<std::uint8_t>(Role::splice_rank)} << 56 | serial);
    s.side[1].key = std::uint64_t{static_cast<std::uint8_t>(Role::splice_far)} << 56 | serial;
    splices_.emplace(serial, std::move(s));
    ++counters_.streams_opened;
    return serial;
}

// control and egress: side 1 is a connection this relay makes to `to`.
void Engine::splice_dial(Pending& p, const Endpoint& to, const std::string& far) {
    base::UniqueFd fd(socket_open());
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(to.address);
    addr.sin_port = htons(to.port);
    const bool started =
        fd && (::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 || errno == EINPROGRESS);
    if (!started) {
        return log("cannot take rank " + std::to_string(p.open.from) + " to " + far + " at " + endpoint_text(to) +
                   ": " + errno_text(errno));
    }
    const std::uint64_t serial = splice_add(p, far + " at " + endpoint_text(to));
    Splice& s = splices_.at(serial);
    s.side[1].fd = std::move(fd);
    s.connecting = true;
    splice_interest(s);
}

// ingress (and a hub_link at mpirun's hub): side 1 is the connection the
// one attached by `attach_key` makes when it takes the offer
// (splice_accept); until then side 0 waits, unread.
void Engine::splice_offer(Pending& p, std::uint64_t attach_key, std::string far) {
    const std::uint64_t serial = splice_add(p, std::move(far));
    Splice& s = splices_.at(serial);
    while (s.token == 0 || tokens_.count(s.token) != 0 || splice_tokens_.count(s.token) != 0) {
        security::Nonce random{};
        if (!security::nonce_fill(random)) return splice_close(serial, "cannot make a token (no random generator)");
        s.token = le64(random.data());
    }
    splice_tokens_[s.token] = serial;
    const Notice notice{NoticeType::accept, s.rank, p.open.stream, s.token};
    if (!notice_to(attach_key, notice)) return splice_close(serial, s.far + " is no longer attached here");
    splice_interest(splices_.at(serial));
}

void Engine::splice_accept(Pending& p, std::uint64_t serial) {
    Splice& s = splices_.at(serial);
    splice_tokens_.erase(s.token);
    s.token = 0;
    s.side[1] = watch_take(epoll_.get(), p.w, s.side[1].key);
    splice_interest(s);
}

void Engine::splice_event(std::uint64_t key, std::uint32_t events) {
    const std::uint64_t serial = splice_serial(key);
    const auto it = splices_.find(serial);
    if (it == splices_.end()) return;
    Splice& s = it->second;
    const int side = static_cast<Role>(key >> 56) == Role::splice_rank ? 0 : 1;
    if (side == 1 && s.connecting) {
        if (const int e = socket_error(s.side[1].fd.get()); e != 0)
            return splice_close(serial, "cannot reach " + s.far + ": " + errno_text(e));
        s.connecting = false;
    }
    if ((events & (EPOLLIN | EPOLLHUP | EPOLLERR)) != 0 && (s.side[side].events & EPOLLIN) != 0 &&
        !splice_read(serial, side))
        return;
    if ((events & EPOLLOUT) != 0 && !splice_write(serial, side)) return;
    if (splices_.count(serial) != 0) splice_interest(splices_.at(serial));
}

// One read from `side` into the other side's queue; false: the splice is gone.
bool Engine::splice_read(std::uint64_t serial, int side) {
    Splice& s = splices_.at(serial);
    ByteQueue& q = s.queue[1 - side];
    const ssize_t n = ::recv(s.side[side].fd.get(), scratch_.data(), std::min<std::size_t>(kChunk, kWindow - q.size()), 0);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return true;
    if (n < 0) {
        splice_close(serial, (side == 0 ? "the rank's end broke: " : s.far + "'s end broke: ") + errno_text(errno));
        return false;
    }
    if (n == 0) {
        s.eof[side] = true;
    } else {
        q.push(scratch_.data(), static_cast<std::size_t>(n));
        buffered_add(static_cast<std::size_t>(n));
        if (side == 0) counters_.from_ranks += static_cast<std::size_t>(n);
    }
    return splice_write(serial, 1 - side);
}

// Writes what waits for `side`, then passes on the other side's end; false:
// the splice is gone.
bool Engine::splice_write(std::uint64_t serial, int side) {
    Splice& s = splices_.at(serial);
    ByteQueue& q = s.queue[side];
    while (!q.empty() && s.side[side].fd && !(side == 1 && s.connecting)) {
        iovec iov[16];
        msghdr msg{};
        msg.msg_iov = iov;
        msg.msg_iovlen = q.iovecs(iov, 16);
        const ssize_t n = ::sendmsg(s.side[side].fd.get(), &msg, MSG_NOSIGNAL);
        if (n < 0 && (errno == EAGAIN || errno == EINTR)) break;
        if (n < 0) {
            splice_close(serial, (side == 0 ? "the rank's end broke: " : s.far + "'s end broke: ") + errno_text(errno));
            return false;
        }
        q.drop(static_cast<std::size_t>(n));
        buffered_sub(static_cast<std::size_t>(n));
        if (side == 0) counters_.to_ranks += static_cast<std::size_t>(n);
    }
    if (q.empty() && s.eof[1 - side] && !s.shut[side]) {
        ::shutdown(s.side[side].fd.get(), SHUT_WR);
        s.shut[side] = true;
    }
    if (s.shut[0] && s.shut[1]) {
        splice_close(serial, "");
        return false;
    }
    return true;
}

// Reads a side while the other's queue has room and its end has not come;
// writes a side while bytes wait for it (or, connecting, until it connects).
// Until an offer is taken, side 0 is read no more than its queue holds.
void Engine::splice_interest(Splice& s) {
    for (int side = 0; side < 2; ++side) {
        if (!s.side[side].fd) continue;
        std::uint32_t events = 0;
        if (!s.eof[side] && s.queue[1 - side].size() < kWindow && !(side == 1 && s.connecting)) events |= EPOLLIN;
        if (!s.queue[side].empty() || (side == 1 && s.connecting)) events |= EPOLLOUT;
        watch_set(epoll_.get(), s.side[side], events);
    }
}

void Engine::splice_close(std::uint64_t serial, const std::string& why) {
    // (why empty: both ends closed in turn, the normal end)
    const auto it = splices_.find(serial);
    if (it == splices_.end()) return;
    Splice& s = it->second;
    if (!why.empty()) log("rank " + std::to_string(s.rank) + " to " + s.far + ": " + why);
    if (s.token != 0) splice_tokens_.erase(s.token);
    buffered_sub(s.queue[0].size() + s.queue[1].size());
    for (Watch& w : s.side) watch_close(epoll_.get(), w);
    splices_.erase(it);
}

}  // namespace strata::relay
