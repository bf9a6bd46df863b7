// Pair streams: a rank's socket spliced to a stream of a link, with a
// window of kWindow bytes each way.
#include <sys/epoll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>

#include "relay/engine.hpp"

namespace strata::relay {

// A proven pair Open: a new stream on the link to the relay it names.
void Engine::pair_admit(Pending& p) {
    const std::uint64_t link_key = link_for(p.open.relay);
    const auto l = links_.find(link_key);
    const std::string what = "rank " + std::to_string(p.open.from) + " to rank " + std::to_string(p.open.to);
    if (l == links_.end()) return log("refused the stream of " + what + ": no link to relay " + endpoint_text(p.open.relay));
    if (l->second.next_id > 0xfffffff0u)
        return log("refused the stream of " + what + ": the link to relay " + l->second.peer + " used up its stream ids");
    Stream s;
    s.w = watch_take(epoll_.get(), p.w, key_make(Role::rank));
    s.link = link_key;
    s.id = l->second.next_id;
    l->second.next_id += 2;
    s.ends = OpenPayload{p.open.from, p.open.to, p.open.stream};
    s.since = Clock::now();
    const std::uint64_t key = s.w.key;
    l->second.streams[s.id] = key;
    link_control(link_key, FrameType::open, s.id, open_payload_encode(s.ends));
    Stream& placed = streams_.emplace(key, std::move(s)).first->second;
    ++counters_.streams_opened;
    ++counters_.streams;
    rank_interest(placed);
}

// An OPEN from the peer relay: the rank it names hears of it on its attach
// connection and has kAcceptTimeout to take it.
void Engine::stream_offer(std::uint64_t link_key, Link& l, std::uint32_t id, const OpenPayload& ends) {
    Stream s;
    s.link = link_key;
    s.id = id;
    s.ends = ends;
    s.since = Clock::now();
    const std::uint64_t key = key_make(Role::rank);
    s.w.key = key;
    while (s.token == 0 || tokens_.count(s.token) != 0) {
        security::Nonce random{};
        if (!security::nonce_fill(random)) break;
        s.token = le64(random.data());
    }
    l.streams[id] = key;
    streams_.emplace(key, std::move(s));
    ++counters_.streams_opened;
    ++counters_.streams;
    Stream& placed = streams_.at(key);
    if (streams_.size() > kStreamsMax) return stream_reset(key, std::to_string(kStreamsMax) + " streams are open already");
    if (placed.token == 0) return stream_reset(key, "cannot make a token (the OpenSSL random generator is not seeded)");
    tokens_[placed.token] = key;
    const Notice notice{NoticeType::accept, ends.from, ends.stream, placed.token};
    if (!notice_send(ends.to, notice)) stream_reset(key, "rank " + std::to_string(ends.to) + " is not attached here");
}

void Engine::rank_event(std::uint64_t key, std::uint32_t events) {
    const auto it = streams_.find(key);
    if (it == streams_.end()) return;
    Stream& s = it->second;
    if ((events & EPOLLERR) != 0) {
        const int e = socket_error(s.w.fd.get());
        return stream_reset(key, "rank " + std::to_string(s.ends.from) + "'s end broke: " + errno_text(e));
    }
    if ((events & (EPOLLIN | EPOLLHUP)) != 0 && (s.w.events & EPOLLIN) != 0 && !rank_read(key, s)) return;
    if ((events & EPOLLOUT) != 0) rank_flush(key);
}

// One read, as much as the stream's credit allows, forwarded as it is.
bool Engine::rank_read(std::uint64_t key, Stream& s) {
    const std::size_t most = std::min<std::size_t>(s.credit, kChunk);
    const ssize_t n = ::recv(s.w.fd.get(), scratch_.data(), most, 0);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return true;
    if (n < 0) {
        stream_reset(key, "the rank's end broke: " + errno_text(errno));
        return false;
    }
    if (n == 0) {
        s.rank_eof = true;
    } else {
        const auto got = static_cast<std::size_t>(n);
        s.to_link.push(scratch_.data(), got);
        s.credit -= static_cast<std::uint32_t>(got);
        buffered_add(got);
        counters_.from_ranks += got;
    }
    stream_ready(key, s);
    rank_interest(s);
    return true;
}

// Writes what waits for the rank, grants the credit it frees, and shuts the
// rank's side once the peer closed and all is written.
void Engine::rank_flush(std::uint64_t key) {
    Stream& s = streams_.at(key);
    if (!s.w.fd) return;
    while (!s.to_rank.empty()) {
        iovec iov[16];
        msghdr msg{};
        msg.msg_iov = iov;
        msg.msg_iovlen = s.to_rank.iovecs(iov, 16);
        const ssize_t n = ::sendmsg(s.w.fd.get(), &msg, MSG_NOSIGNAL);
        if (n < 0 && (errno == EAGAIN || errno == EINTR)) break;
        if (n < 0) return stream_reset(key, "the rank's end broke: " + errno_text(errno));
        const auto sent = static_cast<std::size_t>(n);
        s.to_rank.drop(sent);
        buffered_sub(sent);
        counters_.to_ranks += sent;
        credit_grant(key, s, sent);
    }
    if (s.to_rank.empty() && s.peer_closed && !s.shut) {
        ::shutdown(s.w.fd.get(), SHUT_WR);
        s.shut = true;
    }
    rank_interest(s);
    stream_done_check(key);
}

// Reads while the stream has credit (so a full window stops the rank by TCP
// backpressure), writes while bytes wait.
void Engine::rank_interest(Stream& s) {
    std::uint32_t events = 0;
    if (!s.rank_eof && s.credit > 0) events |= EPOLLIN;
    if (!s.to_rank.empty()) events |= EPOLLOUT;
    watch_set(epoll_.get(), s.w, events);
}

void Engine::stream_ready(std::uint64_t key, Stream& s) {
    if (s.in_ready) return;
    const auto l = links_.find(s.link);
    if (l == links_.end()) return;
    s.in_ready = true;
    l->second.ready.push_back(key);
    dirty_.insert(s.link);
}

void Engine::credit_grant(std::uint64_t key, Stream& s, std::size_t n) {
    s.credit_owed += static_cast<std::uint32_t>(n);
    s.allowance += static_cast<std::uint32_t>(n);
    if (s.credit_queued) return;
    const auto l = links_.find(s.link);
    if (l == links_.end()) return;
    s.credit_queued = true;
    l->second.credits.push_back(key);
    dirty_.insert(s.link);
}

// DATA from the peer: within the window the peer was granted, or the link
// broke the protocol (false: it is gone).
bool Engine::stream_data(std::uint64_t key, std::span<const std::uint8_t> payload) {
    Stream& s = streams_.at(key);
    if (payload.size() > s.allowance || s.peer_closed) {
        link_lost(s.link, "stream " + std::to_string(s.id) + " sent beyond its window or after its CLOSE");
        return false;
    }
    s.allowance -= static_cast<std::uint32_t>(payload.size());
    s.to_rank.push(payload.data(), payload.size());
    buffered_add(payload.size());
    rank_flush(key);
    return true;
}

bool Engine::stream_credit(std::uint64_t key, std::uint32_t grant) {
    Stream& s = streams_.at(key);
    if (grant > kWindow - s.credit) {
        link_lost(s.link, "stream " + std::to_string(s.id) + " was granted more than its window");
        return false;
    }
    s.credit += grant;
    rank_interest(s);
    return true;
}

void Engine::stream_peer_close(std::uint64_t key) {
    streams_.at(key).peer_closed = true;
    rank_flush(key);
}

// Both ways closed and written: the stream is over.
void Engine::stream_done_check(std::uint64_t key) {
    const auto it = streams_.find(key);
    if (it != streams_.end() && it->second.close_sent && it->second.shut) stream_free(key);
}

void Engine::stream_reset(std::uint64_t key, const std::string& why) {
    const auto it = streams_.find(key);
    if (it == streams_.end()) return;
    const Stream& s = it->second;
    log(stream_name(s) + ": reset: " + why);
    const std::string reason = why.substr(0, kReasonMax);
    link_control(s.link, FrameType::reset, s.id,
                 std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(reason.data()), reason.size()));
    stream_free(key);
}

// Forgets the stream and closes its rank's socket.
void Engine::stream_free(std::uint64_t key) {
    const auto it = streams_.find(key);
    if (it == streams_.end()) return;
    Stream& s = it->second;
    if (const auto l = links_.find(s.link); l != links_.end()) l->second.streams.erase(s.id);
    if (s.token != 0) tokens_.erase(s.token);
    buffered_sub(s.to_link.size() + s.to_rank.size());
    watch_close(epoll_.get(), s.w);
    streams_.erase(it);
    --counters_.streams;
}

}  // namespace strata::relay
