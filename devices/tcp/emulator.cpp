#include "devices/tcp/emulator.hpp"

#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

namespace strata::dev::tcp {

namespace {

// The part of a host identity that names the machine (its kernel boot); the
// rest is the network namespace and any emulated identity.
std::string machine_of(const std::string& host) { return host.substr(0, host.find('/')); }

constexpr std::size_t kHead = sizeof(std::uint64_t) + sizeof(adi::Header);

}  // namespace

Emulator::~Emulator() {
    if (timer_fd_ >= 0) ::close(timer_fd_);
}

std::uint64_t Emulator::now_ns() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<std::uint64_t>(ts.tv_nsec);
}

bool Emulator::configure(const adi::World& world, const std::string& text, const std::string& job_key,
                         std::string& error) {
    links_.assign(world.cards.size(), Link{});
    if (text.empty()) return true;
    std::optional<wireup::Emulation> e = wireup::emulation_parse(text, error);
    if (!e) {
        error = "STRATA_EMULATION: " + error;
        return false;
    }
    const auto me = static_cast<std::size_t>(world.rank);
    const wireup::BusinessCard& mine = world.cards[me];
    const wireup::Topology& t = world.topology;
    int sites = 0;
    for (int r = 0; r < t.size(); ++r) sites = std::max(sites, t.color(r, wireup::kLan) + 1);
    bool any = false;
    for (std::size_t peer = 0; peer < world.cards.size() && static_cast<int>(peer) < world.topology.size(); ++peer) {
        if (peer == me) continue;
        const wireup::BusinessCard& theirs = world.cards[peer];
        const int level = world.topology.link_level(world.rank, static_cast<int>(peer));
        const std::optional<wireup::LinkShape> shape = e->link(level, mine.site, theirs.site);
        if (!shape) continue;
        if (machine_of(theirs.host) != machine_of(mine.host)) {
            error = "STRATA_EMULATION shapes the link to rank " + std::to_string(peer) + " (host " + theirs.hostname +
                    "), which runs on another machine; emulation needs every shaped link inside one machine (it "
                    "stamps packets with the shared monotonic clock)";
            return false;
        }
        // Between sites: the link from our site to theirs; inside a site: our machine's interface.
        const int shared = level == wireup::kWan
                               ? t.color(world.rank, wireup::kLan) * sites + t.color(static_cast<int>(peer), wireup::kLan)
                               : sites * sites + t.color(world.rank, wireup::kSystem);
        if (shared < 0 || static_cast<std::size_t>(shared) >= wireup::SharedLinks::kLinks) {
            error = "STRATA_EMULATION: the job has too many sites and machines to emulate their links (at most " +
                    std::to_string(wireup::SharedLinks::kLinks) + " links)";
            return false;
        }
        Link& l = links_[peer];
        l.shared = shared;
        l.latency_ns = shape->latency_s * 1e9;
        l.ns_per_byte = shape->bytes_per_s > 0 ? 1e9 / shape->bytes_per_s : 0;
        any = true;
    }
    if (!any) return true;
    table_ = wireup::SharedLinks::attach(job_key, error);
    if (!table_) {
        error = "STRATA_EMULATION: " + error;
        return false;
    }
    timer_fd_ = ::timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (timer_fd_ < 0) {
        error = std::string("STRATA_EMULATION: cannot create a timer: ") + std::strerror(errno);
        return false;
    }
    return true;
}

std::uint64_t Emulator::stamp(int peer, std::size_t bytes) {
    const Link& l = links_[static_cast<std::size_t>(peer)];
    const auto busy = static_cast<std::uint64_t>(static_cast<double>(bytes) * l.ns_per_byte);
    const std::uint64_t left = table_->reserve(static_cast<std::size_t>(l.shared), now_ns(), busy);
    return left + static_cast<std::uint64_t>(l.latency_ns);
}

void Emulator::feed(int peer, const std::byte* data, std::size_t n) {
    Link& l = links_[static_cast<std::size_t>(peer)];
    while (n > 0) {
        if (!l.partial) {
            const std::size_t take = std::min(n, kHead - l.head.size());
            l.head.insert(l.head.end(), data, data + take);
            data += take;
            n -= take;
            if (l.head.size() < kHead) return;
            Held h;
            std::memcpy(&h.due, l.head.data(), sizeof h.due);
            std::memcpy(&h.header, l.head.data() + sizeof h.due, sizeof h.header);
            l.head.clear();
            l.payload_need = static_cast<std::size_t>(adi::wire_payload(h.header));
            h.payload.reserve(l.payload_need);
            l.partial = std::move(h);
        }
        const std::size_t take = std::min(n, l.payload_need - l.partial->payload.size());
        l.partial->payload.insert(l.partial->payload.end(), data, data + take);
        data += take;
        n -= take;
        if (l.partial->payload.size() < l.payload_need) return;
        if (l.held.empty()) holding_.push_back(peer);
        l.held.push_back(std::move(*l.partial));
        l.partial.reset();
    }
}

int Emulator::deliver(adi::Upcalls& up) {
    if (holding_.empty()) return 0;
    const std::uint64_t now = now_ns();
    int delivered = 0;
    // The engine's upcalls may send but never read, so nothing joins holding_
    // while this walks it.
    for (std::size_t i = 0; i < holding_.size();) {
        const int peer = holding_[i];
        Link& l = links_[static_cast<std::size_t>(peer)];
        while (!l.held.empty() && l.held.front().due <= now) {
            Held h = std::move(l.held.front());
            l.held.pop_front();
            up.on_packet(peer, h.header, h.payload.data());
            ++delivered;
        }
        if (l.held.empty()) {
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
    for (const int peer : holding_) first = std::min(first, links_[static_cast<std::size_t>(peer)].held.front().due);
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

void Emulator::timer_clear() {
    std::uint64_t expirations = 0;
    [[maybe_unused]] const ssize_t n = ::read(timer_fd_, &expirations, sizeof expirations);
}

}  // namespace strata::dev::tcp
