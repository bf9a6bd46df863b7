#include "adi/engine.hpp"

#include <poll.h>
#include <sched.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <functional>

#include "base/knob.hpp"

namespace strata::adi {

namespace {

const base::KnobInt spin_us{"STRATA_SPIN_US", -1,
                            "microseconds a waiting rank polls before it sleeps on its descriptors; "
                            "-1: 200 when its host runs no more ranks than cores, else 50 (yielding its core "
                            "between polls)"};

const base::KnobInt pack_chunk{"STRATA_PACK_CHUNK", 262144,
                               "bytes of non-contiguous data packed (or unpacked) at a time; a large message "
                               "of a derived datatype moves in a few chunks of this size, never packed whole",
                               true};

const base::KnobInt skip_poll{"STRATA_SKIP_POLL", 8,
                              "passes of the progress engine per poll of an expensive method (TCP) while a cheap one "
                              "(shared memory) is also awaited; 1 polls every method on every pass"};

const base::KnobInt poll_stats{"STRATA_POLL_STATS", 0,
                               "1: every rank prints how often it polled each method when it calls MPI_Finalize"};

// Spinning this long without an event, a waiting rank starts yielding its core.
constexpr std::chrono::microseconds kYieldAfter{5};
// How long a rank with a core of its own polls while a peer copies its data
// (Method::transfer_underway): 4 MB take about 400 us here, and a sleeping
// sender would add its wake-up to every large message.
constexpr std::chrono::microseconds kTransferSpin{20000};

// Methods costing this much per poll are polled less often while cheap ones are awaited.
constexpr int kSlowPoll = 10;

constexpr std::uint32_t kLandRequest = 1;
constexpr std::uint32_t kLandUnexpected = 2;

// Chunks of one pipelined send handed to the method at a time: two let one be
// packed while the other drains into the socket.
constexpr int kWindow = 2;

std::size_t chunk_size() { return static_cast<std::size_t>(std::max<std::int64_t>(pack_chunk.get(), 4096)); }

}  // namespace

Engine::Engine(std::vector<std::unique_ptr<Method>> methods) : methods_(std::move(methods)) {
    const std::size_t n = methods_.size();
    need_.assign(n, 0);
    slow_.assign(n, false);
    polls_.assign(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
        eager_limit_.push_back(methods_[i]->caps().eager_limit);
        slow_[i] = methods_[i]->caps().poll_cost >= kSlowPoll;
        if (!slow_[i]) fast_mask_ |= 1u << i;
        if (slow_[i]) slow_mask_ |= 1u << i;
        reaching_mask_ |= 1u << i;
    }
    skip_poll_ = static_cast<std::uint64_t>(std::max<std::int64_t>(skip_poll.get(), 1));
    set_oversubscribed(false);
}

Engine::~Engine() = default;

base::Status Engine::publish(wireup::BusinessCard& card) {
    for (auto& m : methods_) {
        if (base::Status published = m->publish(card); !published) return published;
    }
    return {};
}

base::Status Engine::connect_world(const World& world) {
    for (auto& m : methods_) {
        if (base::Status connected = m->connect_world(world); !connected) return connected;
    }
    const auto& cards = world.cards;
    if (world.rank >= 0 && static_cast<std::size_t>(world.rank) < cards.size())
        my_site_ = cards[static_cast<std::size_t>(world.rank)].site;
    peer_level_.assign(cards.size(), 0);
    by_method_.assign(methods_.size(), Traffic{});
    for (std::size_t peer = 0; peer < cards.size() && static_cast<int>(peer) < world.topology.size(); ++peer) {
        peer_level_[peer] = static_cast<std::uint8_t>(world.topology.link_level(world.rank, static_cast<int>(peer)));
    }
    for (int l = 0; l < wireup::kLevels; ++l) {
        level_kinds_[static_cast<std::size_t>(l)] = world.rank < world.topology.size() ? world.topology.kind(world.rank, l) : l;
    }
    route_.assign(cards.size(), -1);
    for (std::size_t peer = 0; peer < cards.size(); ++peer) {
        for (std::size_t i = 0; i < methods_.size(); ++i) {
            if (methods_[i]->reaches(static_cast<int>(peer))) {
                route_[peer] = static_cast<int>(i);
                break;
            }
        }
        if (route_[peer] < 0) {
            return base::Error{"no communication method reaches rank " + std::to_string(peer) + " (host " +
                               cards[peer].hostname + "); check STRATA_EXCLUDE_METHODS (mpirun -exclude)"};
        }
    }
    peer_relayed_.assign(cards.size(), 0);
    for (std::size_t peer = 0; peer < cards.size(); ++peer)
        peer_relayed_[peer] = methods_[static_cast<std::size_t>(route_[peer])]->relays(static_cast<int>(peer)) ? 1 : 0;
    // Skip-poll weighs only the fast methods that carry other processes'
    // traffic: self is as cheap to poll as shared memory but carries only our
    // own messages, so with every peer over TCP a receive from MPI_ANY_SOURCE
    // must not poll TCP only every skip_poll_-th pass.
    std::uint32_t carrying = 0;
    for (std::size_t peer = 0; peer < route_.size(); ++peer) {
        if (static_cast<int>(peer) != world.rank) carrying |= 1u << route_[peer];
    }
    fast_mask_ &= carrying;
    // A method that reaches nobody (TCP in a job on one host) has nothing to
    // deliver: not even a receive from MPI_ANY_SOURCE polls it.
    reaching_mask_ = carrying;
    if (world.rank >= 0 && static_cast<std::size_t>(world.rank) < route_.size())
        reaching_mask_ |= 1u << route_[static_cast<std::size_t>(world.rank)];
    return {};
}

base::Status Engine::peers_add(const PeerSet& set) {
    std::vector<int> takers;
    PeerSet offered = set;
    offered.taken.assign(set.cards.size(), 0);
    for (std::size_t i = 0; i < methods_.size(); ++i) {
        if (!methods_[i]->peers_add(offered)) continue;
        takers.push_back(static_cast<int>(i));
        for (std::size_t k = 0; k < set.cards.size(); ++k)
            if (methods_[i]->reaches(set.first + static_cast<int>(k))) offered.taken[k] = 1;
    }
    std::vector<int> routes(set.cards.size(), -1);
    for (std::size_t k = 0; k < set.cards.size(); ++k) {
        const int peer = set.first + static_cast<int>(k);
        for (const int i : takers) {
            if (methods_[static_cast<std::size_t>(i)]->reaches(peer)) {
                routes[k] = i;
                break;
            }
        }
        if (routes[k] < 0) {
            peers_close(set.first, static_cast<int>(set.cards.size()));
            return base::Error{"no communication method reaches process " + std::to_string(set.first_rank + k) +
                               " of the other job (host " + set.cards[k].hostname +
                               "); it needs a TCP address this process can use"};
        }
    }
    // A process of another job counts as across the wide area, or the local
    // area when its site has this process's site's label.
    for (std::size_t k = 0; k < routes.size(); ++k) {
        const auto m = static_cast<std::size_t>(routes[k]);
        const int peer = set.first + static_cast<int>(k);
        route_.push_back(routes[k]);
        peer_level_.push_back(!my_site_.empty() && set.cards[k].site == my_site_ ? wireup::kLan : wireup::kWan);
        peer_relayed_.push_back(methods_[m]->relays(peer) ? 1 : 0);
        reaching_mask_ |= 1u << m;
        if (!slow_[m]) fast_mask_ |= 1u << m;
    }
    return {};
}

void Engine::peers_close(int first, int count) {
    for (auto& m : methods_) m->peers_close(first, count);
    // Their links closed as agreed (a side that saw the other close first
    // took it for a failure): no longer failed, nothing to refuse.
    for (int p = first; p < first + count; ++p) failed_peers_.erase(p);
}

void Engine::slots_grow() {
    free_slots_.push_back(static_cast<std::uint32_t>(slots_.size()));
    slots_.push_back(std::make_unique<Request>());
    generations_.push_back(0);
}

void Engine::state_make(Request& r) {
    if (r.kind == Kind::send) {
        r.state.emplace<SendState>();
    } else {
        r.state.emplace<RecvState>();
    }
}

void Engine::request_release(Request& r) {
    // Field by field rather than `r = Request{}`: building and move-assigning
    // a whole Request (variant, function, shared_ptr) costs more than the
    // rest of a small message's receive. What request_create and the
    // callers set anyway is left alone.
    if (r.on_complete) r.on_complete = nullptr;
    if (r.segment) r.segment.reset();
    if (r.stage.data() != nullptr) r.stage = {};
}

Request* Engine::lookup(std::uint64_t id) const {
    const auto slot = static_cast<std::uint32_t>(id);
    if (id == 0 || slot >= slots_.size()) return nullptr;
    Request* r = slots_[slot].get();
    return r->id == id ? r : nullptr;
}

void Engine::need_add_each(std::uint32_t need) {
    for (; need != 0; need &= need - 1) {
        const auto i = static_cast<std::size_t>(std::countr_zero(need));
        if (need_[i]++ == 0) need_mask_ |= 1u << i;
    }
}

void Engine::need_drop_each(std::uint32_t need) {
    for (; need != 0; need &= need - 1) {
        const auto i = static_cast<std::size_t>(std::countr_zero(need));
        if (--need_[i] == 0) need_mask_ &= ~(1u << i);
    }
}

Engine::Interest::Interest(Engine& e, int world_source, std::uint32_t from_methods)
    : engine_(e), need_(e.need_of(world_source, from_methods)) {
    engine_.need_add(need_);
}

Engine::Interest::~Interest() { engine_.need_drop(need_); }

void Engine::completed_owned(Request& r) {
    if (r.on_complete) r.on_complete();
    if (r.released) request_destroy(&r);
}

void Engine::fail(Request& r, Error e) {
    r.status.error = e;
    r.pending = 1;
    complete_one(r);
}

void Engine::send_start(Request& r, int world_peer, SendMode mode) {
    const auto route = static_cast<std::size_t>(route_[static_cast<std::size_t>(world_peer)]);
    SendState& s = r.send();
    s = SendState{.mode = mode, .world_peer = world_peer, .method = methods_[route].get()};
    r.stage.clear();
    r.status = Status{};
    if (!failed_peers_.empty() && failed_peers_.count(world_peer) != 0) [[unlikely]] {
        send_refused(r);
        return;
    }
    traffic_count(world_peer, r.bytes);
    Header h{};
    h.context = r.context;
    h.source = r.rank;
    h.tag = r.tag;
    h.length = r.bytes;
    h.sender_req = r.id;
    h.flags = r.flags;
    // Non-contiguous data goes eagerly only when packing it whole stays within one chunk.
    if (r.bytes > eager_limit_[route] || (r.segment && r.bytes > chunk_size())) {
        send_rts(r, h, 1u << route);
        return;
    }
    // Eager: the whole message with its envelope.
    const bool sync = mode == SendMode::synchronous;
    h.type = sync ? Packet::eager_sync : Packet::eager;
    r.pending = sync ? 2 : 1;
    s.awaiting_sync = sync;
    s.data_in_flight = true;
    const iovec iov{r.segment ? send_pack(r) : r.buf, r.bytes};
    const SendStatus st = s.method->send(world_peer, h, std::span<const iovec>(&iov, r.bytes > 0 ? 1 : 0), r.id);
    if (st == SendStatus::done) [[likely]] {
        s.data_in_flight = false;
        // Gone at once (self, or room in a ring) and nothing to wait for:
        // complete without ever counting the method as needed.
        if (--r.pending == 0) {
            completed(r);
            return;
        }
    } else if (st == SendStatus::failed) {
        fail(r, Error::peer_failed);
        return;
    }
    need_set(r, 1u << route);  // on_sent or the sync_ack is still to come
}

void Engine::send_refused(Request& r) {
    last_error_ = failed_peers_[r.send().world_peer];
    fail(r, Error::peer_failed);
}

std::byte* Engine::send_pack(Request& r) {
    std::vector<std::byte>& stage = r.stage;
    stage.resize(r.bytes);
    r.segment->pack(0, r.bytes, stage.data());
    return stage.data();
}

void Engine::send_rts(Request& r, Header& h, std::uint32_t need) {
    SendState& s = r.send();
    h.type = Packet::rts;
    s.rendezvous = true;
    s.awaiting_cts = true;
    r.pending = 1;
    if (s.method->send(s.world_peer, h, {}, 0) == SendStatus::failed) {
        fail(r, Error::peer_failed);
        return;
    }
    need_set(r, need);
}

void Engine::on_cts(int peer, const Header& h) {
    Request* r = lookup(h.sender_req);
    if (r == nullptr || r->kind != Kind::send || !r->send().awaiting_cts) return;
    SendState& s = r->send();
    s.awaiting_cts = false;
    if (r->segment) {
        s.pipelined = true;
        s.receiver_req = h.receiver_req;
        pumping_.push_back(r->id);
        pump(*r);
        return;
    }
    s.data_in_flight = true;
    Header d = h;
    d.type = Packet::rndv_data;
    d.length = r->bytes;
    iovec iov{r->buf, r->bytes};
    SendStatus st = s.method->send(peer, d, std::span<const iovec>(&iov, 1), r->id);
    if (st == SendStatus::failed) {
        fail(*r, Error::peer_failed);
    } else if (st == SendStatus::done) {
        s.data_in_flight = false;
        complete_one(*r);
    }
}

int Engine::pump(Request& r) {
    SendState& s = r.send();
    if (!s.pipelined || r.complete()) return 0;
    const std::size_t chunk = chunk_size();
    if (r.stage.empty()) r.stage.resize(std::min(r.bytes, chunk * kWindow));
    int sent = 0;
    // At most a window per call, even when the method copies at once (self):
    // the next chunks wait for the next progress pass, after the receiver ran.
    while (s.chunks_in_flight < kWindow && s.next < r.bytes && sent < kWindow) {
        const std::size_t n = std::min(chunk, r.bytes - s.next);
        std::byte* slot = r.stage.data() + (s.next / chunk) % kWindow * chunk;
        r.segment->pack(s.next, n, slot);
        Header d{};
        d.type = Packet::rndv_data;
        d.context = r.context;
        d.source = r.rank;
        d.tag = r.tag;
        d.length = n;
        d.sender_req = r.id;
        d.receiver_req = s.receiver_req;
        s.next += n;
        ++s.chunks_in_flight;
        ++sent;
        iovec iov{slot, n};
        SendStatus st = s.method->send(s.world_peer, d, std::span<const iovec>(&iov, 1), r.id);
        if (st == SendStatus::failed) {
            fail(r, Error::peer_failed);
            return sent;
        }
        if (st == SendStatus::done) --s.chunks_in_flight;
    }
    pump_finish(r);
    return sent;
}

void Engine::pump_finish(Request& r) {
    SendState& s = r.send();
    if (s.next < r.bytes || s.chunks_in_flight > 0) return;
    s.pipelined = false;
    r.stage = {};
    complete_one(r);  // may destroy r
}

int Engine::pump_all() {
    int events = 0;
    std::vector<std::uint64_t> ids;
    ids.swap(pumping_);
    for (std::uint64_t id : ids) {
        Request* r = lookup(id);
        if (r == nullptr || r->kind != Kind::send || !r->send().pipelined || r->complete()) continue;
        events += pump(*r);
        r = lookup(id);
        if (r != nullptr && r->send().pipelined && !r->complete()) pumping_.push_back(id);
    }
    return events;
}

void Engine::on_sent(std::uint64_t token) {
    Request* r = lookup(token);
    if (r == nullptr || r->kind != Kind::send) return;
    if (r->send().pipelined) {
        if (r->send().chunks_in_flight > 0) --r->send().chunks_in_flight;
        pump_finish(*r);
        return;
    }
    if (!r->send().data_in_flight) return;
    r->send().data_in_flight = false;
    complete_one(*r);
}

void Engine::send_control(int peer, Packet type, const Header& about, std::uint64_t receiver_req,
                          std::uint8_t flags) {
    Header c = about;
    c.type = type;
    c.flags = flags;
    c.receiver_req = receiver_req;
    if (method_for(peer)->send(peer, c, {}, 0) == SendStatus::queued) sent_queued(peer);
}

void Engine::sent_queued(int peer) { owed_mask_ |= 1u << route_[static_cast<std::size_t>(peer)]; }

void Engine::recv_start(Request& r, int world_source, std::uint32_t from_methods) {
    RecvState& rs = r.recv();
    rs = RecvState{.posted = true, .source = world_source};  // posted below, unless a message waits
    r.stage.clear();
    r.status = Status{};
    r.pending = 1;
    need_set(r, need_of(world_source, from_methods));
    if (unexpected_.size() != 0 && recv_arrived(r)) return;
    // What a failed peer sent before it failed was taken above; nothing more comes.
    if (!failed_peers_.empty() && failed_peers_.count(world_source) != 0) [[unlikely]] {
        rs.posted = false;
        last_error_ = failed_peers_[world_source];
        fail(r, Error::peer_failed);
        return;
    }
    posted_.push(&r);
}

bool Engine::recv_arrived(Request& r) {
    Unexpected* u = unexpected_.find(r.context, r.rank, r.tag);
    if (u == nullptr) return false;
    r.recv().posted = false;
    unexpected_.remove(u);
    bind(r, u);
    return true;
}

void Engine::bind(Request& r, Unexpected* u) {
    RecvState& rs = r.recv();
    rs.matched = true;
    rs.matched_peer = u->peer;
    rs.msg_length = u->header.length;
    rs.flags = u->header.flags;
    r.status.source = u->header.source;
    r.status.tag = u->header.tag;
    switch (u->header.type) {
        case Packet::rts:
            send_control(u->peer, Packet::cts, u->header, r.id);
            delete u;
            return;
        case Packet::eager_sync:
            send_control(u->peer, Packet::sync_ack, u->header, 0);
            [[fallthrough]];
        default:
            if (u->complete) {
                deliver(r, *u);
                delete u;
                complete_one(r);
            } else {
                u->waiter = &r;
                rs.unexpected = u;
            }
            return;
    }
}

void Engine::deliver(Request& r, const Unexpected& u) {
    std::size_t n = std::min<std::size_t>(u.header.length, r.bytes);
    if (n > 0 && r.segment) {
        r.segment->unpack(0, n, u.data.data());
    } else if (n > 0) {
        std::memcpy(r.buf, u.data.data(), n);
    }
    r.status.bytes = n;
    if (u.header.length > r.bytes) r.status.error = Error::truncated;
}

bool Engine::iprobe(int context, int source, int tag, Status& status) {
    Unexpected* u = unexpected_.find(context, source, tag);
    if (u == nullptr) return false;
    status = Status{};
    status.source = u->header.source;
    status.tag = u->header.tag;
    status.bytes = u->header.length;
    status.probed_peer = u->peer;
    return true;
}

void Engine::cancel(Request& r) {
    if (r.kind == Kind::recv) {
        RecvState& rs = r.recv();
        if (rs.posted && posted_.remove(&r)) {
            rs.posted = false;
            r.status.cancelled = true;
            complete_one(r);
        }
        return;
    }
    SendState& s = r.send();
    if (s.cancel_asked || s.method == nullptr || failed_peers_.count(s.world_peer) != 0) return;
    s.cancel_asked = true;
    if (++r.pending == 1) need_set(r, need_of(s.world_peer));  // it had completed
    Header h{};
    h.context = r.context;
    h.source = r.rank;
    h.tag = r.tag;
    h.length = r.bytes;
    h.sender_req = r.id;
    send_control(s.world_peer, Packet::cancel_req, h, 0);
}

void Engine::on_cancel_req(int peer, const Header& h) {
    Unexpected* u = unexpected_.find_sent(peer, h.sender_req);
    // Only a message that fully arrived and nobody waits for can be withdrawn.
    bool withdrawn = u != nullptr && u->complete && u->waiter == nullptr;
    if (withdrawn) {
        unexpected_.remove(u);
        delete u;
    }
    send_control(peer, Packet::cancel_ack, h, 0, withdrawn ? 1 : 0);
}

void Engine::on_cancel_ack(const Header& h) {
    Request* r = lookup(h.sender_req);
    if (r == nullptr || r->kind != Kind::send || !r->send().cancel_asked) return;
    SendState& s = r->send();
    s.cancel_asked = false;
    if ((h.flags & 1) != 0) {
        r->status.cancelled = true;
        // The receiver forgot the message: no CTS or sync_ack will ever come.
        if (s.awaiting_cts) {
            s.awaiting_cts = false;
            --r->pending;
        }
        if (s.awaiting_sync) {
            s.awaiting_sync = false;
            --r->pending;
        }
    }
    complete_one(*r);
}

Landing Engine::on_header(int peer, const Header& h) {
    switch (h.type) {
        case Packet::eager:
        case Packet::eager_sync: {
            if (Request* r = posted_.take(h.context, h.source, h.tag)) {
                eager_matched(peer, h, *r);
                return landing_for(*r);
            }
            return eager_unexpected(peer, h);
        }
        case Packet::rts: {
            if (Request* r = posted_.take(h.context, h.source, h.tag)) {
                RecvState& rs = r->recv();
                rs.posted = false;
                rs.matched = true;
                rs.matched_peer = peer;
                rs.msg_length = h.length;
                rs.flags = h.flags;
                r->status.source = h.source;
                r->status.tag = h.tag;
                send_control(peer, Packet::cts, h, r->id);
                return {};
            }
            auto* u = new Unexpected;
            u->header = h;
            u->peer = peer;
            u->complete = true;
            unexpected_.push(u);
            return {};
        }
        case Packet::rndv_data: {
            Request* r = lookup(h.receiver_req);
            if (r == nullptr || r->kind != Kind::recv || !r->recv().matched || r->recv().matched_peer != peer) {
                return {};  // not ours: the method discards the payload
            }
            return landing_for(*r);
        }
        case Packet::cts:
            on_cts(peer, h);
            return {};
        case Packet::sync_ack: {
            Request* r = lookup(h.sender_req);
            if (r != nullptr && r->kind == Kind::send && r->send().awaiting_sync) {
                r->send().awaiting_sync = false;
                complete_one(*r);
            }
            return {};
        }
        case Packet::cancel_req:
            on_cancel_req(peer, h);
            return {};
        case Packet::cancel_ack:
            on_cancel_ack(h);
            return {};
    }
    return {};
}

inline void Engine::eager_matched(int peer, const Header& h, Request& r) {
    RecvState& rs = r.recv();
    rs.posted = false;
    rs.matched = true;
    rs.matched_peer = peer;
    rs.msg_length = h.length;
    rs.flags = h.flags;
    r.status.source = h.source;
    r.status.tag = h.tag;
    if (h.type == Packet::eager_sync) send_control(peer, Packet::sync_ack, h, 0);
}

Landing Engine::eager_unexpected(int peer, const Header& h) {
    auto* u = new Unexpected;
    u->header = h;
    u->peer = peer;
    u->data.resize(h.length);
    unexpected_.push(u);
    return Landing{u->data.data(), u->data.size(), u, kLandUnexpected};
}

void Engine::on_packet(int peer, const Header& h, const std::byte* payload) {
    if (h.type != Packet::eager && h.type != Packet::eager_sync) {
        Upcalls::on_packet(peer, h, payload);
        return;
    }
    Request* r = posted_.take(h.context, h.source, h.tag);
    if (r == nullptr || r->segment) [[unlikely]] {
        packet_land(peer, h, payload, r);
        return;
    }
    // The common case, in one step: into the user's buffer, complete.
    eager_matched(peer, h, *r);
    const std::size_t n = std::min<std::uint64_t>(h.length, r->bytes);
    if (n > 0) std::memcpy(r->buf, payload, n);
    r->recv().landed = h.length;
    r->status.bytes = n;
    if (h.length > r->bytes) r->status.error = Error::truncated;
    complete_one(*r);
}

void Engine::packet_land(int peer, const Header& h, const std::byte* payload, Request* r) {
    if (r != nullptr) eager_matched(peer, h, *r);
    Landing land = r != nullptr ? landing_for(*r) : eager_unexpected(peer, h);
    std::size_t landed = 0;
    land = land_copy(*this, peer, h, land, landed, payload, h.length);
    on_payload(peer, h, land);
}

Landing Engine::landing_for(Request& r) {
    RecvState& rs = r.recv();
    if (rs.landed >= r.bytes) return Landing{nullptr, 0, &r, kLandRequest};  // truncated: discard, then complete
    if (!r.segment) return Landing{r.buf + rs.landed, r.bytes - rs.landed, &r, kLandRequest};
    if (r.stage.empty()) r.stage.resize(std::min(r.bytes, chunk_size()));
    rs.land_base = rs.landed;
    return Landing{r.stage.data(), std::min<std::size_t>(r.stage.size(), r.bytes - rs.land_base), &r, kLandRequest};
}

Landing Engine::on_landing_full(int /*peer*/, const Header& /*h*/, const Landing& landing) {
    if (landing.kind != kLandRequest) return Landing{nullptr, 0, landing.cookie, landing.kind};
    auto* r = static_cast<Request*>(landing.cookie);
    RecvState& rs = r->recv();
    if (!r->segment) return Landing{nullptr, 0, r, kLandRequest};  // the user's buffer is full: truncation
    r->segment->unpack(rs.land_base, landing.capacity, r->stage.data());
    rs.land_base += landing.capacity;
    if (rs.land_base >= r->bytes) return Landing{nullptr, 0, r, kLandRequest};
    return Landing{r->stage.data(), std::min<std::size_t>(r->stage.size(), r->bytes - rs.land_base), r, kLandRequest};
}

void Engine::on_payload(int /*peer*/, const Header& h, const Landing& landing) {
    if (landing.kind == kLandRequest) {
        auto* r = static_cast<Request*>(landing.cookie);
        RecvState& rs = r->recv();
        const std::uint64_t end = rs.landed + h.length;
        if (r->segment) {
            const std::uint64_t kept = std::min<std::uint64_t>(end, r->bytes);
            if (kept > rs.land_base) r->segment->unpack(rs.land_base, kept - rs.land_base, r->stage.data());
            rs.land_base = std::max(rs.land_base, kept);
        }
        rs.landed = end;
        if (rs.landed < rs.msg_length) return;  // more rendezvous chunks follow
        r->stage = {};
        r->status.bytes = std::min<std::uint64_t>(rs.msg_length, r->bytes);
        if (rs.msg_length > r->bytes) r->status.error = Error::truncated;
        complete_one(*r);
    } else if (landing.kind == kLandUnexpected) {
        auto* u = static_cast<Unexpected*>(landing.cookie);
        u->complete = true;
        if (Request* r = u->waiter) {
            r->recv().unexpected = nullptr;
            deliver(*r, *u);
            delete u;
            complete_one(*r);
        }
    }
}

void Engine::on_peer_failed(int peer, const std::string& why) {
    failed_peers_[peer] = why;
    last_error_ = why;
    std::vector<Request*> victims;
    for (auto& slot : slots_) {
        Request* r = slot.get();
        if (r->id == 0) continue;
        if (r->pending > 0 && r->kind == Kind::send && r->send().world_peer == peer) victims.push_back(r);
        if (r->pending > 0 && r->kind == Kind::recv && r->recv().matched && r->recv().matched_peer == peer)
            victims.push_back(r);
        // A receive posted for that peer alone waits for nothing any more.
        if (r->pending > 0 && r->kind == Kind::recv && r->recv().posted && r->recv().source == peer)
            victims.push_back(r);
    }
    for (Request* r : victims) {
        if (r->kind == Kind::recv && r->recv().posted) r->recv().posted = !posted_.remove(r);
        fail(*r, Error::peer_failed);
    }
}

int Engine::progress() {
    std::uint32_t set = poll_set();
    // A cheap method is awaited too: the expensive ones get every skip_poll_-th pass.
    if ((set & fast_mask_) != 0 && (set & slow_mask_) != 0 && ++pass_ % skip_poll_ != 0) set &= ~slow_mask_;
    int events = 0;
    for (std::size_t i = 0; set != 0; ++i, set >>= 1) {
        if ((set & 1) == 0) continue;
        ++polls_[i];
        events += methods_[i]->poll(*this);
        if ((owed_mask_ & (1u << i)) != 0 && !methods_[i]->has_queued_sends()) owed_mask_ &= ~(1u << i);
    }
    if (!pumping_.empty()) events += pump_all();
    return events;
}

void Engine::wait_one(Request& r, int world_peer) {
    unsigned idle = 0;
    while (!r.complete()) {
        // Every outstanding request awaits the same method (and nothing is
        // owed or pumped): poll it directly, and when this request is the only
        // one, only its peer. Otherwise (or every 16th idle pass, so the
        // rings of other peers keep moving) a full pass.
        int events = 0;
        if (one_method(r.need) && need_mask_ == r.need && owed_mask_ == 0 && pumping_.empty() &&
            (idle & 15) != 15) {
            const auto m = static_cast<std::size_t>(std::countr_zero(r.need));
            Method& method = *methods_[m];
            ++polls_[m];
            events = need_[m] == 1 && world_peer != kAnySource
                         ? method.poll_peer(world_peer, *this)
                         : method.poll(*this);
        } else {
            events = progress();
        }
        if (events > 0) {
            idle = 0;
        } else if ((++idle & 15) == 0) {
            idle_step(idle);  // time to yield or sleep?
        } else if (yield_each_pass()) {
            core_yield();
        }
    }
}

std::vector<std::pair<std::string, std::uint64_t>> Engine::poll_counts() const {
    std::vector<std::pair<std::string, std::uint64_t>> out;
    for (std::size_t i = 0; i < methods_.size(); ++i) out.emplace_back(methods_[i]->caps().name, polls_[i]);
    return out;
}

std::string rank_ranges(std::size_t n, const std::function<bool(std::size_t)>& in) {
    std::string out;
    for (std::size_t p = 0; p < n;) {
        if (!in(p)) {
            ++p;
            continue;
        }
        std::size_t q = p;
        while (q + 1 < n && in(q + 1)) ++q;
        if (!out.empty()) out += ',';
        out += std::to_string(p);
        if (q > p) out += '-' + std::to_string(q);
        p = q + 1;
    }
    return out;
}

std::string Engine::routes_text() const {
    std::string out;
    for (std::size_t i = 0; i < methods_.size(); ++i) {
        const auto mine = [&](std::size_t p) { return route_[p] == static_cast<int>(i); };
        const std::string peers = rank_ranges(route_.size(), mine);
        if (peers.empty()) continue;
        out += (out.empty() ? "" : "; ") + methods_[i]->caps().name + ": " + peers;
        const std::string sealed = rank_ranges(route_.size(), [&](std::size_t p) {
            return mine(p) && methods_[i]->encrypts(static_cast<int>(p));
        });
        if (!sealed.empty()) out += " (tls: " + sealed + ")";
    }
    return out;
}

int Engine::method_index(const std::string& name) const {
    for (std::size_t i = 0; i < methods_.size(); ++i) {
        if (methods_[i]->caps().name == name) return static_cast<int>(i);
    }
    return -1;
}

void Engine::qos_owed(int method) {
    // Moving traffic between lanes queues records (devices/tcp/stripes.hpp):
    // the method is polled until they have left.
    if (methods_[static_cast<std::size_t>(method)]->has_queued_sends()) owed_mask_ |= 1u << method;
}

base::Result<std::uint64_t> Engine::qos_reserve(std::span<const int> world_peers, std::span<const int> contexts,
                                                std::uint64_t bytes_per_s) {
    std::vector<std::vector<int>> by_method(methods_.size());
    for (const int w : world_peers) by_method[static_cast<std::size_t>(route_[static_cast<std::size_t>(w)])].push_back(w);
    std::vector<std::pair<int, std::uint64_t>> held;
    for (std::size_t m = 0; m < methods_.size(); ++m) {
        if (by_method[m].empty()) continue;
        base::Result<std::uint64_t> h = methods_[m]->qos_reserve(by_method[m], contexts, bytes_per_s);
        if (!h) {
            for (const auto& [method, handle] : held) methods_[static_cast<std::size_t>(method)]->qos_release(handle);
            return std::move(h).failure();
        }
        if (*h != 0) held.emplace_back(static_cast<int>(m), *h);
        qos_owed(static_cast<int>(m));
    }
    const std::uint64_t handle = qos_next_++;
    qos_.emplace(handle, std::move(held));
    return handle;
}

void Engine::qos_release(std::uint64_t handle) {
    const auto it = qos_.find(handle);
    if (it == qos_.end()) return;
    for (const auto& [method, h] : it->second) {
        methods_[static_cast<std::size_t>(method)]->qos_release(h);
        qos_owed(method);
    }
    qos_.erase(it);
}

std::vector<std::string> Engine::methods_report() const {
    std::vector<std::string> lines;
    for (const auto& m : methods_) {
        std::string text = m->report();
        if (!text.empty()) lines.push_back(m->caps().name + ": " + text);
    }
    return lines;
}

std::string Engine::traffic_text() const {
    std::string out;
    const auto one = [&](const std::string& what, const Traffic& t) {
        out += (out.empty() ? "" : "; ") + what + ": " + std::to_string(t.messages) + " messages, " +
               std::to_string(t.bytes) + " bytes";
    };
    for (int l = 0; l < wireup::kLevels; ++l) {
        if (by_level_[static_cast<std::size_t>(l)].messages == 0) continue;
        one("level " + std::to_string(l) + " (" + wireup::level_name(level_kinds_[static_cast<std::size_t>(l)]) + ")",
            by_level_[static_cast<std::size_t>(l)]);
    }
    for (std::size_t i = 0; i < methods_.size(); ++i) {
        if (by_method_[i].messages != 0) one(methods_[i]->caps().name, by_method_[i]);
    }
    if (relayed_.messages != 0) one("through relays", relayed_);
    return out.empty() ? "nothing sent" : out;
}

bool Engine::poll_stats_wanted() { return poll_stats.get() != 0; }

void Engine::set_oversubscribed(bool yes) {
    // With more ranks than cores, a waiting rank yields between polls from the
    // start, so a peer on its core runs at once, and sleeps after 50 us: a
    // wake-up through the doorbell costs tens of microseconds, a yield one.
    const std::int64_t us = spin_us.get() >= 0 ? spin_us.get() : (yes ? 50 : 200);
    spin_limit_ = std::chrono::microseconds(us);
    oversubscribed_ = yes;
    yield_after_ = yes ? std::chrono::microseconds(0) : kYieldAfter;
}

bool Engine::transfer_underway() const {
    const std::uint32_t set = poll_set();
    for (std::size_t i = 0; i < methods_.size(); ++i) {
        if ((set & (1u << i)) != 0 && methods_[i]->transfer_underway()) return true;
    }
    return false;
}

bool Engine::cpu_shared() {
    // Every awaited method hears the core, whatever the first one answers.
    const int cpu = sched_getcpu();
    bool shared = false;
    const std::uint32_t set = poll_set();
    for (std::size_t i = 0; i < methods_.size(); ++i) {
        if ((set & (1u << i)) != 0 && methods_[i]->shares_cpu(cpu)) shared = true;
    }
    return shared;
}

void Engine::idle_step(unsigned idle) {
    // Busy-poll for a short while (the answer to a message usually comes within
    // a few microseconds), then sleep until a descriptor wakes us: a spinning
    // rank on a shared core would only delay the very peer it waits for.
    // The clock is read every 16th idle pass only, first at the 16th: reading
    // it right away would delay the next poll of a reply that is already due.
    if (idle == 16) {
        idle_since_ = std::chrono::steady_clock::now();
        // Two ranks that are not bound can land on one core while the other
        // is busy; spinning there before each yield would cost every answer
        // that spin (three answers per acknowledged broadcast: 21 us instead
        // of 6 on this kind of machine).
        cpu_shared_ = cpu_shared();
        if (cpu_shared_) ++cpu_shared_waits_;
        return;
    }
    const auto spun = std::chrono::steady_clock::now() - idle_since_;
    if (spun < spin_limit_ || (!oversubscribed_ && spun < kTransferSpin && transfer_underway())) {
        // Past the first few microseconds, hand the core over now and then: when
        // the scheduler placed the peer on our core, it can answer meanwhile
        // (an idle core returns from sched_yield at once); at once when the
        // peer said it runs on our core.
        if (spun >= yield_after_ || cpu_shared_) core_yield();
        return;
    }
    // Sleep on the methods that are awaited, each of which first agrees that
    // nothing is waiting to be polled (and, for shared memory, asks its peers
    // to ring its descriptor from now on).
    std::vector<pollfd> fds;
    std::uint32_t prepared = 0;
    bool sleep = true;
    const std::uint32_t set = poll_set();
    for (std::size_t i = 0; i < methods_.size(); ++i) {
        if ((set & (1u << i)) == 0) continue;
        Method& m = *methods_[i];
        if (!m.sleep_prepare()) {
            sleep = false;
            break;
        }
        prepared |= 1u << i;
        if (m.wait_fd() >= 0) fds.push_back(pollfd{m.wait_fd(), POLLIN, 0});
    }
    if (sleep) {
        for (int fd : extra_fds_) fds.push_back(pollfd{fd, POLLIN, 0});
        if (fds.empty()) {
            core_yield();
        } else {
            // Bounded sleep: a wake-up the descriptors cannot announce is never missed for long.
            ++sleeps_;
            ::poll(fds.data(), fds.size(), 10);
        }
    }
    for (std::size_t i = 0; i < methods_.size(); ++i) {
        if ((prepared & (1u << i)) != 0) methods_[i]->sleep_end();
    }
}

bool Engine::sends_drained() const {
    return std::none_of(methods_.begin(), methods_.end(), [](const auto& m) { return m->has_queued_sends(); });
}

void Engine::shutdown() {
    for (auto& m : methods_) m->shutdown();
}

}  // namespace strata::adi
