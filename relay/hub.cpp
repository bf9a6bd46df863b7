// mpirun's hub, and a relay's side of it (relay/protocol.hpp, hub_attach
// and hub_link): where two relays cannot reach each other (neither accepts
// connections from the other's site), the relay that wants the link asks
// mpirun's hub, which every relay reaches as it reaches mpirun's wire-up
// listener. The hub offers the connection to the other relay, as a relay
// offers an ingress to a rank (an accept Notice on that relay's attach
// connection to the hub), and splices the two; the relays then run a link's
// own handshake over it, end to end, and carry their streams as on any link.
#include <sys/epoll.h>
#include <sys/socket.h>

#include <cerrno>

#include "base/keepalive.hpp"
#include "relay/engine.hpp"

namespace strata::relay {

namespace {

// Puts a Dialer's socket in the set (op: EPOLL_CTL_ADD or _MOD) under
// `key`, waiting for what its next step needs.
void dialer_watch(int epfd, const Dialer& d, std::uint64_t key, int op) {
    epoll_event ev{};
    ev.events = d.wants_write() ? EPOLLOUT : EPOLLIN;
    ev.data.u64 = key;
    ::epoll_ctl(epfd, op, d.fd(), &ev);
}

// A Dialer's socket, done with its handshake, out of the set to be watched
// as a Watch.
base::UniqueFd dialer_take(int epfd, Dialer& d) {
    ::epoll_ctl(epfd, EPOLL_CTL_DEL, d.fd(), nullptr);
    return base::UniqueFd(d.take());
}

}  // namespace

// At the hub: whether a proven Open can be served; why not otherwise.
std::string Engine::hub_admissible(const Open& o) const {
    switch (o.kind) {
        case Kind::hub_attach:
            if (attaches_.size() >= kAttachMax && relays_attached_.count(endpoint_key(o.relay)) == 0)
                return "too many attached relays";
            return {};
        case Kind::hub_link:
            if (splices_.size() >= kStreamsMax) return std::to_string(kStreamsMax) + " links are open already";
            if (relays_attached_.count(endpoint_key(o.relay)) == 0)
                return "relay " + endpoint_text(o.relay) + " is not attached to mpirun's hub (it ended, or never started)";
            return {};
        case Kind::accept:
            if (splice_tokens_.count(o.token) == 0) return "a token no link waits for (it expired?)";
            return {};
        default: return "a rank's Open, but this is mpirun's hub: it joins relays, nothing else";
    }
}

void Engine::hub_admit(Pending& p) {
    const std::uint64_t id = endpoint_key(p.open.relay);
    const std::string relay = "relay " + endpoint_text(p.open.relay);
    if (p.open.kind == Kind::hub_link) {
        log("the relay at " + p.peer + " cannot reach " + relay + " directly: their link goes through mpirun");
        return splice_offer(p, relays_attached_.at(id), relay);
    }
    attach_admit(p);
    log(relay + " attached (" + p.peer + ")");
}

// At a relay: its attach connection to the hub, made once, before it
// serves (a relay told of a hub it cannot reach does not start).
base::Status Engine::hub_attach() {
    if (options_.advertise == 0)
        return base::Error{"a relay given mpirun's hub must know its own address (advertise) to be found there"};
    Open o;
    o.kind = Kind::hub_attach;
    o.relay = Endpoint{options_.advertise, static_cast<std::uint16_t>(port_)};
    base::Result<int> fd = dial(*options_.hub, o, options_.job_key, kHubAttachTimeout);
    if (!fd) return base::Error{"cannot attach to mpirun's hub: " + fd.error()};
    hub_.fd.reset(*fd);
    hub_.key = key_make(Role::hub);
    watch_set(epoll_.get(), hub_, EPOLLIN);
    log("attached to mpirun's hub at " + endpoint_text(*options_.hub) + " as " + endpoint_text(o.relay));
    return {};
}

// The hub's Notices: each offers a link another relay asked for.
void Engine::hub_event(std::uint32_t events) {
    if ((events & (EPOLLIN | EPOLLHUP | EPOLLERR)) == 0) return;
    std::uint8_t buf[kNoticeSize * 16];
    const ssize_t n = ::recv(hub_.fd.get(), buf, sizeof buf, 0);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
    if (n <= 0) {
        log(std::string("mpirun's hub ") + (n == 0 ? "closed the attach connection" : "broke: " + errno_text(errno)) +
            ": no more links through it");
        return watch_close(epoll_.get(), hub_);
    }
    hub_got_.insert(hub_got_.end(), buf, buf + n);
    std::size_t at = 0;
    for (; hub_got_.size() - at >= kNoticeSize; at += kNoticeSize) {
        const auto notice = notice_decode(std::span<const std::uint8_t, kNoticeSize>(hub_got_.data() + at, kNoticeSize));
        if (!notice) {
            log("mpirun's hub sent a malformed Notice: no more links through it");
            hub_got_.clear();
            return watch_close(epoll_.get(), hub_);
        }
        hub_accept(*notice);
    }
    hub_got_.erase(hub_got_.begin(), hub_got_.begin() + static_cast<std::ptrdiff_t>(at));
}

// Takes an offered link: an accept to the hub, whose connection then
// becomes an accepted connection of this relay (a link's Open comes first).
void Engine::hub_accept(const Notice& n) {
    Open o;
    o.kind = Kind::accept;
    o.token = n.token;
    base::Result<Dialer> d = Dialer::start(*options_.hub, o, options_.job_key);
    if (!d) return log("cannot take a link offered through mpirun's hub: " + d.error());
    const std::uint64_t key = key_make(Role::hub_dial);
    dialer_watch(epoll_.get(), *d, key, EPOLL_CTL_ADD);
    hub_dials_.emplace(key, std::move(*d));
}

void Engine::hub_dial_event(std::uint64_t key) {
    const auto it = hub_dials_.find(key);
    if (it == hub_dials_.end()) return;
    const base::Result<bool> done = it->second.step();
    if (!done) {
        log("cannot take a link offered through mpirun's hub: " + done.error());
        hub_dials_.erase(it);
        return;
    }
    if (!*done) return dialer_watch(epoll_.get(), it->second, key, EPOLL_CTL_MOD);
    Pending p;
    p.peer = "a relay through mpirun's hub";
    p.since = Clock::now();
    p.w.fd = dialer_take(epoll_.get(), it->second);
    p.w.key = key_make(Role::pending);
    hub_dials_.erase(it);
    watch_set(epoll_.get(), p.w, EPOLLIN);
    const std::uint64_t pending_key = p.w.key;
    pending_.emplace(pending_key, std::move(p));
}

// A link this relay dials that could not connect: through the hub instead,
// keeping its key and the streams that wait for it. False when there is no
// hub, or this link already went through it (the caller then drops it).
bool Engine::link_via_hub(std::uint64_t key, Link& l, const std::string& why) {
    if (!options_.hub || !hub_.fd || !l.dialled || l.via_hub || l.state != Link::State::connecting) return false;
    Open o;
    o.kind = Kind::hub_link;
    o.relay = l.endpoint;
    base::Result<Dialer> d = Dialer::start(*options_.hub, o, options_.job_key);
    if (!d) {
        log("cannot link to relay " + l.peer + " through mpirun's hub either: " + d.error());
        return false;
    }
    log("cannot reach relay " + l.peer + " directly (" + why + "): linking through mpirun's hub");
    watch_close(epoll_.get(), l.w);
    l.via_hub = true;
    l.state = Link::State::hub_leg;
    l.since = Clock::now();
    l.leg.emplace(std::move(*d));
    dialer_watch(epoll_.get(), *l.leg, key, EPOLL_CTL_ADD);
    return true;
}

// The hub's handshake of a link through it; then the link's own.
void Engine::link_leg_step(std::uint64_t key, Link& l) {
    const base::Result<bool> done = l.leg->step();
    if (!done) return link_lost(key, "through mpirun's hub: " + done.error());
    if (!*done) return dialer_watch(epoll_.get(), *l.leg, key, EPOLL_CTL_MOD);
    l.w.fd = dialer_take(epoll_.get(), *l.leg);
    base::socket_keepalive(l.w.fd.get());  // as a direct link (link_dial)
    l.w.key = key;
    l.w.events = 0;
    l.leg.reset();
    l.state = Link::State::connecting;
    link_connected(key, l);
}

}  // namespace strata::relay
