// Accepted connections: the acceptor's side of the handshake, then what each
// kind of Open becomes.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include "base/keepalive.hpp"
#include "relay/engine.hpp"

namespace strata::relay {

namespace {

std::string peer_text(const sockaddr_in& a) {
    return endpoint_text(Endpoint{ntohl(a.sin_addr.s_addr), ntohs(a.sin_port)});
}

// What an Open that decoded may still get wrong, before anything is proven.
std::string open_check(const Open& o) {
    switch (o.kind) {
        case Kind::pair:
            if (o.relay.address == 0 || o.relay.port == 0) return "a pair Open without the peer relay's endpoint";
            if (o.from == o.to) return "a pair Open from a rank to itself";
            break;
        case Kind::accept:
            if (o.token == 0) return "an accept Open without a token";
            break;
        case Kind::ingress:
            if (o.from == o.to) return "an Open from a rank to itself";
            break;
        case Kind::egress:
            if (o.relay.address == 0 || o.relay.port == 0) return "an egress Open without the rank's endpoint";
            if (o.from == o.to) return "an Open from a rank to itself";
            break;
        case Kind::hub_attach:
        case Kind::hub_link:
            if (o.relay.address == 0 || o.relay.port == 0) return "a hub Open without a relay's endpoint";
            break;
        case Kind::attach:
        case Kind::link:
        case Kind::control: break;
    }
    // The proofs bind 24 bits of the stream.
    if (o.stream > 0xffffffu) return "a stream index above 2^24";
    return {};
}

bool answer_send(int fd, bool yes) {
    std::uint8_t word[kAnswerSize];
    le32_put(word, yes ? 1 : 0);
    return send_small(fd, word, sizeof word);
}

}  // namespace

void Engine::listener_accept() {
    for (;;) {
        sockaddr_in from{};
        socklen_t len = sizeof from;
        base::UniqueFd fd(::accept4(listener_.fd.get(), reinterpret_cast<sockaddr*>(&from), &len,
                                    SOCK_NONBLOCK | SOCK_CLOEXEC));
        if (!fd) return;
        if (pending_.size() >= kPendingMax) {
            log("refused a connection from " + peer_text(from) + ": " + std::to_string(kPendingMax) +
                " connections are already in their handshake");
            continue;
        }
        socket_tune(fd.get());
        Pending p;
        p.peer = peer_text(from);
        p.since = Clock::now();
        p.w.fd = std::move(fd);
        p.w.key = key_make(Role::pending);
        watch_set(epoll_.get(), p.w, EPOLLIN);
        const std::uint64_t key = p.w.key;
        pending_.emplace(key, std::move(p));
    }
}

void Engine::pending_step(std::uint64_t key) {
    const auto it = pending_.find(key);
    if (it == pending_.end()) return;
    Pending& p = it->second;
    const Got got = read_toward(p.w.fd.get(), p.got, p.challenged ? kResponseSize : kOpenSize);
    if (got == Got::again) return;
    if (got == Got::closed) return pending_drop(key, "the connection closed during the handshake");
    if (!p.challenged) return pending_challenge(key, p);
    pending_answer(key, p);
}

void Engine::pending_drop(std::uint64_t key, const std::string& why) {
    const auto it = pending_.find(key);
    if (it == pending_.end()) return;
    if (!why.empty()) log("refused a connection from " + it->second.peer + ": " + why);
    watch_close(epoll_.get(), it->second.w);
    pending_.erase(it);
}

void Engine::pending_challenge(std::uint64_t key, Pending& p) {
    const auto open = open_decode(std::span<const std::uint8_t, kOpenSize>(p.got.data(), kOpenSize));
    if (!open) return pending_drop(key, "not a relay handshake (another magic, an unknown kind or a nonzero pad)");
    if (const std::string why = open_check(*open); !why.empty()) return pending_drop(key, why);
    if (!security::nonce_fill(p.relay_nonce))
        return pending_drop(key, "cannot make a nonce (the OpenSSL random generator is not seeded)");
    p.open = *open;
    const security::Proof proof = open_proof(options_.job_key, security::ProofRole::relay_acceptor, p.open, p.relay_nonce);
    std::array<std::uint8_t, kChallengeSize> message{};
    std::memcpy(message.data(), p.relay_nonce.data(), p.relay_nonce.size());
    std::memcpy(message.data() + p.relay_nonce.size(), proof.data(), proof.size());
    if (!send_small(p.w.fd.get(), message.data(), message.size()))
        return pending_drop(key, "the connection broke during the handshake");
    p.challenged = true;
    p.got.clear();
}

void Engine::pending_answer(std::uint64_t key, Pending& p) {
    security::Proof proof{};
    std::memcpy(proof.data(), p.got.data(), proof.size());
    const security::Proof expected =
        open_proof(options_.job_key, security::ProofRole::relay_connector, p.open, p.relay_nonce);
    std::string why = security::proof_equal(expected, proof)
                          ? admissible(p.open)
                          : "the proof does not match the job key (another job, or a stale key)";
    if (!answer_send(p.w.fd.get(), why.empty()) && why.empty()) why = "the connection broke during the handshake";
    if (!why.empty()) return pending_drop(key, why);
    admit(p);
    pending_drop(key, "");
}

// Whether a proven Open can be served now; why not otherwise.
std::string Engine::admissible(const Open& o) const {
    if (options_.is_hub) return hub_admissible(o);
    const std::string rank = "rank " + std::to_string(o.to);
    switch (o.kind) {
        case Kind::attach:
            if (attaches_.size() >= kAttachMax && attached_.count(o.from) == 0) return "too many attached ranks";
            break;
        case Kind::pair:
            if (streams_.size() >= kStreamsMax) return std::to_string(kStreamsMax) + " streams are open already";
            if (links_.size() >= kLinksMax && dialled_.count(endpoint_key(o.relay)) == 0)
                return std::to_string(kLinksMax) + " links are open already";
            break;
        case Kind::accept: {
            const auto t = tokens_.find(o.token);
            const auto u = splice_tokens_.find(o.token);
            const bool stream = t != tokens_.end() && streams_.at(t->second).ends.to == o.from;
            const bool splice = u != splice_tokens_.end() && splices_.at(u->second).to == o.from;
            if (!stream && !splice)
                return "rank " + std::to_string(o.from) + " offered a token no stream waits for (it expired?)";
            break;
        }
        case Kind::link:
            if (links_.size() >= kLinksMax) return std::to_string(kLinksMax) + " links are open already";
            break;
        case Kind::control:
            if (!options_.wireup) return "a control connection, but this relay was not told where mpirun is";
            if (splices_.size() >= kStreamsMax) return std::to_string(kStreamsMax) + " streams are open already";
            break;
        case Kind::egress:
            if (splices_.size() >= kStreamsMax) return std::to_string(kStreamsMax) + " streams are open already";
            break;
        case Kind::ingress:
            if (splices_.size() >= kStreamsMax) return std::to_string(kStreamsMax) + " streams are open already";
            if (attached_.count(o.to) == 0) return rank + " is not attached here (a stream from rank " +
                                                   std::to_string(o.from) + ")";
            break;
        case Kind::hub_attach:
        case Kind::hub_link: return "a hub's Open, but this is a site's relay, not mpirun's hub";
    }
    return {};
}

// Moves the pending connection's socket to what its Open asked for.
void Engine::admit(Pending& p) {
    switch (p.open.kind) {
        case Kind::attach: attach_admit(p); break;
        case Kind::pair: pair_admit(p); break;
        case Kind::accept: accept_admit(p); break;
        case Kind::link: link_admit(p); break;
        case Kind::control: splice_dial(p, *options_.wireup, "mpirun"); break;
        case Kind::egress: splice_dial(p, p.open.relay, "rank " + std::to_string(p.open.to)); break;
        case Kind::ingress:
            splice_offer(p, attached_.at(p.open.to), "rank " + std::to_string(p.open.to));
            break;
        case Kind::hub_attach:
        case Kind::hub_link: hub_admit(p); break;
    }
}

// A rank attached to this relay (attach), or a relay to mpirun's hub
// (hub_attach): a second attach of the same one replaces the first.
void Engine::attach_admit(Pending& p) {
    const bool relay = p.open.kind == Kind::hub_attach;
    auto& by = relay ? relays_attached_ : attached_;
    const std::uint64_t id = relay ? endpoint_key(p.open.relay) : p.open.from;
    if (const auto old = by.find(id); old != by.end())
        attach_drop(old->second, "attached again from " + p.peer + ": the previous attach connection is closed");
    Attach a;
    a.rank = p.open.from;
    if (relay) a.relay = p.open.relay;
    a.peer = p.peer;
    a.w = watch_take(epoll_.get(), p.w, key_make(Role::attach));
    watch_set(epoll_.get(), a.w, EPOLLIN);
    const std::uint64_t key = a.w.key;
    attaches_.emplace(key, std::move(a));
    by[id] = key;
}

void Engine::accept_admit(Pending& p) {
    if (const auto u = splice_tokens_.find(p.open.token); u != splice_tokens_.end()) return splice_accept(p, u->second);
    const auto t = tokens_.find(p.open.token);
    const std::uint64_t key = t->second;
    tokens_.erase(t);
    Stream& s = streams_.at(key);
    s.token = 0;
    s.w = watch_take(epoll_.get(), p.w, key);
    rank_flush(key);
}

void Engine::link_admit(Pending& p) {
    Link l;
    l.peer = p.peer;
    l.dialled = false;
    l.state = Link::State::up;
    l.next_id = 2;
    l.endpoint = p.open.relay;
    l.w = watch_take(epoll_.get(), p.w, key_make(Role::link));
    base::socket_keepalive(l.w.fd.get());  // as a dialled link (link_dial)
    watch_set(epoll_.get(), l.w, EPOLLIN);
    // Named by the relay's own endpoint where the Open gives it, not the
    // connection's source port, so that its log and reports name it as the
    // ranks' cards do.
    const bool named = l.endpoint.port != 0;
    if (named) l.peer = endpoint_text(l.endpoint);
    log("accepted a link from relay " + l.peer + (named ? " (connected from " + p.peer + ")" : ""));
    const std::uint64_t key = l.w.key;
    // This relay's own streams to that relay may use it too.
    if (named) dialled_.emplace(endpoint_key(l.endpoint), key);
    links_.emplace(key, std::move(l));
    ++counters_.links_opened;
    ++counters_.links;
}

void Engine::attach_event(std::uint64_t key, std::uint32_t events) {
    const auto it = attaches_.find(key);
    if (it == attaches_.end()) return;
    if ((events & (EPOLLIN | EPOLLERR | EPOLLHUP)) != 0) {
        // A rank sends nothing on its attach connection: only its end matters.
        const ssize_t n = ::recv(it->second.w.fd.get(), scratch_.data(), scratch_.size(), 0);
        if (n == 0) return attach_drop(key, "closed its attach connection");
        if (n < 0 && errno != EAGAIN && errno != EINTR)
            return attach_drop(key, "its attach connection broke: " + errno_text(errno));
    }
    if ((events & EPOLLOUT) != 0) attach_flush(key);
}

void Engine::attach_drop(std::uint64_t key, const std::string& why) {
    const auto it = attaches_.find(key);
    if (it == attaches_.end()) return;
    Attach& a = it->second;
    auto& by = a.relay ? relays_attached_ : attached_;
    const std::uint64_t id = a.relay ? endpoint_key(*a.relay) : a.rank;
    log((a.relay ? "relay " + endpoint_text(*a.relay) : "rank " + std::to_string(a.rank)) + " detached (" + a.peer +
        "): " + why);
    if (const auto r = by.find(id); r != by.end() && r->second == key) by.erase(r);
    watch_close(epoll_.get(), a.w);
    attaches_.erase(it);
}

void Engine::attach_flush(std::uint64_t key) {
    Attach& a = attaches_.at(key);
    while (!a.out.empty()) {
        const ssize_t n = ::send(a.w.fd.get(), a.out.data(), a.out.size(), MSG_NOSIGNAL);
        if (n < 0 && (errno == EAGAIN || errno == EINTR)) break;
        if (n < 0) return attach_drop(key, "its attach connection broke: " + errno_text(errno));
        a.out.erase(a.out.begin(), a.out.begin() + n);
    }
    watch_set(epoll_.get(), a.w, EPOLLIN | (a.out.empty() ? 0u : static_cast<std::uint32_t>(EPOLLOUT)));
}

bool Engine::notice_send(std::uint32_t rank, const Notice& n) {
    const auto r = attached_.find(rank);
    return r != attached_.end() && notice_to(r->second, n);
}

bool Engine::notice_to(std::uint64_t key, const Notice& n) {
    Attach& a = attaches_.at(key);
    if (a.out.size() + kNoticeSize > kNoticeBacklog) {
        attach_drop(key, "it leaves its notices unread");
        return false;
    }
    const auto bytes = notice_encode(n);
    a.out.insert(a.out.end(), bytes.begin(), bytes.end());
    attach_flush(key);
    return attaches_.count(key) != 0;
}

}  // namespace strata::relay
