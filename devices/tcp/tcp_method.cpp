#include "devices/tcp/tcp_method.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <utility>

#include "base/knob.hpp"
#include "wireup/settings.hpp"
#include "base/little_endian.hpp"
#include "devices/tcp/handshake.hpp"
#include "devices/tcp/network.hpp"
#include "relay/dial.hpp"
#include "wireup/emulation.hpp"
#include "wireup/environment.hpp"

namespace strata::dev::tcp {

namespace {

const base::KnobInt eager_limit{"STRATA_TCP_EAGER_LIMIT", 65536,
                                "TCP: messages up to this size go eagerly, larger ones by rendezvous", true};

const base::KnobString data_tls_knob{
    wireup::kDataTls.variable, "off",
    "TLS on TCP links between ranks: off, wan (between ranks of different sites) or all"};

// The card entry under which each rank shows its STRATA_DATA_TLS.
constexpr std::string_view kTlsEntry = "tcp.tls";

const base::KnobInt streams_knob{
    wireup::kTcpStreams.variable, 1,
    "TCP connections a process uses to send to each peer at another site, 1 to 16: payloads above "
    "STRATA_TCP_STRIPE_UNIT are striped over them (per communicator the MPIX_PARALLEL_STREAMS attribute)"};
const base::KnobInt stripe_unit_knob{
    "STRATA_TCP_STRIPE_UNIT", 65536,
    "TCP: with several streams, payloads larger than this go in stripes of this size, round robin over the "
    "streams (at least 512)",
    true};

// Held packets due within this long keep the process polling instead of
// sleeping; the timer wakes it this long before later ones.
constexpr std::int64_t kEmulationSpinNs = 2'000'000;

constexpr std::uint64_t kKeyListener = 1ull << 32;
constexpr std::uint64_t kKeyPeer = 2ull << 32;
constexpr std::uint64_t kKeyIncoming = 3ull << 32;
constexpr std::uint64_t kKeyTimer = 4ull << 32;
// Extra streams: kind | stream << 24 | peer.
constexpr std::uint64_t kKeyOut = 5ull << 32;  // ours to the peer
constexpr std::uint64_t kKeyIn = 6ull << 32;   // the peer's to us
constexpr std::uint64_t kKeyRelay = 7ull << 32;  // the attach connection to this site's relay
constexpr std::uint32_t kPeerBits = 0xffffffu;
constexpr std::uint64_t kKindBits = 0xffffffff00000000ull;  // the kind part of a key

// The premium lane's IP_TOS: DSCP EF (46) in the upper six bits.
constexpr int kDscpExpedited = 46 << 2;

std::uint64_t stream_key(std::uint64_t kind, std::uint32_t stream, int peer) {
    return kind | static_cast<std::uint64_t>(stream) << 24 | static_cast<std::uint32_t>(peer);
}

// A queued packet's stamp: `due` on a link emulation shapes, none otherwise.
std::optional<std::uint64_t> stamp_of(const ShapedLink* shaping, std::uint64_t due) {
    return shaping != nullptr ? std::optional<std::uint64_t>(due) : std::nullopt;
}

}  // namespace

TcpMethod::TcpMethod(adi::MethodContext ctx) : ctx_(std::move(ctx)) {
    caps_.name = "tcp";
    caps_.eager_limit = static_cast<std::size_t>(eager_limit.get());
    caps_.poll_cost = 100;
    stripe_unit_ = static_cast<std::size_t>(std::clamp<std::int64_t>(stripe_unit_knob.get(), 512, 1 << 30));
    epfd_ = epoll_create1(EPOLL_CLOEXEC);
    trusts_.push_back(Trust{0, ctx_.job_key, static_cast<std::uint32_t>(ctx_.rank), 0, 0, ctx_.size, ""});
    for (int i = 0; i < ctx_.size; ++i) peer_new(i, 0);
}

TcpMethod::~TcpMethod() { shutdown(); }

void TcpMethod::peer_new(int peer, std::uint32_t trust) {
    auto p = std::make_unique<Peer>();
    const Trust& t = trusts_[trust];
    p->c.epfd = epfd_;
    p->c.key = kKeyPeer | static_cast<std::uint32_t>(peer);
    p->remote.rank = static_cast<int>(t.first_rank) + (peer - t.first);
    p->remote.set = t.id;
    p->trust = trust;
    peers_.push_back(std::move(p));
}

base::Status TcpMethod::peer_address_set(Peer& p, const wireup::BusinessCard& card, const std::string& index) {
    p.remote.hostname = card.hostname;
    p.site = card.site;
    const std::string a = card.entry("tcp");
    if (a.empty()) return {};  // no TCP there
    const base::Result<CardAddress> where = card_address_parse(a);
    if (!where) return where.failure().prefixed(index + " publishes the TCP address '" + a + "': ");
    p.remote.port = where->port;
    p.remote.address = where->addresses.front();
    // On one host the loopback path is the shortest, when the peer listens on it.
    if (!my_host_.empty() && card.host == my_host_) {
        for (const auto& x : where->addresses) {
            if (x == "127.0.0.1") p.remote.address = x;
        }
    }
    return {};
}

std::unique_ptr<Connection> TcpMethod::conn_make(int peer, std::uint64_t kind, std::uint32_t stream) const {
    auto c = std::make_unique<Connection>();
    c->stream = stream;
    c->epfd = epfd_;
    c->key = stream_key(kind, stream, peer);
    return c;
}

Connection* TcpMethod::conn_of(int peer, std::uint64_t key) {
    Peer& p = peer_at(peer);
    const std::size_t k = static_cast<std::size_t>((key >> 24) & 0xff);
    auto& list = (key & kKindBits) == kKeyOut ? p.sends : p.recvs;
    return k >= 1 && k <= list.size() ? list[k - 1].get() : nullptr;
}

base::Status TcpMethod::listen_open() {
    base::Result<Listening> l = listener_open(ctx_.rank);
    if (!l) return l.failure();
    listen_fd_ = l->fd.release();
    port_ = l->port;
    address_ = l->address;
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = kKeyListener;
    epoll_ctl(epfd_, EPOLL_CTL_ADD, listen_fd_, &ev);
    return {};
}

base::Status TcpMethod::publish(wireup::BusinessCard& card) {
    if (base::Status opened = listen_open(); !opened) return opened;
    card.publish("tcp", address_);
    // Before the barrier, after which mpirun removes the table's name.
    if (base::Status shared = emulator_.attach(wireup::emulation_setting(), ctx_.job_key); !shared) return shared;
    // At a private site the gatekeeper started a relay and said where.
    if (const char* relay = std::getenv(wireup::env::kRelay); relay != nullptr && *relay != '\0') {
        my_relay_ = relay::endpoint_parse(relay);
        if (!my_relay_) {
            return base::Error{std::string(wireup::env::kRelay) + "='" + relay +
                               "': expected the relay's IPv4 address and port, a.b.c.d:port"};
        }
        card.publish(wireup::kRelayEntry, relay);
        // Attached before the startup barrier: a peer may open a stream to
        // this process as soon as the barrier opens.
        if (base::Status attached = relay_attach(); !attached) return attached;
    }
    // Both ends of a link must agree on TLS, or each waits for the other:
    // every rank shows its setting, and connect_world compares them.
    card.publish(kTlsEntry, data_tls_knob.get());
    return {};
}

base::Status TcpMethod::settings_check(const std::vector<wireup::BusinessCard>& cards, int my_rank) const {
    if (std::string fault = wireup::setting_fault(wireup::kDataTls, data_tls_); !fault.empty())
        return base::Error{std::move(fault)};
    if (std::string fault = wireup::setting_fault(wireup::kTcpStreams, std::to_string(streams_knob.get()));
        !fault.empty())
        return base::Error{std::move(fault)};
    if (cards.size() > kPeerBits) {
        return base::Error{"the TCP method numbers at most " + std::to_string(kPeerBits) + " processes"};
    }
    for (std::size_t i = 0; i < cards.size(); ++i) {
        const std::string& theirs = cards[i].entry(kTlsEntry);
        if (!cards[i].entry("tcp").empty() && theirs != data_tls_) {
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
    trusts_[0].me = static_cast<std::uint32_t>(my_rank);
    data_tls_ = data_tls_knob.get();
    if (base::Status valid = settings_check(cards, my_rank); !valid) return valid;
    const std::int64_t streams = streams_knob.get();
    const auto me = static_cast<std::size_t>(my_rank);
    if (me < cards.size()) my_site_ = cards[me].site;
    // Equal "host" labels mean the same kernel and network namespace, where
    // loopback reaches; equal host names do not (namespaces share them).
    my_host_ = me < cards.size() ? cards[me].host : "";
    for (std::size_t i = 0; i < cards.size() && i < peers_.size(); ++i) {
        Peer& p = *peers_[i];
        if (base::Status placed = peer_address_set(p, cards[i], "rank " + std::to_string(i)); !placed) return placed;
        // Several streams for the links that cross the wide area.
        p.streams = p.site != my_site_ ? static_cast<int>(streams) : 1;
    }
    if (base::Status routed = routes_set(cards, me); !routed) return routed;
    if (base::Status shaped = emulator_.configure(world); !shaped)
        return shaped;
    if (emulator_.active()) {
        timer_watch();
        for (std::size_t i = 0; i < peers_.size(); ++i) peers_[i]->shaping = emulator_.shaping(static_cast<int>(i));
    }
    return {};
}

void TcpMethod::timer_watch() {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = kKeyTimer;
    epoll_ctl(epfd_, EPOLL_CTL_ADD, emulator_.timer_fd(), &ev);
}

base::Status TcpMethod::routes_set(const std::vector<wireup::BusinessCard>& cards, std::size_t me) {
    if (me >= cards.size()) return {};
    for (std::size_t i = 0; i < cards.size() && i < peers_.size(); ++i) {
        Peer& p = *peers_[i];
        p.route = wireup::route_between(cards[me], cards[i]);
        if (p.route == wireup::Route::direct || p.route == wireup::Route::out_relayed) continue;
        const std::optional<relay::Endpoint> theirs = relay::endpoint_parse(wireup::relay_of(cards[i]));
        if (!theirs) {
            return base::Error{"rank " + std::to_string(i) + " names its relay '" + wireup::relay_of(cards[i]) +
                               "': expected a.b.c.d:port"};
        }
        p.relay = *theirs;
    }
    return {};
}

base::Status TcpMethod::relay_attach() {
    relay::Open open;
    open.kind = relay::Kind::attach;
    open.from = static_cast<std::uint32_t>(ctx_.rank);
    base::Result<int> fd = relay::dial(*my_relay_, open, ctx_.job_key);
    if (!fd) return base::Error{"cannot attach to this site's relay: " + fd.error()};
    attach_fd_ = *fd;
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = kKeyRelay;
    epoll_ctl(epfd_, EPOLL_CTL_ADD, attach_fd_, &ev);
    return {};
}

void TcpMethod::relay_connect(int peer, Connection& c) {
    Peer& p = peer_at(peer);
    relay::Open open;
    open.from = static_cast<std::uint32_t>(ctx_.rank);
    open.to = static_cast<std::uint32_t>(peer);
    open.stream = c.stream;
    // relayed: this site's relay carries it to the peer's; out_relayed: this
    // site's relay connects to the peer itself; in_relayed: the peer's relay
    // offers it to the peer.
    relay::Endpoint via = p.relay;
    if (p.route == wireup::Route::relayed) {
        open.kind = relay::Kind::pair;
        open.relay = p.relay;
        via = *my_relay_;
    } else if (p.route == wireup::Route::out_relayed) {
        open.kind = relay::Kind::egress;
        const std::optional<relay::Endpoint> listener =
            relay::endpoint_parse(p.remote.address + ":" + std::to_string(p.remote.port));
        if (!listener) {
            link_failed(peer, "rank " + std::to_string(peer) + "'s address " + p.remote.address +
                                  " is not IPv4: no relay can reach it", nullptr);
            return;
        }
        open.relay = *listener;
        via = *my_relay_;
    } else {
        open.kind = relay::Kind::ingress;
    }
    base::Result<relay::Dialer> d = relay::Dialer::start(via, open, ctx_.job_key);
    if (!d) {
        link_failed(peer, "cannot reach rank " + std::to_string(peer) + " through " + d.error(), nullptr);
        return;
    }
    // The relay's handshake, then (relay_step) the rank's Hello.
    c.relay_start(std::move(*d));
}

void TcpMethod::relay_step(int peer, Connection& c) {
    const base::Result<bool> done = c.dialer->step();
    if (!done) {
        link_failed(peer, "cannot reach rank " + std::to_string(peer) + " through " + done.error(), nullptr);
        return;
    }
    if (!*done) {
        c.set_want_out(c.dialer->wants_write());
        return;
    }
    c.fd = c.dialer->take();
    c.dialer.reset();
    c.state = Link::connecting;
    on_connected(peer, c);
}

void TcpMethod::relay_notices() {
    for (;;) {
        std::uint8_t buf[relay::kNoticeSize * 16];
        const ssize_t n = ::recv(attach_fd_, buf, sizeof buf, 0);
        if (n < 0 && (errno == EINTR)) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        if (n <= 0) {
            relay_lost(n == 0 ? "it closed the connection" : errno_text(errno));
            return;
        }
        notice_got_.insert(notice_got_.end(), buf, buf + n);
        std::size_t at = 0;
        for (; notice_got_.size() - at >= relay::kNoticeSize; at += relay::kNoticeSize) {
            const auto notice =
                relay::notice_decode(std::span<const std::uint8_t, relay::kNoticeSize>(&notice_got_[at], relay::kNoticeSize));
            if (!notice || notice->from >= peers_.size()) {
                relay_lost("it sent a malformed notice");
                return;
            }
            relay_notice(*notice);
        }
        notice_got_.erase(notice_got_.begin(), notice_got_.begin() + static_cast<std::ptrdiff_t>(at));
    }
}

void TcpMethod::relay_notice(const relay::Notice& n) {
    const int peer = static_cast<int>(n.from);
    relay::Open open;
    open.kind = relay::Kind::accept;
    open.from = static_cast<std::uint32_t>(ctx_.rank);
    open.to = n.from;
    open.stream = n.stream;
    open.token = n.token;
    base::Result<relay::Dialer> d = relay::Dialer::start(*my_relay_, open, ctx_.job_key);
    if (!d) {
        std::fprintf(stderr, "strata: rank %d: cannot take rank %d's connection from this site's relay: %s\n",
                     ctx_.rank, peer, d.error().c_str());
        return;
    }
    // Once the relay answered it is any accepted connection: the peer's
    // Hello comes first (on_incoming).
    const int fd = d->fd();
    incoming_add(fd, "rank " + std::to_string(peer) + " through the relay " + relay::endpoint_text(*my_relay_));
    Incoming& in = incoming_.at(fd);
    in.dialer = std::make_unique<relay::Dialer>(std::move(*d));
    incoming_watch(in);
}

void TcpMethod::relay_lost(const std::string& why) {
    epoll_ctl(epfd_, EPOLL_CTL_DEL, attach_fd_, nullptr);
    ::close(attach_fd_);
    attach_fd_ = -1;
    const std::string text = "this site's relay at " + relay::endpoint_text(*my_relay_) + " is gone (" + why +
                             "): no link to another site can be made or kept";
    for (std::size_t i = 0; i < peers_.size(); ++i) {
        if (peers_[i]->route != wireup::Route::direct && peers_[i]->c.state != Link::closed)
            link_failed(static_cast<int>(i), text, nullptr);
    }
}

bool TcpMethod::streams_set(int peer, int n) {
    if (n < 1 || n > wireup::kStreamsMax || peer < 0 || static_cast<std::size_t>(peer) >= peers_.size()) return false;
    // Packets already handed over keep the layout they were queued with
    // (each plan names its streams): the count applies from the next one.
    peer_at(peer).streams = n;
    return true;
}

int TcpMethod::streams_out(int peer) const {
    const Peer& p = peer_at(peer);
    int n = 1;
    for (const auto& c : p.sends) n += c != nullptr && c->established && c->stream != kLaneStream ? 1 : 0;
    return n;
}

int TcpMethod::streams_in(int peer) const {
    const Peer& p = peer_at(peer);
    int n = 1;
    for (const auto& c : p.recvs) n += c != nullptr && c->established && c->stream != kLaneStream ? 1 : 0;
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
        if (!peers_[i]->sends.empty()) add("to", i, static_cast<std::size_t>(streams_out(peer)));
        if (!peers_[i]->recvs.empty()) add("from", i, static_cast<std::size_t>(streams_in(peer)));
    }
    // Stripes received: taken straight from the streams, or held by the emulation.
    const std::uint64_t received = counters().stripes_received + emulator_.stripes_delivered();
    if (counters_.stripes_sent > 0 || received > 0) {
        out += out.empty() ? "streams: " : "; ";
        out += std::to_string(counters_.stripes_sent);
        out += " stripes sent, ";
        out += std::to_string(received);
        out += " received";
    }
    if (emulator_.foreign_delivered() > 0) {
        out += out.empty() ? "" : "; ";
        out += "emulated links to other jobs: ";
        out += std::to_string(emulator_.foreign_delivered());
        out += " packets held until due";
    }
    if (counters_.lane_moves > 0) {
        out += out.empty() ? "" : "; ";
        out += "premium lanes: ";
        out += std::to_string(counters_.lane_sent);
        out += " packets sent, ";
        out += std::to_string(counters_.lane_moves);
        out += " lane changes";
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
    return peer != ctx_.rank && !peer_at(peer).remote.address.empty();
}

bool TcpMethod::peers_add(const adi::PeerSet& set) {
    if (set.first < ctx_.size || static_cast<std::size_t>(set.first) > peers_.size() ||
        static_cast<std::size_t>(set.first) + set.cards.size() > kPeerBits)
        return false;
    // The indexes of a set the engine could not add (peers_add below left
    // them here) are taken again, with the set's trust, the last ones.
    peers_.resize(static_cast<std::size_t>(set.first));
    while (trusts_.back().id != 0 && trusts_.back().first >= set.first) trusts_.pop_back();
    const auto trust = static_cast<std::uint32_t>(trusts_.size());
    trusts_.push_back(Trust{set.id, set.key, set.my_rank, set.first_rank, set.first,
                            static_cast<int>(set.cards.size()), set.cards.empty() ? "" : set.cards.front().entry(kTlsEntry)});
    // Their links shaped as this job's when both jobs emulate alike (and the timer watched from then on).
    const bool timed = emulator_.active();
    if (!emulator_.peers_add(set.first, set.cards, my_site_, my_host_, set.emulation)) return false;
    if (emulator_.active() && !timed) timer_watch();
    for (std::size_t k = 0; k < set.cards.size(); ++k) {
        const int peer = set.first + static_cast<int>(k);
        peer_new(peer, trust);
        peer_at(peer).shaping = emulator_.shaping(peer);
        Peer& p = peer_at(peer);
        // Another job's site behind a relay, or this one's, is out of reach:
        // relays carry only their own job's links.
        if (wireup::is_private(set.cards[k]) || my_relay_) continue;
        if (!peer_address_set(p, set.cards[k], "process " + std::to_string(set.first_rank + k))) {
            p.remote.address.clear();
            continue;
        }
        p.streams = p.site != my_site_ ? static_cast<int>(streams_knob.get()) : 1;
        // Opened at once, not on first use: a receive from a process of the
        // other job must hear of its end (the link closing), and nothing
        // else tells (its mpirun ends only its own job). Not to a process
        // that shared memory reaches (it watches that one itself).
        if (k < set.taken.size() && set.taken[k] != 0) continue;
        start_connect(peer, p.c);
    }
    return true;
}

void TcpMethod::peers_close(int first, int count) {
    for (int peer = first; peer < first + count && peer < static_cast<int>(peers_.size()); ++peer) {
        if (peer_at(peer).trust == 0) continue;
        peer_close(peer_at(peer));
        peer_at(peer).remote.address.clear();
    }
}

void TcpMethod::start_connect(int peer, Connection& c) {
    const wireup::Route route = peer_at(peer).route;
    if (route != wireup::Route::direct) {
        relay_connect(peer, c);
        return;
    }
    if (base::Status started = c.connect_start(peer_at(peer).remote); !started)
        link_failed(peer, started.error(), nullptr);
}

void TcpMethod::on_connected(int peer, Connection& c) {
    const std::uint32_t me = trust_of(peer).me;
    if (base::Status sent = c.hello_send(peer_at(peer).remote, me); !sent)
        link_failed(peer, sent.error(), nullptr);
}

void TcpMethod::on_reply(int peer, Connection& c, adi::Upcalls& up) {
    const Trust& t = trust_of(peer);
    const std::uint32_t me = t.me;
    const auto them = static_cast<std::uint32_t>(peer_at(peer).remote.rank);
    const base::Result<Connection::Reply> reply = c.reply_read(peer_at(peer).remote, t.key, me);
    if (!reply) {
        link_failed(peer, reply.error(), &up);
        return;
    }
    switch (*reply) {
        case Connection::Reply::pending: return;
        case Connection::Reply::accepted:
            link_established(peer, c, false, c.nonce, c.acceptor_nonce, me, them);
            if (c.state == Link::connected) conn_ready(peer, c, up);
            return;
        case Connection::Reply::refused: break;
    }
    if (c.stream == 0) {
        // The peer's own connection to us wins; it will arrive on the listener.
        c.close();
        c.state = Link::awaiting_incoming;
        return;
    }
    std::string why = "rank " + std::to_string(peer);
    why += " refused stream ";
    why += std::to_string(c.stream);
    why += " of its link";
    link_failed(peer, why, &up);
}

void TcpMethod::incoming_drop(int fd, const char* why) {
    auto it = incoming_.find(fd);
    if (it == incoming_.end()) return;
    if (why != nullptr)
        std::fprintf(stderr, "strata: rank %d: refused a TCP connection from %s: %s\n", ctx_.rank,
                     it->second.from.c_str(), why);
    epoll_ctl(epfd_, EPOLL_CTL_DEL, fd, nullptr);
    if (it->second.dialer) it->second.dialer->take();  // closed once, here
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
    if (in.dialer) {
        const base::Result<bool> done = in.dialer->step();
        if (!done) return incoming_drop(fd, done.error().c_str());
        if (*done) in.dialer->take();
        if (*done) in.dialer.reset();
        incoming_watch(in);
        return;  // the Hello, when it comes, is reported at a later poll
    }
    switch (in.read()) {
        case Incoming::Read::again: return;
        case Incoming::Read::closed:
            // Silently: the rank that loses a simultaneous connect closes its
            // attempt here too, and a stranger who gives up has proved nothing.
            incoming_drop(fd, nullptr);
            return;
        case Incoming::Read::whole: break;
    }
    if (!in.challenged) {
        const base::Status challenged = incoming_claim(in);
        if (!challenged) incoming_drop(fd, challenged.error().c_str());
        return;
    }
    decide_incoming(in);
}

base::Status TcpMethod::incoming_claim(Incoming& in) {
    if (base::Status taken = in.hello_take(); !taken) return taken;
    const auto t = std::find_if(trusts_.begin(), trusts_.end(), [&](const Trust& x) { return x.id == in.set; });
    if (t == trusts_.end()) return base::Error{"it names a connection between jobs that this process does not have"};
    if (base::Status claim = in.claim_check(t->me, t->first_rank, static_cast<std::uint32_t>(t->count)); !claim)
        return claim;
    in.peer = t->first + static_cast<int>(in.from_rank - t->first_rank);
    if (static_cast<std::size_t>(in.peer) >= peers_.size()) return base::Error{"that process was disconnected"};
    if (t->id != 0 && peer_at(in.peer).remote.address.empty()) return base::Error{"that process was disconnected"};
    return in.challenge(t->key);
}

void TcpMethod::decide_incoming(Incoming& in) {
    const std::uint32_t from = in.from_rank;
    const std::uint32_t stream = in.stream;
    const int fd = in.fd;
    const int peer = in.peer;
    const Trust& t = trust_of(peer);
    if (!in.proven(t.key)) {
        incoming_drop(fd, t.id == 0 ? "it failed the job-key challenge" : "it failed the challenge of its connection");
        return;
    }
    Peer& p = peer_at(peer);
    bool accept = false;
    if (stream == 0) {
        accept = p.c.state == Link::idle || p.c.state == Link::awaiting_incoming ||
                 ((p.c.state == Link::relay_handshake || p.c.state == Link::connecting || p.c.state == Link::hello_sent ||
                   p.c.state == Link::response_sent) &&
                  from < t.me);
    } else {
        // The sender opens each of its streams once.
        accept = p.c.state != Link::failed && (p.recvs.size() < stream || p.recvs[stream - 1] == nullptr);
    }
    if (!in.answer(accept) || !accept) {
        incoming_drop(fd, nullptr);
        return;
    }
    const security::Nonce connector_nonce = in.connector_nonce;
    const security::Nonce acceptor_nonce = in.acceptor_nonce;
    incoming_.erase(fd);
    Connection* c = &p.c;
    if (stream == 0) {
        p.c.close();  // our own attempt loses to the lower rank's
    } else {
        if (p.recvs.size() < stream) p.recvs.resize(stream);
        p.recvs[stream - 1] = conn_make(peer, kKeyIn, stream);
        c = p.recvs[stream - 1].get();
    }
    c->adopt(fd);
    link_established(peer, *c, true, connector_nonce, acceptor_nonce, from, t.me);
}

bool TcpMethod::wants_tls(int peer) const {
    // Both ends decide alike: on a link between jobs, TLS when either job's
    // setting asks for it.
    const auto asks = [&](const std::string& setting) {
        return setting == "all" || (setting == "wan" && peer_at(peer).site != my_site_);
    };
    return asks(data_tls_) || asks(trust_of(peer).data_tls);
}

void TcpMethod::link_established(int peer, Connection& c, bool server, const security::Nonce& connector,
                                 const security::Nonce& acceptor, std::uint32_t from, std::uint32_t to) {
    if (c.stream == kLaneStream && c.fd >= 0) {
        // Expedited forwarding (RFC 3246), for networks that honour it.
        const int tos = kDscpExpedited;
        ::setsockopt(c.fd, IPPROTO_IP, IP_TOS, &tos, sizeof tos);
    }
    std::optional<TlsLink::Key> key;
    if (wants_tls(peer))
        key = link_proof(trust_of(peer).key, security::ProofRole::link_tls_key, connector, acceptor, from, to, c.stream);
    if (base::Status established = c.establish(server, key, peer); !established)
        link_failed(peer, established.error(), nullptr);
}

void TcpMethod::tls_step(int peer, Connection& c, adi::Upcalls& up) {
    const base::Result<bool> done = c.tls_step(peer);
    if (!done) {
        link_failed(peer, done.error(), &up);
        return;
    }
    if (*done) conn_ready(peer, c, up);
}

void TcpMethod::conn_ready(int peer, Connection& c, adi::Upcalls& up) {
    Peer& p = peer_at(peer);
    flush(peer, c, &up);
    if (c.state != Link::connected) return;
    // TLS may already hold the first data; a stream a striped payload waits
    // for may be this one.
    if (c.stream == 0) {
        if (c.tls) read_peer(peer, up);
    } else if (&c != &p.c && c.key == stream_key(kKeyIn, c.stream, peer)) {
        read_stream(peer, c, up);
    }
}

adi::SendStatus TcpMethod::send(int peer, const adi::Header& h, std::span<const iovec> data, std::uint64_t token) {
    Peer& p = peer_at(peer);
    Connection& c = p.c;
    if (c.state == Link::failed || c.state == Link::closed) return adi::SendStatus::failed;
    if (!p.premium.empty()) [[unlikely]] {
        for (const auto& [context, holds] : p.premium)
            if (context == h.context) return send_lane(peer, h, data, token);
    }

    std::uint64_t total = sizeof(adi::Header);
    for (const iovec& v : data) total += v.iov_len;
    // A large payload to a peer that gets several streams goes in stripes.
    if (p.streams > 1 && total - sizeof(adi::Header) > stripe_unit_)
        return send_striped(peer, h, data, token, total - sizeof(adi::Header));
    // On a link wide-area emulation shapes, the stamp goes first.
    ShapedLink* const shaping = p.shaping;
    const std::uint64_t due = shaping != nullptr ? base::to_little(shaping->stamp(0, total)) : 0;
    if (shaping != nullptr) total += sizeof due;
    if (c.state == Link::connected && c.out.empty()) {
        adi::Header scratch;
        const adi::Header& wire = adi::wire_bytes(h, scratch);
        iovec iov[9];
        std::size_t n_iov = 0;
        if (shaping != nullptr) iov[n_iov++] = iovec{const_cast<std::uint64_t*>(&due), sizeof due};
        iov[n_iov++] = iovec{const_cast<adi::Header*>(&wire), sizeof wire};
        const std::size_t limit = n_iov + 7;
        for (const iovec& v : data) {
            if (n_iov == limit) break;
            iov[n_iov++] = v;
        }
        const ssize_t n = c.write(iov, n_iov);
        if (n == static_cast<ssize_t>(total)) return adi::SendStatus::done;
        if (n == TlsLink::kFailed) {
            link_failed(peer, "sending to rank " + std::to_string(peer) + " failed: " + c.tls->error(), nullptr);
            return adi::SendStatus::failed;
        }
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
            link_failed(peer, "sending to rank " + std::to_string(peer) + " failed: " + errno_text(errno), nullptr);
            return adi::SendStatus::failed;
        }
        // Whatever did not leave goes out from the queue.
        c.queue_rest(out_packet(h, data, token, stamp_of(shaping, due)), n > 0 ? static_cast<std::size_t>(n) : 0);
        return adi::SendStatus::queued;
    }

    c.out.push_back(out_packet(h, data, token, stamp_of(shaping, due)));
    if (c.state == Link::idle) start_connect(peer, c);
    if (c.state == Link::failed) return adi::SendStatus::failed;
    if (c.state == Link::connected) c.set_want_out(true);
    return adi::SendStatus::queued;
}

Connection& TcpMethod::lane_out(int peer) {
    Peer& p = peer_at(peer);
    if (p.sends.size() < kLaneStream) p.sends.resize(kLaneStream);
    std::unique_ptr<Connection>& lane = p.sends[kLaneStream - 1];
    if (!lane) lane = conn_make(peer, kKeyOut, kLaneStream);
    if (lane->state == Link::idle && p.c.state != Link::failed) start_connect(peer, *lane);
    return *lane;
}

adi::SendStatus TcpMethod::send_lane(int peer, const adi::Header& h, std::span<const iovec> data,
                                     std::uint64_t token) {
    Peer& p = peer_at(peer);
    Connection& c = lane_out(peer);
    if (p.c.state == Link::failed || c.state == Link::closed || c.state == Link::failed) return adi::SendStatus::failed;
    std::uint64_t total = sizeof(adi::Header);
    for (const iovec& v : data) total += v.iov_len;
    const std::uint64_t due = p.shaping != nullptr ? base::to_little(p.shaping->stamp(kLaneStream, total)) : 0;
    c.out.push_back(out_packet(h, data, token, stamp_of(p.shaping, due)));
    ++counters_.lane_sent;
    // Completions inside send() are reported at the next poll (sent_later_).
    if (c.state == Link::connected) flush(peer, c, nullptr);
    return p.c.state == Link::failed ? adi::SendStatus::failed : adi::SendStatus::queued;
}

void TcpMethod::record_queue(int peer, Connection& c, std::uint8_t type, std::uint64_t seq) {
    Peer& p = peer_at(peer);
    auto pkt = std::make_unique<OutPacket>();
    pkt->record.type = type;
    pkt->record.seq = seq;
    to_wire(pkt->record);
    if (p.shaping != nullptr)
        pkt->stamp(base::to_little(p.shaping->stamp(static_cast<int>(c.stream), sizeof pkt->record)));
    pkt->iov.push_back(iovec{&pkt->record, sizeof pkt->record});
    c.out.push_back(std::move(pkt));
    if (c.state == Link::idle) start_connect(peer, c);
    if (c.state == Link::connected) c.set_want_out(true);
}

void TcpMethod::premium_mark(int peer, int context, int delta) {
    Peer& p = peer_at(peer);
    auto it = std::find_if(p.premium.begin(), p.premium.end(), [&](const auto& e) { return e.first == context; });
    const bool was = it != p.premium.end();
    if (!was) it = p.premium.insert(p.premium.end(), {context, 0});
    it->second += delta;
    const bool is = it->second > 0;
    if (!is) p.premium.erase(it);
    if (was == is || p.c.state == Link::failed || p.c.state == Link::closed) return;
    // The context changes lanes: a fence on the one it leaves, a wait on the
    // one it joins, before its next packet (stripes.hpp).
    const std::uint64_t n = ++p.fence_seq;
    ++counters_.lane_moves;
    Connection& lane = lane_out(peer);
    record_queue(peer, is ? p.c : lane, kRecordFence, n);
    record_queue(peer, is ? lane : p.c, kRecordWait, n);
}

base::Result<std::uint64_t> TcpMethod::qos_reserve(std::span<const int> peers, std::span<const int> contexts,
                                                   std::uint64_t bytes_per_s) {
    QosHold hold;
    if (emulator_.active()) {
        base::Result<QosGrant> grant = emulator_.qos_reserve(peers, bytes_per_s);
        if (!grant) return std::move(grant).failure();
        hold.grant = std::move(*grant);
    }
    for (const int peer : peers) {
        if (!reaches(peer)) continue;
        hold.peers.push_back(peer);
        for (const int context : contexts) premium_mark(peer, context, 1);
    }
    hold.contexts.assign(contexts.begin(), contexts.end());
    const std::uint64_t handle = qos_next_++;
    qos_.emplace(handle, std::move(hold));
    return handle;
}

void TcpMethod::qos_release(std::uint64_t handle) {
    const auto it = qos_.find(handle);
    if (it == qos_.end()) return;
    const QosHold& hold = it->second;
    for (const int peer : hold.peers)
        for (const int context : hold.contexts) premium_mark(peer, context, -1);
    if (emulator_.active()) emulator_.qos_release(hold.grant);
    qos_.erase(it);
}

int TcpMethod::lane_tos(int peer) const {
    const Peer& p = peer_at(peer);
    if (p.sends.size() < kLaneStream || !p.sends[kLaneStream - 1] || p.sends[kLaneStream - 1]->fd < 0) return -1;
    int tos = 0;
    socklen_t len = sizeof tos;
    if (::getsockopt(p.sends[kLaneStream - 1]->fd, IPPROTO_IP, IP_TOS, &tos, &len) != 0) return -1;
    return tos;
}

bool TcpMethod::streams_open(int peer, int n) {
    Peer& p = peer_at(peer);
    if (p.sends.size() < static_cast<std::size_t>(n - 1)) p.sends.resize(static_cast<std::size_t>(n - 1));
    for (int k = 1; k < n; ++k) {
        std::unique_ptr<Connection>& s = p.sends[static_cast<std::size_t>(k - 1)];
        if (!s) s = conn_make(peer, kKeyOut, static_cast<std::uint32_t>(k));
        if (s->state == Link::closed) {
            std::string why = "rank " + std::to_string(peer);
            why += " closed stream ";
            why += std::to_string(k);
            why += " of its link";
            link_failed(peer, why, nullptr);
            return false;
        }
        if (s->state == Link::idle) start_connect(peer, *s);
        if (p.c.state == Link::failed) return false;
    }
    return true;
}

adi::SendStatus TcpMethod::send_striped(int peer, const adi::Header& h, std::span<const iovec> data,
                                        std::uint64_t token, std::uint64_t payload) {
    Peer& p = peer_at(peer);
    const int n = p.streams;
    if (!streams_open(peer, n)) return adi::SendStatus::failed;
    // This call holds one count of the group until it has tried to write, so
    // the group completes here (done) or later (on_sent), never both.
    auto group = std::make_shared<SendGroup>();
    group->left = 1;
    Connection* conns[wireup::kStreamsMax];
    conns[0] = &p.c;
    for (int k = 1; k < n; ++k) conns[k] = p.sends[static_cast<std::size_t>(k - 1)].get();
    const StripeRecord plan = stripe_plan(n, stripe_unit_, p.stripe_seq++, payload);
    counters_.stripes_sent += stripes_queue(std::span<Connection* const>(conns, static_cast<std::size_t>(n)), plan, h,
                                            data, group, p.shaping);
    if (p.c.state == Link::idle) start_connect(peer, p.c);
    if (p.c.state == Link::failed) return adi::SendStatus::failed;
    if (p.c.state == Link::connected) flush(peer, p.c, nullptr);
    for (int k = 1; k < n && p.c.state != Link::failed; ++k) {
        Connection& s = *conns[k];
        if (s.state == Link::connected) flush(peer, s, nullptr);
    }
    if (p.c.state == Link::failed) return adi::SendStatus::failed;
    if (--group->left == 0) return adi::SendStatus::done;
    group->token = token;
    return adi::SendStatus::queued;
}

bool TcpMethod::send_now(int peer, const adi::Header& h, const std::byte* data, std::size_t n) {
    Peer& p = peer_at(peer);
    Connection& c = p.c;
    if (c.state != Link::connected || !c.out.empty() || c.tls || p.shaping != nullptr ||
        (p.streams > 1 && n > stripe_unit_) || !p.premium.empty())
        return false;
    adi::Header scratch;
    const adi::Header& wire = adi::wire_bytes(h, scratch);
    iovec iov[2] = {iovec{const_cast<adi::Header*>(&wire), sizeof wire}, iovec{const_cast<std::byte*>(data), n}};
    const ssize_t w = c.write(iov, n == 0 ? 1 : 2);
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
    c.queue_rest(std::move(pkt), 0);
    return true;
}

void TcpMethod::flush(int peer, Connection& c, adi::Upcalls* up) {
    if (base::Status flushed = c.flush(up, sent_later_); !flushed)
        link_failed(peer, "sending to rank " + std::to_string(peer) + " failed: " + flushed.error(), up);
}

[[gnu::always_inline]] inline bool TcpMethod::read_retry(int peer, const Connection& c, ssize_t n,
                                                         adi::Upcalls& up) {
    const Connection::ReadEnd end = Connection::read_end(n);
    if (end == Connection::ReadEnd::failed)
        link_failed(peer, c.read_failure(peer_at(peer).remote, n), &up);
    return end == Connection::ReadEnd::retry;
}

template <int Lane>
[[gnu::always_inline]] inline void TcpMethod::parse_staged(int peer, Peer& p, adi::Upcalls& up) {
    Reader& reader = Lane == 0 ? p.reader : p.lane_reader;
    Connection& c = Lane == 0 ? p.c : *lane_in(p);
    for (;;) {
        const Reader::Parsed met = reader.parse(c, peer, up);
        switch (met) {
            case Reader::Parsed::done: return;
            case Reader::Parsed::plan:
                if (Lane == 0) {
                    p.stripes.begin();
                    return;
                }
                [[fallthrough]];  // the premium lane carries whole packets only
            case Reader::Parsed::bad_plan:
                link_failed(peer, "rank " + std::to_string(peer) + " sent a malformed stripe plan", &up);
                return;
            case Reader::Parsed::fence:
            case Reader::Parsed::wait:
                if (!mark_taken(p, Lane, met, reader.mark())) return;
                break;
        }
    }
}

bool TcpMethod::mark_taken(Peer& p, int lane, Reader::Parsed what, std::uint64_t n) {
    if (what == Reader::Parsed::wait) {
        if (p.fences.may_pass(lane, n)) return true;
        // What follows waits, staged and in the socket, for the other lane's fence.
        p.waiting[lane] = n;
        (lane == 0 ? p.c : *lane_in(p)).set_want_in(false);
        return false;
    }
    p.fences.passed[lane] = n;
    const int other = 1 - lane;
    if (p.waiting[other] != 0 && p.fences.may_pass(other, p.waiting[other])) {
        p.waiting[other] = 0;
        p.resumed = true;
        Connection* c = other == 0 ? &p.c : lane_in(p);
        if (c != nullptr) c->set_want_in(true);
    }
    return true;
}

void TcpMethod::lanes_resume(int peer, adi::Upcalls& up) {
    Peer& p = peer_at(peer);
    while (p.resumed && p.c.state == Link::connected) {
        p.resumed = false;
        if (p.waiting[0] == 0) {
            parse_staged<0>(peer, p, up);
            if (p.reader.striped()) stripes_go(peer, up);
        }
        Connection* lane = lane_in(p);
        if (p.waiting[1] == 0 && lane != nullptr && lane->state == Link::connected) parse_staged<1>(peer, p, up);
    }
}

bool TcpMethod::stripes_go(int peer, adi::Upcalls& up) {
    Peer& p = peer_at(peer);
    while (p.reader.striped()) {
        const base::Result<bool> complete = p.stripes.read(p.remote, p.reader, p.c, p.recvs, up);
        if (!complete) {
            link_failed(peer, complete.error(), &up);
            return false;
        }
        if (!*complete) {
            // Stream 0's bytes wait while another stream's come first.
            if (p.reader.striped() && p.stripes.stream_next(p.reader) != 0) p.c.set_want_in(false);
            return false;
        }
        parse_staged(peer, p, up);
    }
    return p.c.state == Link::connected;
}

void TcpMethod::read_stream(int peer, Connection& c, adi::Upcalls& up) {
    Peer& p = peer_at(peer);
    const bool ours = c.key == stream_key(kKeyOut, c.stream, peer);
    if (!ours && p.shaping == nullptr && c.stream == kLaneStream) {
        read_lane<1>(peer, c, up);
        return;
    }
    if (!ours && p.shaping == nullptr) {
        if (p.reader.striped() && p.stripes.stream_next(p.reader) == c.stream) {
            stripes_go(peer, up);
        } else {
            // Its bytes are not the next ones: they wait in the socket.
            c.set_want_in(false);
        }
        return;
    }
    // A stream the emulation holds the packets of reads all it gets; a
    // stream we send on only learns that the peer closed it.
    while (c.state == Link::connected) {
        iovec iov{c.rx.buf.data(), c.rx.buf.size()};
        const ssize_t n = c.read(&iov, 1);
        if (n > 0) {
            if (!ours) p.shaping->feed(static_cast<int>(c.stream), c.rx.buf.data(), static_cast<std::size_t>(n));
            if (!c.tls && static_cast<std::size_t>(n) < iov.iov_len) return;
            continue;
        }
        if (n < 0) {
            const Connection::ReadEnd end = Connection::read_end(n);
            if (end == Connection::ReadEnd::retry) continue;
            if (end == Connection::ReadEnd::empty) return;
        } else if (c.out.empty()) {
            c.close();
            c.state = Link::closed;
            return;
        }
        link_failed(peer, c.read_failure(p.remote, n), &up);
        return;
    }
}

void TcpMethod::peer_close(Peer& p) {
    p.c.close();
    p.c.state = Link::closed;
    for (auto* list : {&p.sends, &p.recvs})
        for (auto& s : *list)
            if (s != nullptr) {
                s->close();
                s->state = Link::closed;
            }
}

[[gnu::always_inline]] inline void TcpMethod::peer_closed(int peer, adi::Upcalls& up) {
    Peer& p = peer_at(peer);
    if (p.shaping != nullptr && p.shaping->holds()) [[unlikely]] {
        // What the peer sent before it closed is still on the emulated link.
        p.c.set_want_in(false);
        if (std::find(closing_.begin(), closing_.end(), peer) == closing_.end()) closing_.push_back(peer);
        return;
    }
    if (p.trust != 0) {
        // Another job's process: nobody ends this job when it goes (its
        // mpirun ends its own), so what awaits it must fail, not wait. A
        // disconnect closes the link at both ends (peers_close), and the end
        // that hears the other first forgets the failure then.
        std::string why = "process " + std::to_string(p.remote.rank);
        why += " of the other job closed its connection (it disconnected, or its job ended)";
        link_failed(peer, why, &up);
        return;
    }
    // Normal after MPI_Finalize, fatal for anything still owed.
    bool owed = !p.c.out.empty() || p.reader.in_payload() || p.lane_reader.in_payload();
    for (const auto& s : p.sends) owed = owed || (s != nullptr && !s->out.empty());
    if (owed) {
        link_failed(peer, p.c.read_failure(p.remote, 0), &up);
        return;
    }
    peer_close(p);
}

void TcpMethod::closing_check(adi::Upcalls& up) {
    for (std::size_t i = 0; i < closing_.size();) {
        const int peer = closing_[i];
        const ShapedLink* l = peer_at(peer).shaping;
        if (l != nullptr && l->holds()) {
            ++i;
            continue;
        }
        closing_.erase(closing_.begin() + static_cast<std::ptrdiff_t>(i));
        if (peer_at(peer).c.state == Link::connected) peer_closed(peer, up);
    }
}

template <int Lane>
void TcpMethod::read_lane(int peer, Connection& c, adi::Upcalls& up) {
    Peer& p = peer_at(peer);
    Reader& reader = Lane == 0 ? p.reader : p.lane_reader;
    if (Lane == 0 && p.reader.striped() && !stripes_go(peer, up)) return;
    // A lane stopped at a wait reads nothing until the other lane's fence.
    while (c.state == Link::connected && p.waiting[Lane] == 0) {
        iovec iov[2];
        int n_iov = 0;
        const std::size_t direct = reader.read_iov(c.rx, iov, n_iov);
        const std::size_t asked = direct + iov[n_iov - 1].iov_len;
        const ssize_t n = c.read(iov, n_iov);
        if (n < 0) {
            if (read_retry(peer, c, n, up)) continue;
            return;
        }
        if (n == 0) {
            if (Lane == 0 || reader.in_payload()) {
                peer_closed(peer, up);
            } else {
                c.close();  // the peer finished; stream 0 tells the rest
                c.state = Link::closed;
            }
            return;
        }
        std::size_t got = static_cast<std::size_t>(n);
        if (direct > 0) {
            const std::size_t into = std::min(got, direct);
            got -= into;
            reader.direct_landed(peer, into, up);
        }
        c.rx.end += got;
        if (Lane == 0 && p.shaping != nullptr) {
            // Whole packets are held until their stamp (emulator.hpp).
            p.shaping->feed(0, c.rx.buf.data() + c.rx.begin, c.rx.end - c.rx.begin);
            c.rx.begin = c.rx.end = 0;
        } else {
            parse_staged<Lane>(peer, p, up);
            if (p.resumed) [[unlikely]] lanes_resume(peer, up);
            if (Lane == 0 && p.reader.striped() && !stripes_go(peer, up)) return;
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
    Peer& p = peer_at(peer);
    if (p.c.state == Link::failed) return;
    p.c.state = Link::failed;
    p.error = why;
    p.c.close();
    p.c.out.clear();
    for (auto* list : {&p.sends, &p.recvs}) {
        for (auto& s : *list) {
            if (s == nullptr) continue;
            s->close();
            s->out.clear();
            s->state = Link::failed;
        }
    }
    p.reader.stripes_drop();
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
        incoming_add(fd, ipv4_text(ntohl(from.sin_addr.s_addr)) + ":" + std::to_string(ntohs(from.sin_port)));
    }
}

void TcpMethod::incoming_watch(const Incoming& in) {
    epoll_event ev{};
    ev.events = EPOLLIN | (in.dialer && in.dialer->wants_write() ? static_cast<std::uint32_t>(EPOLLOUT) : 0u);
    ev.data.u64 = kKeyIncoming | static_cast<std::uint32_t>(in.fd);
    epoll_ctl(epfd_, EPOLL_CTL_MOD, in.fd, &ev);
}

void TcpMethod::incoming_add(int fd, std::string from) {
    incoming_expire();
    Incoming in;
    in.fd = fd;
    in.since = std::chrono::steady_clock::now();
    in.from = std::move(from);
    incoming_.emplace(fd, std::move(in));
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = kKeyIncoming | static_cast<std::uint32_t>(fd);
    epoll_ctl(epfd_, EPOLL_CTL_ADD, fd, &ev);
}

[[gnu::always_inline]] inline void TcpMethod::handshake_event(int peer, Connection& c, std::uint32_t events,
                                                              adi::Upcalls& up) {
    switch (c.state) {
        case Link::connecting:
            if ((events & (EPOLLOUT | EPOLLERR | EPOLLHUP)) != 0) on_connected(peer, c);
            break;
        case Link::hello_sent:
        case Link::response_sent: on_reply(peer, c, up); break;
        case Link::tls_handshake: tls_step(peer, c, up); break;
        case Link::relay_handshake: relay_step(peer, c); break;
        default: break;
    }
}

[[gnu::always_inline]] inline void TcpMethod::peer_event(int peer, std::uint32_t events, adi::Upcalls& up) {
    Connection& c = peer_at(peer).c;
    if (c.state != Link::connected) {
        handshake_event(peer, c, events, up);
        return;
    }
    if ((events & (EPOLLIN | EPOLLERR | EPOLLHUP)) != 0) read_peer(peer, up);
    if ((events & EPOLLOUT) != 0 && c.state == Link::connected) flush(peer, c, &up);
}

[[gnu::always_inline]] inline bool TcpMethod::stream_event(std::uint64_t key, std::uint32_t events, adi::Upcalls& up) {
    const int peer = static_cast<int>(key & kPeerBits);
    Connection* c = conn_of(peer, key);
    if (c == nullptr) return false;
    if (c->state != Link::connected) {
        handshake_event(peer, *c, events, up);
        return true;
    }
    if ((events & (EPOLLERR | EPOLLHUP)) != 0 && (key & kKindBits) == kKeyIn && !c->want_in) {
        // A muted stream broke: it would be reported at every poll.
        c->close();
        c->state = Link::closed;
        return true;
    }
    if ((events & (EPOLLIN | EPOLLERR | EPOLLHUP)) != 0) read_stream(peer, *c, up);
    if ((events & EPOLLOUT) != 0 && c->state == Link::connected) flush(peer, *c, &up);
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
        } else if (kind == kKeyRelay) {
            relay_notices();
        } else if (kind == kKeyTimer) {
            emulator_.timer_clear();
        } else if (kind == kKeyPeer) {
            peer_event(index, evs[i].events, up);
        } else if (kind == kKeyOut || kind == kKeyIn) {
            if (!stream_event(key, evs[i].events, up)) continue;
        }
        ++events;
    }
    // Held packets exist only where emulation shapes a link.
    if (emulator_.active()) events += emulator_.deliver(up);
    if (!closing_.empty()) [[unlikely]] closing_check(up);
    events += adi::failures_report(up, failures_);
    return events;
}

TcpMethod::Counters TcpMethod::counters() const {
    Counters all = counters_;
    const auto add = [&](const Connection& c) {
        all.reads += c.reads;
        all.writes += c.writes;
    };
    for (const auto& p : peers_) {
        add(p->c);
        for (const auto* list : {&p->sends, &p->recvs})
            for (const auto& s : *list)
                if (s != nullptr) add(*s);
        all.stripes_received += p->stripes.received();
    }
    return all;
}

bool TcpMethod::has_queued_sends() const {
    for (const auto& p : peers_) {
        if (p->c.state == Link::failed) continue;
        if (!p->c.out.empty()) return true;
        for (const auto& s : p->sends)
            if (s != nullptr && !s->out.empty()) return true;
    }
    return false;
}

void TcpMethod::shutdown() {
    for (auto& p : peers_) peer_close(*p);
    for (auto& [fd, in] : incoming_) {
        if (in.dialer) in.dialer->take();  // closed once, here
        ::close(fd);
    }
    incoming_.clear();
    if (attach_fd_ >= 0) ::close(attach_fd_);
    attach_fd_ = -1;
    if (listen_fd_ >= 0) ::close(listen_fd_);
    listen_fd_ = -1;
    if (epfd_ >= 0) ::close(epfd_);
    epfd_ = -1;
}

std::unique_ptr<adi::Method> create(const adi::MethodContext& ctx) { return std::make_unique<TcpMethod>(ctx); }

}  // namespace strata::dev::tcp
