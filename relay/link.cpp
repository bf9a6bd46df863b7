// Links between relays: dialling one (the connector's side of the
// handshake), reading its frames, and the writer that takes turns between
// the streams.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include "base/keepalive.hpp"
#include "relay/engine.hpp"

namespace strata::relay {

// The link this relay dialled to `e`, dialling it if there is none; 0 when
// the dial failed at once.
std::uint64_t Engine::link_for(const Endpoint& e) {
    const auto it = dialled_.find(endpoint_key(e));
    return it != dialled_.end() ? it->second : link_dial(e);
}

std::uint64_t Engine::link_dial(const Endpoint& e) {
    Link l;
    l.peer = endpoint_text(e);
    l.endpoint = e;
    l.dialled = true;
    l.state = Link::State::connecting;
    l.since = Clock::now();
    l.next_id = 1;
    l.open.kind = Kind::link;
    // Named, the relay it dials uses this link for its own streams too.
    if (options_.advertise != 0) l.open.relay = Endpoint{options_.advertise, static_cast<std::uint16_t>(port_)};
    base::UniqueFd fd(socket_open());
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(e.address);
    addr.sin_port = htons(e.port);
    // A link that goes silent (a partition between the sites) is lost
    // within the job's peer timeout, as a control connection is.
    const bool started = fd && base::socket_keepalive(fd.get()) && security::nonce_fill(l.open.nonce) &&
                         (::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 ||
                          errno == EINPROGRESS);
    if (!started) {
        log("cannot link to relay " + l.peer + ": " + errno_text(errno));
        return 0;
    }
    l.w.fd = std::move(fd);
    l.w.key = key_make(Role::link);
    watch_set(epoll_.get(), l.w, EPOLLOUT);
    const std::uint64_t key = l.w.key;
    links_.emplace(key, std::move(l));
    dialled_[endpoint_key(e)] = key;
    return key;
}

void Engine::link_event(std::uint64_t key, std::uint32_t events) {
    const auto it = links_.find(key);
    if (it == links_.end()) return;
    Link& l = it->second;
    if (l.state != Link::State::up) return link_handshake(key, l, events);
    if ((events & (EPOLLIN | EPOLLERR | EPOLLHUP)) != 0 && !link_read(key, l)) return;
    if ((events & EPOLLOUT) != 0) dirty_.insert(key);
}

// The connector's side: Open, then the relay's Challenge (whose proof this
// relay checks: a relay that does not know the key gets nothing), the
// Response, the Answer.
void Engine::link_handshake(std::uint64_t key, Link& l, std::uint32_t events) {
    if (l.state == Link::State::hub_leg) return link_leg_step(key, l);
    if (l.state == Link::State::connecting) {
        if ((events & (EPOLLOUT | EPOLLERR | EPOLLHUP)) != 0) link_connected(key, l);
        return;
    }
    const bool challenge = l.state == Link::State::open_sent;
    const Got got = read_toward(l.w.fd.get(), l.got, challenge ? kChallengeSize : kAnswerSize);
    if (got == Got::again) return;
    if (got == Got::closed) return link_lost(key, "the relay closed the connection during the handshake");
    if (challenge) return link_challenged(key, l);
    link_answered(key, l);
}

void Engine::link_connected(std::uint64_t key, Link& l) {
    if (const int e = socket_error(l.w.fd.get()); e != 0) return link_lost(key, errno_text(e));
    const auto open = open_encode(l.open);
    if (!send_small(l.w.fd.get(), open.data(), open.size()))
        return link_lost(key, "the connection broke during the handshake");
    l.state = Link::State::open_sent;
    watch_set(epoll_.get(), l.w, EPOLLIN);
}

void Engine::link_challenged(std::uint64_t key, Link& l) {
    security::Nonce nonce{};
    security::Proof proof{};
    std::memcpy(nonce.data(), l.got.data(), nonce.size());
    std::memcpy(proof.data(), l.got.data() + nonce.size(), proof.size());
    l.got.clear();
    const auto expected = open_proof(options_.job_key, security::ProofRole::relay_acceptor, l.open, nonce);
    if (!security::proof_equal(expected, proof))
        return link_lost(key, "the relay did not prove the job key (another job's relay, or a stale key)");
    const auto response = open_proof(options_.job_key, security::ProofRole::relay_connector, l.open, nonce);
    if (!send_small(l.w.fd.get(), response.data(), response.size()))
        return link_lost(key, "the connection broke during the handshake");
    l.state = Link::State::response_sent;
}

void Engine::link_answered(std::uint64_t key, Link& l) {
    const std::uint32_t answer = le32(l.got.data());
    l.got.clear();
    if (answer != 1) return link_lost(key, "the relay refused the link (see its log)");
    l.state = Link::State::up;
    ++counters_.links_opened;
    ++counters_.links;
    log("linked to relay " + l.peer + (l.via_hub ? " through mpirun's hub" : ""));
    dirty_.insert(key);
}

// One read of what the link brought, then every whole frame in it.
bool Engine::link_read(std::uint64_t key, Link& l) {
    const ssize_t n = ::recv(l.w.fd.get(), scratch_.data(), scratch_.size(), 0);
    if (n == 0) {
        link_lost(key, "the relay closed the connection");
        return false;
    }
    if (n < 0) {
        if (errno == EAGAIN || errno == EINTR) return true;
        link_lost(key, errno_text(errno));
        return false;
    }
    l.got.insert(l.got.end(), scratch_.data(), scratch_.data() + n);
    return frames_parse(key, l);
}

bool Engine::frames_parse(std::uint64_t key, Link& l) {
    std::size_t at = 0;
    while (l.got.size() - at >= kFrameHeaderSize) {
        const auto h = frame_header_decode(std::span<const std::uint8_t, kFrameHeaderSize>(l.got.data() + at,
                                                                                          kFrameHeaderSize));
        if (!h) {
            link_lost(key, "a malformed frame (an unknown type, a nonzero pad or a length out of bounds)");
            return false;
        }
        if (l.got.size() - at - kFrameHeaderSize < h->length) break;
        const std::span<const std::uint8_t> payload(l.got.data() + at + kFrameHeaderSize, h->length);
        if (!frame_handle(key, l, *h, payload)) return false;
        at += kFrameHeaderSize + h->length;
    }
    l.got.erase(l.got.begin(), l.got.begin() + static_cast<std::ptrdiff_t>(at));
    return true;
}

// One frame; false when it broke the protocol and the link is gone.
bool Engine::frame_handle(std::uint64_t key, Link& l, const FrameHeader& h, std::span<const std::uint8_t> payload) {
    if (h.type == FrameType::open) return frame_open(key, l, h.id, payload);
    if (h.type == FrameType::bye) {
        // An orderly end: what is still open on the link ends with it, and
        // the relay that stopped says why to its own gatekeeper if need be.
        l.farewell = true;
        link_lost(key, "the relay stopped (its subjob ended)");
        return false;
    }
    const auto s = l.streams.find(h.id);
    // Frames of a stream this relay already reset may still be on their way.
    if (s == l.streams.end()) return true;
    const std::uint64_t stream = s->second;
    switch (h.type) {
        case FrameType::data: return stream_data(stream, payload);
        case FrameType::credit: return stream_credit(stream, le32(payload.data()));
        case FrameType::close: stream_peer_close(stream); break;
        case FrameType::reset: {
            const std::string why(payload.begin(), payload.end());
            log(stream_name(streams_.at(stream)) + ": reset by the peer relay: " + why);
            stream_free(stream);
            break;
        }
        case FrameType::open:
        case FrameType::bye: break;
    }
    return true;
}

bool Engine::frame_open(std::uint64_t key, Link& l, std::uint32_t id, std::span<const std::uint8_t> payload) {
    // The dialling relay numbers its streams odd, the other even.
    const std::uint32_t theirs = l.dialled ? 0 : 1;
    if (id % 2 != theirs || l.streams.count(id) != 0) {
        link_lost(key, "an OPEN of stream " + std::to_string(id) + ", which is not the peer's to open");
        return false;
    }
    stream_offer(key, l, id, open_payload_decode(std::span<const std::uint8_t, 12>(payload.data(), 12)));
    return true;
}

void Engine::link_write(std::uint64_t key) {
    const auto it = links_.find(key);
    if (it == links_.end() || it->second.state != Link::State::up) return;
    Link& l = it->second;
    if (l.control_bytes > kControlMax) return link_lost(key, "the relay leaves its control frames unread");
    for (link_fill(l); l.out_at < l.out.size(); link_fill(l)) {
        const ssize_t n = ::send(l.w.fd.get(), l.out.data() + l.out_at, l.out.size() - l.out_at, MSG_NOSIGNAL);
        if (n < 0 && (errno == EAGAIN || errno == EINTR)) break;
        if (n < 0) return link_lost(key, errno_text(errno));
        l.out_at += static_cast<std::size_t>(n);
        buffered_sub(static_cast<std::size_t>(n));
    }
    link_interest(l);
}

// The relay stops: each link that is up gets the rest of its batch and a
// bye, as far as its socket takes them now, so the relay at the other end
// sees an orderly end (nothing to report), not a lost link.
void Engine::links_bye() {
    const auto bye = frame_header_encode(FrameHeader{FrameType::bye, 0, 0});
    for (auto& [key, l] : links_) {
        if (l.state != Link::State::up) continue;
        const std::size_t left = l.out.size() - l.out_at;
        if (left != 0 && ::send(l.w.fd.get(), l.out.data() + l.out_at, left, MSG_NOSIGNAL | MSG_DONTWAIT) !=
                             static_cast<ssize_t>(left))
            continue;
        ::send(l.w.fd.get(), bye.data(), bye.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    }
}

// Takes frames into the write batch once it has been written: control
// first, then credit, then one frame per stream per turn, so a stream that
// floods cannot starve another.
void Engine::link_fill(Link& l) {
    if (l.out_at < l.out.size()) return;
    l.out.clear();
    l.out_at = 0;
    while (l.out.size() < kWriteBatch) {
        if (!l.control.empty()) {
            const std::vector<std::uint8_t> frame = std::move(l.control.front());
            l.control.pop_front();
            l.control_bytes -= frame.size();
            l.out.insert(l.out.end(), frame.begin(), frame.end());
        } else if (!l.credits.empty()) {
            const auto s = streams_.find(l.credits.front());
            l.credits.pop_front();
            if (s == streams_.end()) continue;
            std::uint8_t grant[4];
            le32_put(grant, s->second.credit_owed);
            s->second.credit_owed = 0;
            s->second.credit_queued = false;
            link_append(l, FrameType::credit, s->second.id, grant);
        } else if (!l.ready.empty()) {
            const std::uint64_t stream = l.ready.front();
            l.ready.pop_front();
            link_turn(l, stream);
        } else {
            break;
        }
    }
}

// A stream's turn: its next DATA frame, or its CLOSE after the last one.
void Engine::link_turn(Link& l, std::uint64_t stream_key) {
    const auto it = streams_.find(stream_key);
    if (it == streams_.end()) return;
    Stream& s = it->second;
    if (!s.to_link.empty()) {
        const std::vector<std::uint8_t> chunk = s.to_link.pop_chunk();
        buffered_sub(chunk.size());  // link_append counts it again in the batch
        link_append(l, FrameType::data, s.id, chunk);
    } else if (s.rank_eof && !s.close_sent) {
        link_append(l, FrameType::close, s.id, {});
        s.close_sent = true;
    }
    s.in_ready = !s.to_link.empty() || (s.rank_eof && !s.close_sent);
    if (s.in_ready) {
        l.ready.push_back(stream_key);
    } else if (s.close_sent) {
        stream_done_check(stream_key);
    }
}

void Engine::link_append(Link& l, FrameType type, std::uint32_t id, std::span<const std::uint8_t> payload) {
    const auto header = frame_header_encode(FrameHeader{type, id, static_cast<std::uint32_t>(payload.size())});
    l.out.insert(l.out.end(), header.begin(), header.end());
    l.out.insert(l.out.end(), payload.begin(), payload.end());
    buffered_add(header.size() + payload.size());
}

// Queues a control frame; a peer that leaves kControlMax of them unread
// loses the link.
void Engine::link_control(std::uint64_t key, FrameType type, std::uint32_t id, std::span<const std::uint8_t> payload) {
    const auto it = links_.find(key);
    if (it == links_.end()) return;
    Link& l = it->second;
    std::vector<std::uint8_t> frame(kFrameHeaderSize + payload.size());
    const auto header = frame_header_encode(FrameHeader{type, id, static_cast<std::uint32_t>(payload.size())});
    std::memcpy(frame.data(), header.data(), header.size());
    if (!payload.empty()) std::memcpy(frame.data() + header.size(), payload.data(), payload.size());
    l.control_bytes += frame.size();
    buffered_add(frame.size());
    l.control.push_back(std::move(frame));
    // Dropped by the writer if it must: the caller may be reading this link.
    dirty_.insert(key);
}

void Engine::link_interest(Link& l) {
    const bool more = l.out_at < l.out.size() || !l.control.empty() || !l.credits.empty() || !l.ready.empty();
    watch_set(epoll_.get(), l.w, EPOLLIN | (more ? static_cast<std::uint32_t>(EPOLLOUT) : 0u));
}

// The link is gone (or never came up): every stream on it is reset, and a
// later pair to that relay dials again.
void Engine::link_lost(std::uint64_t key, const std::string& why) {
    const auto it = links_.find(key);
    if (it == links_.end() || link_via_hub(key, it->second, why)) return;
    Link l = std::move(it->second);
    links_.erase(it);
    dirty_.erase(key);
    if (const auto d = dialled_.find(endpoint_key(l.endpoint)); d != dialled_.end() && d->second == key)
        dialled_.erase(d);
    const bool was_up = l.state == Link::State::up;
    if (was_up) --counters_.links;
    buffered_sub(l.control_bytes + (l.out.size() - l.out_at));
    const std::string what = l.peer + ": " + why + " (" + std::to_string(l.streams.size()) + " streams reset)";
    log((was_up ? "lost the link to relay " : "cannot link to relay ") + what);
    // Before the streams end: whoever started the relay hears the cause
    // before the ranks' connections close and they exit.
    if (!l.streams.empty() && options_.report && !l.farewell)
        options_.report((was_up ? "lost its link to relay " : "could not link to relay ") + what);
    for (const auto& [id, stream] : l.streams) stream_free(stream);
    watch_close(epoll_.get(), l.w);
}

}  // namespace strata::relay
