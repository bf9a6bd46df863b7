#include "relay/engine.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

namespace strata::relay {

namespace {

// Binds `fd` to a port of [low, high] (0: any); the port, or the error.
base::Result<int> listener_bind(int fd, const Options& o) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(o.listen_address);
    const int low = o.port_low;
    const int high = o.port_low == 0 ? 0 : o.port_high;
    if (low < 0 || high < low || high > 65535)
        return base::Error{"port range " + std::to_string(low) + ":" + std::to_string(high) +
                           ": expected LOW:HIGH with 0 < LOW <= HIGH < 65536, or 0"};
    int last = 0;
    for (int port = low; port <= high; ++port) {
        addr.sin_port = htons(static_cast<std::uint16_t>(port));
        if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
            socklen_t len = sizeof addr;
            ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
            return static_cast<int>(ntohs(addr.sin_port));
        }
        last = errno;
    }
    return base::Error{"cannot bind the relay's listener to a port of " + std::to_string(low) + ":" +
                       std::to_string(high) + " (last error: " + errno_text(last) + "); widen the range"};
}

base::Result<base::UniqueFd> listener_open(const Options& o, int& port) {
    base::UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    if (!fd) return base::Error{"cannot create a TCP socket: " + errno_text(errno)};
    int one = 1;
    ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    base::Result<int> bound = listener_bind(fd.get(), o);
    if (!bound) return bound.failure();
    if (::listen(fd.get(), 1024) != 0) return base::Error{"cannot listen: " + errno_text(errno)};
    port = *bound;
    return fd;
}

// Adds an fd the caller owns (the stop fd, the lifeline) to the set.
base::Status foreign_watch(int epfd, int fd, std::uint64_t key, const char* what) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = key;
    if (epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) != 0)
        return base::Error{std::string("cannot wait on the ") + what + " (fd " + std::to_string(fd) +
                           "): " + errno_text(errno) + "; it must be a pipe, socket, tty or signalfd"};
    return {};
}

}  // namespace

Engine::Engine(Options options, base::UniqueFd epoll, base::UniqueFd listener, base::UniqueFd wake, int port)
    : options_(std::move(options)), epoll_(std::move(epoll)), port_(port), last_sweep_(Clock::now()) {
    listener_.fd = std::move(listener);
    listener_.key = key_make(Role::listener);
    watch_set(epoll_.get(), listener_, EPOLLIN);
    wake_.fd = std::move(wake);
    wake_.key = key_make(Role::wake);
    watch_set(epoll_.get(), wake_, EPOLLIN);
}

base::Result<std::unique_ptr<Engine>> Engine::open(Options options) {
    if (options.job_key.empty()) return base::Error{"no job key: the relay proves every connection with it"};
    base::UniqueFd epoll(epoll_create1(EPOLL_CLOEXEC));
    base::UniqueFd wake(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
    if (!epoll || !wake) return base::Error{"cannot create an epoll set or an eventfd: " + errno_text(errno)};
    int port = 0;
    base::Result<base::UniqueFd> listener = listener_open(options, port);
    if (!listener) return listener.failure();
    const int stop_fd = options.stop_fd;
    const int lifeline_fd = options.lifeline_fd;
    auto engine = std::make_unique<Engine>(std::move(options), std::move(epoll), std::move(*listener),
                                           std::move(wake), port);
    const int epfd = engine->epoll_.get();
    if (stop_fd >= 0) {
        base::Status s = foreign_watch(epfd, stop_fd, engine->key_make(Role::stop), "stop fd");
        if (!s) return s.failure();
    }
    if (lifeline_fd >= 0) {
        base::Status s = foreign_watch(epfd, lifeline_fd, engine->key_make(Role::lifeline), "lifeline");
        if (!s) return s.failure();
    }
    if (engine->options_.hub) {
        base::Status s = engine->hub_attach();
        if (!s) return s.failure();
    }
    return engine;
}

std::uint64_t Engine::key_make(Role role) { return static_cast<std::uint64_t>(role) << 56 | ++serial_; }

base::Status Engine::run() {
    while (!stopping_) {
        epoll_event evs[64];
        const int n = epoll_wait(epoll_.get(), evs, 64, 1000);
        if (n < 0 && errno != EINTR) return base::Error{"epoll_wait failed: " + errno_text(errno)};
        for (int i = 0; i < n; ++i) event(evs[i].data.u64, evs[i].events);
        dirty_flush();
        if (Clock::now() - last_sweep_ >= std::chrono::seconds(1)) sweep();
    }
    links_bye();
    const Stats s = stats();
    log("stopped: " + std::to_string(s.streams_opened) + " streams opened, " + std::to_string(s.bytes_from_ranks) +
        " bytes from ranks and " + std::to_string(s.bytes_to_ranks) + " to ranks forwarded, peak " +
        std::to_string(s.peak_buffered) + " bytes buffered, " + std::to_string(s.links_opened) + " links");
    return {};
}

void Engine::event(std::uint64_t key, std::uint32_t events) {
    const auto role = static_cast<Role>(key >> 56);
    switch (role) {
        case Role::listener: listener_accept(); break;
        case Role::pending: pending_step(key); break;
        case Role::link: link_event(key, events); break;
        case Role::attach: attach_event(key, events); break;
        case Role::rank: rank_event(key, events); break;
        case Role::splice_rank:
        case Role::splice_far: splice_event(key, events); break;
        case Role::hub: hub_event(events); break;
        case Role::hub_dial: hub_dial_event(key); break;
        case Role::wake: control_event(role, wake_.fd.get()); break;
        case Role::stop: control_event(role, options_.stop_fd); break;
        case Role::lifeline: control_event(role, options_.lifeline_fd); break;
    }
}

// The wake eventfd, the stop fd (a signalfd, whose reads are 128 bytes) or
// the lifeline became readable.
void Engine::control_event(Role role, int fd) {
    std::uint8_t buf[128];
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (role == Role::lifeline) {
        if (n > 0 || (n < 0 && (errno == EAGAIN || errno == EINTR))) return;
        log(n == 0 ? "the lifeline closed: stopping" : "the lifeline failed (" + errno_text(errno) + "): stopping");
    } else if (role == Role::stop) {
        log("asked to stop (a signal): stopping");
    }
    stopping_ = true;
}

void Engine::stop() {
    const std::uint64_t one = 1;
    [[maybe_unused]] const ssize_t n = ::write(wake_.fd.get(), &one, sizeof one);
}

Stats Engine::stats() const {
    const Counters& c = counters_;
    Stats s;
    s.streams_opened = c.streams_opened.load();
    s.bytes_from_ranks = c.from_ranks.load();
    s.bytes_to_ranks = c.to_ranks.load();
    s.buffered = c.buffered.load();
    s.peak_buffered = c.peak.load();
    s.links_opened = c.links_opened.load();
    s.links = c.links.load();
    s.streams = c.streams.load();
    return s;
}

// Handshakes and accepts that have waited too long.
void Engine::sweep() {
    const auto now = Clock::now();
    last_sweep_ = now;
    std::vector<std::uint64_t> late;
    for (const auto& [key, p] : pending_)
        if (now - p.since > kHandshakeTimeout) late.push_back(key);
    for (const std::uint64_t key : late) pending_drop(key, "no handshake within 10 s");
    late.clear();
    // A link still connecting is late sooner when the hub offers another way.
    const std::chrono::seconds connect_limit = options_.hub ? kLinkConnectTimeout : kHandshakeTimeout;
    for (const auto& [key, l] : links_) {
        const auto limit = l.state == Link::State::connecting ? connect_limit : kHandshakeTimeout;
        if (l.state != Link::State::up && now - l.since > limit) late.push_back(key);
    }
    for (const std::uint64_t key : late) {
        const bool connecting = links_.at(key).state == Link::State::connecting;
        link_lost(key, connecting ? "no connection within " + std::to_string(connect_limit.count()) + " s"
                                  : "no handshake within 10 s");
    }
    late.clear();
    for (const auto& [token, key] : tokens_)
        if (now - streams_.at(key).since > kAcceptTimeout) late.push_back(key);
    for (const std::uint64_t key : late) {
        const Stream& s = streams_.at(key);
        stream_reset(key, "rank " + std::to_string(s.ends.to) + " did not accept the stream within 10 s");
    }
    late.clear();
    for (const auto& [token, serial] : splice_tokens_)
        if (now - splices_.at(serial).since > kAcceptTimeout) late.push_back(serial);
    for (const std::uint64_t serial : late) splice_close(serial, "not accepted within 10 s");
}

void Engine::dirty_flush() {
    while (!dirty_.empty()) {
        const std::uint64_t key = *dirty_.begin();
        dirty_.erase(dirty_.begin());
        link_write(key);
    }
}

void Engine::log(const std::string& line) const {
    if (options_.log) {
        options_.log(line);
        return;
    }
    std::fprintf(stderr, "strata-relay: %s\n", line.c_str());
    std::fflush(stderr);
}

void Engine::buffered_add(std::size_t n) {
    const std::uint64_t now = counters_.buffered.fetch_add(n) + n;
    if (now > counters_.peak.load()) counters_.peak.store(now);
}

void Engine::buffered_sub(std::size_t n) { counters_.buffered.fetch_sub(n); }

std::string Engine::stream_name(const Stream& s) const {
    const auto l = links_.find(s.link);
    const std::string relay = l == links_.end() ? "a lost link" : "relay " + l->second.peer;
    return "stream " + std::to_string(s.id) + " (rank " + std::to_string(s.ends.from) + " to rank " +
           std::to_string(s.ends.to) + ", " + relay + ")";
}

// The Relay is the engine behind a stable interface.
Relay::Relay(std::unique_ptr<Engine> engine) : engine_(std::move(engine)) {}
Relay::~Relay() = default;

base::Result<std::unique_ptr<Relay>> Relay::open(Options options) {
    base::Result<std::unique_ptr<Engine>> engine = Engine::open(std::move(options));
    if (!engine) return engine.failure();
    return std::unique_ptr<Relay>(new Relay(std::move(*engine)));
}

int Relay::port() const { return engine_->port(); }
base::Status Relay::run() { return engine_->run(); }
void Relay::stop() { engine_->stop(); }
Stats Relay::stats() const { return engine_->stats(); }

}  // namespace strata::relay
