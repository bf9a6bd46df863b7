#include "devices/tcp/emulator.hpp"

#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "base/little_endian.hpp"
#include "wireup/settings.hpp"

namespace strata::dev::tcp {

namespace {

// The part of a host identity that names the machine (its kernel boot); the
// rest is the network namespace and any emulated identity.
std::string machine_of(const std::string& host) { return host.substr(0, host.find('/')); }

constexpr std::size_t kHead = sizeof(std::uint64_t) + sizeof(adi::Header);  // stamp and header or record
constexpr std::size_t kPlanHead = kHead + sizeof(adi::Header);                // stamp, plan and header

}  // namespace

Emulator::~Emulator() {
    if (timer_fd_ >= 0) ::close(timer_fd_);
}

std::uint64_t Emulator::now_ns() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<std::uint64_t>(ts.tv_nsec);
}

base::Status Emulator::attach(const std::string& text, const std::string& job_key) {
    if (text.empty()) return {};
    base::Result<wireup::Emulation> e = wireup::emulation_parse(text);
    if (!e) return base::Error{wireup::setting_fault(wireup::kEmulation, text)};
    emulation_ = std::move(*e);
    text_ = text;
    if (emulation_.empty()) return {};
    base::Result<std::unique_ptr<wireup::SharedLinks>> table = wireup::SharedLinks::attach(job_key);
    if (!table) return std::move(table).failure().prefixed("STRATA_EMULATION: ");
    table_ = std::move(*table);
    return {};
}

base::Status Emulator::configure(const adi::World& world) {
    links_.clear();
    links_.resize(world.cards.size());
    if (emulation_.empty()) return {};
    const wireup::Emulation& e = emulation_;
    const auto me = static_cast<std::size_t>(world.rank);
    const wireup::BusinessCard& mine = world.cards[me];
    const wireup::Topology& t = world.topology;
    int sites = 0;
    int machines = 0;
    for (int r = 0; r < t.size(); ++r) {
        sites = std::max(sites, t.color(r, wireup::kLan) + 1);
        machines = std::max(machines, t.color(r, wireup::kSystem) + 1);
    }
    bool any = false;
    for (std::size_t peer = 0; peer < world.cards.size() && static_cast<int>(peer) < world.topology.size(); ++peer) {
        if (peer == me) continue;
        const wireup::BusinessCard& theirs = world.cards[peer];
        const int level = world.topology.link_level(world.rank, static_cast<int>(peer));
        const std::optional<wireup::LinkShape> shape = e.link(level, mine.site, theirs.site);
        if (!shape) continue;
        if (machine_of(theirs.host) != machine_of(mine.host)) {
            return base::Error{"STRATA_EMULATION shapes the link to rank " + std::to_string(peer) + " (host " +
                               theirs.hostname +
                               "), which runs on another machine; emulation needs every shaped link inside one "
                               "machine (it stamps packets with the shared monotonic clock)"};
        }
        // Between sites: the link from our site to theirs; inside a site: our machine's interface.
        // With an uplink, our site's own too: after the pairs and the machines.
        const int shared = level == wireup::kWan
                               ? t.color(world.rank, wireup::kLan) * sites + t.color(static_cast<int>(peer), wireup::kLan)
                               : sites * sites + t.color(world.rank, wireup::kSystem);
        const bool up = level == wireup::kWan && e.uplink.has_value();
        const int uplink = up ? sites * sites + machines + t.color(world.rank, wireup::kLan) : -1;
        if (shared < 0 || std::max(shared, uplink) >= static_cast<int>(wireup::SharedLinks::kLinks)) {
            return base::Error{
                "STRATA_EMULATION: the job has too many sites and machines to emulate their links (at most " +
                std::to_string(wireup::SharedLinks::kLinks) + " links)"};
        }
        links_[peer].reset(new ShapedLink(*this, static_cast<int>(peer)));
        ShapedLink& l = *links_[peer];
        l.shared_ = shared;
        l.uplink_ = uplink;
        l.wan_ = level == wireup::kWan;
        l.name_ = l.wan_ ? "the wide-area link from site " + mine.site + " to site " + theirs.site
                         : "the local-area interface of " + mine.hostname;
        l.link_ = {shared, shape->bytes_per_s, wireup::premium_capacity(*shape)};
        if (up) l.up_ = {uplink, e.uplink->bytes_per_s, wireup::premium_capacity(*e.uplink)};
        l.shape_set(*shape);
        l.pace_.uplink_ns_per_byte = up ? 1e9 / e.uplink->bytes_per_s : 0;
        any = true;
    }
    return any ? timer_make() : base::Status{};
}

base::Status Emulator::timer_make() {
    if (timer_fd_ >= 0) return {};
    timer_fd_ = ::timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (timer_fd_ < 0)
        return base::Error{std::string("STRATA_EMULATION: cannot create a timer: ") + std::strerror(errno)};
    return {};
}

base::Status Emulator::peers_add(int first, const std::vector<wireup::BusinessCard>& cards, const std::string& my_site,
                                 const std::string& my_host, const std::string& their_emulation) {
    const auto end = static_cast<std::size_t>(first) + cards.size();
    if (links_.size() < end) links_.resize(end);
    // Indexes an earlier set left (adi::Engine reuses them) start unshaped.
    for (std::size_t peer = static_cast<std::size_t>(first); peer < end; ++peer) {
        holding_.erase(std::remove(holding_.begin(), holding_.end(), static_cast<int>(peer)), holding_.end());
        links_[peer].reset();
    }
    // The texts as given, compared as the other end compares them.
    if (emulation_.empty() || their_emulation != text_) return {};
    bool any = false;
    for (std::size_t k = 0; k < cards.size(); ++k) {
        const wireup::BusinessCard& theirs = cards[k];
        if (theirs.host == my_host || machine_of(theirs.host) != machine_of(my_host)) continue;
        const int level = theirs.site != my_site ? wireup::kWan : wireup::kLan;
        const std::optional<wireup::LinkShape> shape = emulation_.link(level, my_site, theirs.site);
        if (!shape) continue;
        const std::size_t peer = static_cast<std::size_t>(first) + k;
        links_[peer].reset(new ShapedLink(*this, static_cast<int>(peer)));
        ShapedLink& l = *links_[peer];
        l.name_ = "the link to site " + theirs.site + " of another job";
        l.local_free_ = &local_free_[theirs.site];
        l.shape_set(*shape);
        any = true;
    }
    return any ? timer_make() : base::Status{};
}

void ShapedLink::shape_set(const wireup::LinkShape& shape) {
    pace_.latency_ns = shape.latency_s * 1e9;
    pace_.ns_per_byte = shape.bytes_per_s > 0 ? 1e9 / shape.bytes_per_s : 0;
    pace_.window_ns_per_byte = shape.window_bytes > 0 ? 2 * pace_.latency_ns / shape.window_bytes : 0;
    stream_free_.assign(static_cast<std::size_t>(kLaneStream) + 1, 0);
    in_.resize(1);
}

double ShapedLink::bulk_rate(const Crossing& x) const {
    if (x.bytes_per_s <= 0) return 0;
    return bulk_left(x.bytes_per_s, static_cast<double>(owner_.table_->reserved(static_cast<std::size_t>(x.index))));
}

std::uint64_t ShapedLink::stamp(int stream, std::size_t bytes) {
    const std::uint64_t now = Emulator::now_ns();
    std::uint64_t& stream_free = stream_free_[static_cast<std::size_t>(stream)];
    if (static_cast<std::uint32_t>(stream) == kLaneStream) {
        // Through this process's own pipe at its reservation (none: unpaced).
        Emulator::Pipe& pipe = owner_.pipes_[shared_];
        const Pace p = premium_pace(pace_, static_cast<double>(pipe.bytes_per_s));
        return pace_due(p, now, bytes, stream_free, [&](std::uint64_t start, std::uint64_t ns) {
            pipe.free_ns = std::max(pipe.free_ns, start) + ns;
            return pipe.free_ns;
        });
    }
    Pace p = pace_;
    if (local_free_ != nullptr) {
        // Another job's link: this process's own.
        return pace_due(p, now, bytes, stream_free, [this](std::uint64_t start, std::uint64_t ns) {
            *local_free_ = std::max(*local_free_, start) + ns;
            return *local_free_;
        });
    }
    if (wan_) p = bulk_pace(p, bulk_rate(link_), uplink_ >= 0 ? bulk_rate(up_) : 0);
    const auto on = [&](int link) {
        return [this, link](std::uint64_t start, std::uint64_t ns) {
            return owner_.table_->reserve(static_cast<std::size_t>(link), start, ns);
        };
    };
    return pace_due(p, now, bytes, stream_free, on(shared_), on(uplink_));
}

bool ShapedLink::head_take(StreamIn& s, const std::byte*& data, std::size_t& n) {
    // A plan's header follows it in the same frame.
    const bool plan = s.head.size() >= kHead && static_cast<std::uint8_t>(s.head[8]) == kRecordPlan;
    const std::size_t need = plan ? kPlanHead : kHead;
    const std::size_t take = std::min(n, need - s.head.size());
    s.head.insert(s.head.end(), data, data + take);
    data += take;
    n -= take;
    if (s.head.size() < need) return false;
    if (!plan && static_cast<std::uint8_t>(s.head[8]) == kRecordPlan) return false;
    Held h;
    std::memcpy(&h.due, s.head.data(), sizeof h.due);
    h.due = base::from_little(h.due);
    const std::byte* rec = s.head.data() + sizeof h.due;
    if (static_cast<std::uint8_t>(rec[0]) >= adi::kMethodRecordFirst) {
        std::memcpy(&h.record, rec, sizeof h.record);
        from_wire(h.record);
        if (plan) {
            std::memcpy(&h.header, rec + sizeof h.record, sizeof h.header);
            adi::from_wire(h.header);
            // Only this device writes plans; keep the arithmetic defined anyway.
            if (h.record.streams == 0) h.record.streams = 1;
            if (h.record.unit == 0) h.record.unit = 1;
        }
        s.payload_need = h.record.type == kRecordStripe ? static_cast<std::size_t>(h.record.length) : 0;
    } else {
        std::memcpy(&h.header, rec, sizeof h.header);
        adi::from_wire(h.header);
        s.payload_need = static_cast<std::size_t>(adi::wire_payload(h.header));
    }
    s.head.clear();
    h.payload.reserve(s.payload_need);
    s.partial = std::move(h);
    return true;
}

void ShapedLink::feed(int stream, const std::byte* data, std::size_t n) {
    if (in_.size() <= static_cast<std::size_t>(stream)) in_.resize(static_cast<std::size_t>(stream) + 1);
    StreamIn& s = in_[static_cast<std::size_t>(stream)];
    while (n > 0) {
        if (!s.partial && !head_take(s, data, n)) continue;
        const std::size_t take = std::min(n, s.payload_need - s.partial->payload.size());
        s.partial->payload.insert(s.partial->payload.end(), data, data + take);
        data += take;
        n -= take;
        if (s.partial->payload.size() < s.payload_need) return;
        if (!holding()) owner_.holding_.push_back(peer_);
        s.held.push_back(std::move(*s.partial));
        s.partial.reset();
        heads_stale();
    }
}

bool ShapedLink::holding() const {
    return std::any_of(in_.begin(), in_.end(), [](const StreamIn& s) { return !s.held.empty(); });
}

std::uint64_t ShapedLink::head_due(int lane) const {
    if (!head_stale_[lane]) return head_due_[lane];
    head_stale_[lane] = false;
    std::uint64_t& due_out = head_due_[lane];
    due_out = UINT64_MAX;
    const std::size_t at = lane == 0 ? 0 : kLaneStream;
    if (in_.size() <= at || in_[at].held.empty()) return due_out;
    const Held& first = in_[at].held.front();
    if (first.record.type == kRecordWait && !fences_.may_pass(lane, first.record.seq)) return due_out;
    if (first.record.type != kRecordPlan) {
        due_out = first.due;
        return due_out;
    }
    // A striped packet can go when its last stripe can: stripe i is the next
    // of stream i mod n (on stream 0, after the plan).
    const StripeRecord& plan = first.record;
    std::uint64_t due = first.due;
    std::vector<std::size_t> next(plan.streams, 0);
    next[0] = 1;
    const std::uint64_t count = stripe_count(plan.total, plan.unit);
    for (std::uint64_t i = 0; i < count; ++i) {
        const std::size_t k = static_cast<std::size_t>(i % plan.streams);
        if (k >= in_.size() || next[k] >= in_[k].held.size()) return due_out;
        due = std::max(due, in_[k].held[next[k]++].due);
    }
    due_out = due;
    return due_out;
}

bool Emulator::deliver_first(ShapedLink& l, int lane, adi::Upcalls& up) {
    const int peer = l.peer_;
    std::deque<ShapedLink::Held>& first = l.lane_held(lane);
    l.heads_stale();
    const std::uint8_t type = first.front().record.type;
    if (type == kRecordFence || type == kRecordWait) {
        // A fence lets the other lane's wait go; a wait that may go is done.
        if (type == kRecordFence) l.fences_.passed[lane] = first.front().record.seq;
        first.pop_front();
        return true;
    }
    if (l.local_free_ != nullptr) ++foreign_delivered_;
    if (type != kRecordPlan) {
        ShapedLink::Held h = std::move(first.front());
        first.pop_front();
        up.on_packet(peer, h.header, h.payload.data());
        return true;
    }
    const StripeRecord plan = first.front().record;
    const adi::Header h = first.front().header;
    first.pop_front();
    adi::Landing landing = up.on_header(peer, h);
    std::size_t landed = 0;
    const std::uint64_t count = stripe_count(plan.total, plan.unit);
    for (std::uint64_t s = 0; s < count; ++s) {
        std::deque<ShapedLink::Held>& from = l.in_[static_cast<std::size_t>(s % plan.streams)].held;
        const ShapedLink::Held stripe = std::move(from.front());
        from.pop_front();
        // The sender's own layout; a mismatch is a bug, not an attack
        // (strangers cannot pass the handshake).
        if (stripe.record.type != kRecordStripe || stripe.record.seq != plan.seq ||
            stripe.record.offset != stripe_offset(plan, s)) {
            up.on_peer_failed(peer, "wide-area emulation: a stripe from rank " + std::to_string(peer) +
                                        " is out of order");
            for (ShapedLink::StreamIn& in : l.in_) in.held.clear();
            return false;
        }
        landing = adi::land_copy(up, peer, h, landing, landed, stripe.payload.data(), stripe.payload.size());
    }
    stripes_delivered_ += count;
    up.on_payload(peer, h, landing);
    return true;
}

int Emulator::deliver(adi::Upcalls& up) {
    if (holding_.empty()) return 0;
    const std::uint64_t now = now_ns();
    int delivered = 0;
    // The engine's upcalls may send but never read, so nothing joins holding_
    // while this walks it.
    for (std::size_t i = 0; i < holding_.size();) {
        ShapedLink& l = *links_[static_cast<std::size_t>(holding_[i])];
        // A fence taken on one lane may let the other's wait go: round
        // again until neither lane has anything due.
        for (bool more = true; more;) {
            more = false;
            for (int lane = 0; lane < 2; ++lane) {
                while (l.head_due(lane) <= now) {
                    if (!deliver_first(l, lane, up)) return delivered;
                    ++delivered;
                    more = true;
                }
            }
        }
        if (!l.holding()) {
            holding_[i] = holding_.back();
            holding_.pop_back();
        } else {
            ++i;
        }
    }
    return delivered;
}

std::int64_t Emulator::next_due_in() const {
    if (holding_.empty()) return -1;
    std::uint64_t first = UINT64_MAX;
    for (const int peer : holding_) {
        const ShapedLink& l = *links_[static_cast<std::size_t>(peer)];
        first = std::min({first, l.head_due(0), l.head_due(1)});
    }
    if (first == UINT64_MAX) return -1;  // stripes still to come: their stream's socket wakes us
    const std::uint64_t now = now_ns();
    return first <= now ? 0 : static_cast<std::int64_t>(first - now);
}

void Emulator::arm(std::int64_t early_ns) {
    const std::int64_t in = next_due_in();
    if (in < 0 || timer_fd_ < 0) return;
    const std::uint64_t at = now_ns() + static_cast<std::uint64_t>(std::max<std::int64_t>(in - early_ns, 1));
    itimerspec spec{};
    spec.it_value.tv_sec = static_cast<time_t>(at / 1000000000ull);
    spec.it_value.tv_nsec = static_cast<long>(at % 1000000000ull);
    ::timerfd_settime(timer_fd_, TFD_TIMER_ABSTIME, &spec, nullptr);
}

base::Result<QosGrant> Emulator::qos_reserve(std::span<const int> peers, std::uint64_t bytes_per_s) {
    QosGrant grant;
    grant.bytes_per_s = bytes_per_s;
    std::vector<const ShapedLink::Crossing*> crossings;
    std::vector<const ShapedLink*> via;
    for (const int peer : peers) {
        // Another job's processes (beyond the world) are never shaped.
        const ShapedLink* l = static_cast<std::size_t>(peer) < links_.size() ? shaping(peer) : nullptr;
        if (l == nullptr || !l->wan_) continue;
        for (const ShapedLink::Crossing* x : {&l->link_, &l->up_}) {
            if (x->index < 0 || std::find(grant.links.begin(), grant.links.end(), x->index) != grant.links.end())
                continue;
            grant.links.push_back(x->index);
            crossings.push_back(x);
            via.push_back(l);
        }
    }
    for (std::size_t i = 0; i < crossings.size(); ++i) {
        const ShapedLink::Crossing& x = *crossings[i];
        const auto capacity = static_cast<std::uint64_t>(std::min(x.premium_capacity, 1e18));
        if (table_->admit(static_cast<std::size_t>(x.index), bytes_per_s, capacity)) continue;
        // Nothing reserved after all: give back what this call took.
        for (std::size_t j = 0; j < i; ++j) table_->release(static_cast<std::size_t>(grant.links[j]), bytes_per_s);
        const auto mbit = [](double bytes) { return std::to_string(static_cast<long long>(bytes * 8 / 1e6)); };
        const double taken = static_cast<double>(table_->reserved(static_cast<std::size_t>(x.index)));
        const bool uplink = &x == &via[i]->up_;
        return base::Error{(uplink ? "the uplink of this site" : via[i]->name_) + " has " + mbit(x.premium_capacity) +
                           " Mbit/s of premium capacity, " + mbit(taken) + " of them reserved: " +
                           mbit(static_cast<double>(bytes_per_s)) + " more do not fit"};
    }
    for (const int link : grant.links) pipes_[link].bytes_per_s += bytes_per_s;
    return grant;
}

void Emulator::qos_release(const QosGrant& grant) {
    for (const int link : grant.links) {
        table_->release(static_cast<std::size_t>(link), grant.bytes_per_s);
        Pipe& pipe = pipes_[link];
        pipe.bytes_per_s -= std::min(pipe.bytes_per_s, grant.bytes_per_s);
    }
}

void Emulator::timer_clear() {
    std::uint64_t expirations = 0;
    [[maybe_unused]] const ssize_t n = ::read(timer_fd_, &expirations, sizeof expirations);
}

}  // namespace strata::dev::tcp
