#include "conformance.hpp"

#include <poll.h>

#include <algorithm>
#include <cstring>
#include <thread>

#include "devices/self/self_method.hpp"
#include "devices/shm/shm_method.hpp"
#include "devices/tcp/tcp_method.hpp"
#if STRATA_HAVE_OFI
#include "devices/ofi/ofi_method.hpp"
#endif

namespace strata::dev::testing {

namespace {

// Bytes after the kept ones that no landing covers: a method that writes past
// a landing's capacity at the end of a payload changes them.
constexpr std::size_t kGuard = 64;
constexpr std::byte kGuardByte{0xa5};

}  // namespace

adi::Landing Recorder::on_header(int peer, const adi::Header& h) {
    headers.push_back(h);
    peers.push_back(peer);
    if (!adi::carries_payload(h.type)) return {};
    Msg& m = msgs.emplace_back();
    m.peer = peer;
    m.header = h;
    if (!next.empty()) {
        m.limits = next.front();
        next.pop_front();
    } else {
        m.limits = limits;
    }
    const std::size_t kept = std::min<std::size_t>(m.limits.accept, h.length);
    m.buffer.assign(kept + kGuard, kGuardByte);
    m.limits.accept = kept;
    return landing_next(m, 0);
}

adi::Landing Recorder::on_landing_full(int peer, const adi::Header& h, const adi::Landing& landing) {
    Msg& m = msg_of(landing);
    CHECK(peer == m.peer);
    CHECK(same_header(h, m.header));
    CHECK_FALSE(m.done);
    // Only a landing of non-zero capacity fills, and only the last one handed out is filled.
    CHECK(landing.capacity > 0);
    CHECK(landing.dest == m.last.dest);
    CHECK(landing.capacity == m.last.capacity);
    const std::size_t end = static_cast<std::size_t>(landing.dest - m.buffer.data()) + landing.capacity;
    if (end >= m.limits.accept) ++m.discarded_calls;
    return landing_next(m, end);
}

void Recorder::on_payload(int peer, const adi::Header& h, const adi::Landing& landing) {
    Msg& m = msg_of(landing);
    CHECK(peer == m.peer);
    CHECK(same_header(h, m.header));
    CHECK_FALSE(m.done);
    CHECK(landing.dest == m.last.dest);
    CHECK(landing.capacity == m.last.capacity);
    CHECK(std::all_of(m.buffer.end() - kGuard, m.buffer.end(), [](std::byte b) { return b == kGuardByte; }));
    m.data.assign(m.buffer.begin(), m.buffer.end() - kGuard);
    m.done = true;
    ++landed;
}

adi::Landing Recorder::landing_next(Msg& m, std::size_t offset) {
    ++m.windows;
    adi::Landing l;
    l.cookie = &m;
    if (offset < m.limits.accept) {
        l.dest = m.buffer.data() + offset;
        const std::size_t left = m.limits.accept - offset;
        l.capacity = m.limits.window == 0 ? left : std::min(m.limits.window, left);
    }
    m.last = l;
    return l;  // past the kept bytes: capacity 0, the rest is discarded
}

Msg& Recorder::msg_of(const adi::Landing& l) {
    REQUIRE(l.cookie != nullptr);
    return *static_cast<Msg*>(l.cookie);
}

World::World(const Maker& make, std::vector<wireup::BusinessCard> cards,
             const std::function<void(std::vector<wireup::BusinessCard>&)>& edit)
    : methods_(cards.size()), recorders_(cards.size()) {
    const int n = size();
    for (int r = n - 1; r >= 0; --r) {  // rank 0 last: see the class comment
        auto& m = methods_[static_cast<std::size_t>(r)];
        m = make(adi::MethodContext{r, n, "unit-test-key", "localhost"});
        if (!m) continue;
        const base::Status published = m->publish(cards[static_cast<std::size_t>(r)]);
        INFO("rank " << r << " publishing: " << published.error());
        REQUIRE(published.ok());
    }
    if (edit) edit(cards);
    std::vector<std::string> errors(cards.size());
    std::vector<int> ok(cards.size(), 1);
    std::vector<std::thread> threads;
    for (int r = 0; r < n; ++r) {
        const auto i = static_cast<std::size_t>(r);
        if (!methods_[i]) continue;
        threads.emplace_back([&, r, i] {
            const base::Status connected = methods_[i]->connect_world(adi::World{cards, {}, r});
            ok[i] = connected.ok() ? 1 : 0;
            errors[i] = connected.error();
        });
    }
    for (auto& t : threads) t.join();
    for (std::size_t i = 0; i < cards.size(); ++i) {
        INFO("rank " << i << " connecting: " << errors[i]);
        REQUIRE(ok[i] == 1);
    }
    cards_ = std::move(cards);
}

World::~World() {
    for (auto& m : methods_) {
        if (m) m->shutdown();
    }
}

adi::SendStatus World::send(int from, int to, const adi::Header& h, std::span<const iovec> iov, std::uint64_t token) {
    const auto st = method(from).send(to, h, iov, token);
    REQUIRE(st != adi::SendStatus::failed);
    if (st == adi::SendStatus::queued) in(from).queued.push_back(token);
    return st;
}

adi::SendStatus World::send(int from, int to, const adi::Header& h, const std::vector<std::byte>& data,
                            std::uint64_t token) {
    const iovec v{const_cast<std::byte*>(data.data()), data.size()};
    return send(from, to, h, std::span<const iovec>(&v, data.empty() ? 0 : 1), token);
}

void World::poll_all() {
    for (std::size_t r = 0; r < methods_.size(); ++r) {
        if (methods_[r]) methods_[r]->poll(recorders_[r]);
    }
}

void World::pump_until(const std::function<bool()>& done) {
    for (long i = 0; i < 20'000'000 && !done(); ++i) poll_all();
    for (int r = 0; r < size(); ++r) {
        INFO("rank " << r << ": " << in(r).headers.size() << " headers, " << in(r).landed << " payloads, "
                     << in(r).sent.size() << " of " << in(r).queued.size() << " queued sends completed"
                     << (in(r).failures.empty() ? "" : "; link failed: " + in(r).failures[0].second));
        REQUIRE(in(r).failures.empty());
    }
    REQUIRE(done());
}

void link_open(World& w, int from, int to) {
    w.send(from, to, header(adi::Packet::eager, 0, 0), std::vector<std::byte>{}, 0);
    w.pump_until([&] { return w.in(to).landed == 1 && !w.method(from).has_queued_sends(); });
    w.in(from) = Recorder{};
    w.in(to) = Recorder{};
}

void check_completed(const Recorder& sender) {
    auto sent = sender.sent;
    auto queued = sender.queued;
    std::sort(sent.begin(), sent.end());
    std::sort(queued.begin(), queued.end());
    CHECK(sent == queued);
}

void World::pump_landed(int from, int to, std::size_t n) {
    pump_until([&] { return in(to).landed == n && in(from).sent.size() == in(from).queued.size(); });
}

void check_in_order(const Recorder& r, const std::vector<std::vector<std::byte>>& want) {
    REQUIRE(r.msgs.size() == want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
        INFO("payload " << i << " of " << want[i].size() << " bytes");
        CHECK(r.msgs[i].header.tag == static_cast<int>(i));
        CHECK(diff(r.msgs[i].data, want[i]) == "");
    }
}

std::vector<wireup::BusinessCard> cards_local(int n, const std::string& host) {
    std::vector<wireup::BusinessCard> cards(static_cast<std::size_t>(n));
    for (auto& c : cards) {
        c.hostname = "localhost";
        c.host = host;
        c.vendor = std::string("v");  // not operator=(const char*): GCC 12 -O3 warns wrongly (-Wrestrict)
    }
    return cards;
}

#if STRATA_HAVE_OFI
std::optional<std::string> ofi_missing(const char* provider) {
    ofi::OfiMethod probe(adi::MethodContext{0, 2, "unit-test-key", "localhost"}, provider);
    wireup::BusinessCard card;
    // What publish() says when fi_getinfo finds no such endpoint.
    const base::Status published = probe.publish(card);
    if (published || published.error().find("no RDM endpoint") == std::string::npos) return std::nullopt;
    return published.error();
}

namespace {
// The providers that give RDM tagged endpoints on one machine. One this
// machine lacks is skipped; any other failure fails the test.
template <const char* Provider>
std::unique_ptr<World> ofi_make(std::string& skip) {
    if (std::optional<std::string> why = ofi_missing(Provider)) {
        skip = *why;
        return nullptr;
    }
    return std::make_unique<World>(
        [](const adi::MethodContext& ctx) { return std::make_unique<ofi::OfiMethod>(ctx, Provider); }, cards_local(2));
}
constexpr char kOfiShm[] = "shm";
constexpr char kOfiTcp[] = "tcp;ofi_rxm";
}  // namespace
#endif

namespace {

std::unique_ptr<World> self_make(std::string& /*skip*/) {
    return std::make_unique<World>([](const adi::MethodContext&) { return std::make_unique<self::SelfMethod>(); },
                                   cards_local(1));
}
std::unique_ptr<World> shm_make(std::string& /*skip*/) { return std::make_unique<WorldOf<shm::ShmMethod>>(2); }
std::unique_ptr<World> tcp_make(std::string& /*skip*/) { return std::make_unique<WorldOf<tcp::TcpMethod>>(2); }

// In the order of the method table (devices/methods.cpp), built ones only.
const Subject kSubjects[] = {
    {"self", "self", 1, true, &self_make},
    {"shm", "shm", 2, true, &shm_make},
#if STRATA_HAVE_OFI  // built only where libfabric is (meson option 'ofi')
    {"ofi (shm)", "ofi", 2, false, &ofi_make<kOfiShm>},
    {"ofi (tcp;ofi_rxm)", "ofi", 2, false, &ofi_make<kOfiTcp>},
#endif
    {"tcp", "tcp", 2, true, &tcp_make},
};

}  // namespace

std::span<const Subject> subjects() { return kSubjects; }

std::vector<std::byte> pattern(std::size_t n, unsigned seed) {
    std::vector<std::byte> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::byte>((i * 131 + seed * 7 + i / 251) % 253);
    return v;
}

adi::Header header(adi::Packet type, int tag, std::size_t length) {
    adi::Header h{};
    h.type = type;
    h.flags = 0x5a;
    h.reserved = 0xbeef;
    h.context = 77;
    h.source = 3;
    h.tag = tag;
    h.length = length;
    h.sender_req = 0x1122334455667788ull + static_cast<unsigned>(tag);
    h.receiver_req = 0x8877665544332211ull - static_cast<unsigned>(tag);
    return h;
}

bool same_header(const adi::Header& a, const adi::Header& b) { return std::memcmp(&a, &b, sizeof a) == 0; }

std::string diff(const std::vector<std::byte>& got, const std::vector<std::byte>& want) {
    if (got == want) return "";
    const std::size_t n = std::min(got.size(), want.size());
    std::size_t i = 0;
    while (i < n && got[i] == want[i]) ++i;
    std::string s = "got " + std::to_string(got.size()) + " bytes, want " + std::to_string(want.size());
    if (i < n) {
        s += "; first difference at byte " + std::to_string(i) + ": got " + std::to_string(static_cast<int>(got[i])) +
             ", want " + std::to_string(static_cast<int>(want[i]));
    }
    return s;
}

std::vector<std::byte> prefix(const std::vector<std::byte>& v, std::size_t n) {
    return std::vector<std::byte>(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(n));
}

int readable(int fd, int ms) {
    pollfd p{fd, POLLIN, 0};
    return ::poll(&p, 1, ms);
}

}  // namespace strata::dev::testing
