#include "wireup/protocol.hpp"

#include "relay/dial.hpp"

#include "base/keepalive.hpp"
#include "base/knob.hpp"
#include "base/numbers.hpp"
#include "base/unique_fd.hpp"
#include "wireup/environment.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <thread>

namespace strata::wireup {

namespace {

const base::KnobInt kAbortWaitMs("STRATA_ABORT_WAIT_MS", 2000,
                                 "how long MPI_Abort waits for mpirun to take note before the process exits anyway");

// ---- socket helpers for the Client ------------------------------------------

base::Status write_all(int fd, const std::vector<std::uint8_t>& bytes) {
    std::size_t off = 0;
    while (off < bytes.size()) {
        const ssize_t n = ::send(fd, bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                pollfd p{fd, POLLOUT, 0};
                ::poll(&p, 1, -1);
                continue;
            }
            return base::Error{std::string("cannot write to mpirun: ") + std::strerror(errno)};
        }
        off += static_cast<std::size_t>(n);
    }
    return {};
}

// An environment variable's value (null: unset) that is an int from `lo` to `hi`.
bool env_int_read(const char* text, int lo, int hi, int& out) {
    if (text == nullptr) return false;
    const base::ParsedInt<int> v = base::parse_int<int>(text, lo, hi);
    if (v) out = *v;
    return v.ok();
}

// Splits "host:port" or "[v6]:port".
bool split_host_port(const std::string& text, std::string& host, std::string& port) {
    std::size_t colon = 0;
    if (!text.empty() && text[0] == '[') {
        const std::size_t close = text.find(']');
        if (close == std::string::npos || close + 1 >= text.size() || text[close + 1] != ':') return false;
        host = text.substr(1, close - 1);
        colon = close + 1;
    } else {
        colon = text.rfind(':');
        if (colon == std::string::npos || colon == 0) return false;
        host = text.substr(0, colon);
    }
    port = text.substr(colon + 1);
    return !host.empty() && base::parse_int<int>(port, 1, 65535);
}

// The connected descriptor; the failure is the reason alone.
base::Result<int> connect_to(const std::string& host, const std::string& port) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    const int rc = ::getaddrinfo(host.c_str(), port.c_str(), &hints, &found);
    if (rc != 0) {
        return base::Error{std::string("cannot resolve '") + host + "': " + ::gai_strerror(rc)};
    }
    int fd = -1;
    int last_errno = 0;
    for (addrinfo* ai = found; ai != nullptr && fd < 0; ai = ai->ai_next) {
        fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0) {
            last_errno = errno;
            continue;
        }
        int rcc = 0;
        do {
            rcc = ::connect(fd, ai->ai_addr, ai->ai_addrlen);
        } while (rcc != 0 && errno == EINTR);
        if (rcc != 0) {
            last_errno = errno;
            ::close(fd);
            fd = -1;
        }
    }
    ::freeaddrinfo(found);
    if (fd < 0) return base::Error{std::strerror(last_errno)};
    // Control frames are small and latency-bound (the startup barrier).
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

// At a private site (env::kRelay set) through the site's relay, which
// alone can reach mpirun; elsewhere directly. Blocking either way.
base::Result<int> mpirun_connect(const std::string& host, const std::string& port, int rank,
                                 const std::string& job_key) {
    const char* via = std::getenv(env::kRelay);
    if (via == nullptr || *via == '\0') return connect_to(host, port);
    const std::optional<relay::Endpoint> at = relay::endpoint_parse(via);
    if (!at) return base::Error{std::string(env::kRelay) + "='" + via + "' is not the relay's a.b.c.d:port"};
    relay::Open open;
    open.kind = relay::Kind::control;
    open.from = static_cast<std::uint32_t>(rank);
    const base::Result<int> fd = relay::dial(*at, open, job_key);
    if (!fd) return fd.failure();
    const int flags = ::fcntl(*fd, F_GETFL);
    ::fcntl(*fd, F_SETFL, flags & ~O_NONBLOCK);
    return fd;
}

}  // namespace

const std::string& BusinessCard::entry(std::string_view key) const {
    static const std::string none;
    for (const auto& [k, v] : entries)
        if (k == key) return v;
    return none;
}

void BusinessCard::publish(std::string_view key, std::string value) {
    for (auto& [k, v] : entries) {
        if (k == key) {
            v = std::move(value);
            return;
        }
    }
    entries.emplace_back(key, std::move(value));
}

std::string wire_check(const BusinessCard& c) {
    // Sorted keys: a hostile card's many entries cost n log n, not n squared.
    std::vector<std::string_view> keys;
    for (const auto& e : c.entries) keys.emplace_back(e.first);
    std::sort(keys.begin(), keys.end());
    if (!keys.empty() && keys.front().empty()) return "'entries': an entry without a key";
    const auto twice = std::adjacent_find(keys.begin(), keys.end());
    if (twice != keys.end()) return "'entries': two entries under '" + std::string(*twice) + "'";
    return {};
}

base::wire::FrameSplitter frame_splitter() {
    return base::wire::FrameSplitter(static_cast<std::uint8_t>(Type::checkin), static_cast<std::uint8_t>(Type::names_reply),
                                kMaxFrame);
}

FrameReader::FrameReader() : split_(frame_splitter()) {}

void FrameReader::feed(const std::uint8_t* data, std::size_t n) { split_.feed(data, n); }

std::optional<Frame> FrameReader::next(bool& bad) {
    auto f = split_.next(bad);
    if (!f) return std::nullopt;
    return Frame{static_cast<Type>(f->type), std::move(f->payload)};
}

base::Result<std::optional<Client>> Client::from_environment() {
    const char* wireup = std::getenv(env::kWireup);
    if (wireup == nullptr || *wireup == '\0') return std::optional<Client>();

    Client c;
    std::string host;
    std::string port;
    const std::string set_by = "; this variable is set by mpirun";
    if (!split_host_port(wireup, host, port))
        return base::Error{std::string(env::kWireup) + "='" + wireup + "' is not host:port" + set_by};
    if (!env_int_read(std::getenv(env::kSize), 1, std::numeric_limits<int>::max(), c.size_))
        return base::Error{std::string(env::kSize) + " is missing or not a positive integer" + set_by};
    if (!env_int_read(std::getenv(env::kRank), 0, c.size_ - 1, c.rank_))
        return base::Error{std::string(env::kRank) + " is missing or not a rank below " + env::kSize + set_by};
    const char* subjob = std::getenv(env::kSubjob);
    if (subjob != nullptr && !env_int_read(subjob, 0, c.size_ - 1, c.subjob_))
        return base::Error{std::string(env::kSubjob) + "='" + subjob + "' is not a subjob index" + set_by};
    const char* key = std::getenv(env::kJobKey);
    if (key == nullptr || *key == '\0') return base::Error{std::string(env::kJobKey) + " is missing" + set_by};
    c.job_key_ = key;

    const base::Result<int> fd = mpirun_connect(host, port, c.rank_, c.job_key_);
    if (!fd) {
        return base::Error{std::string("cannot reach mpirun at ") + wireup + " (" + env::kWireup + "): " + fd.error() +
                           "; was this process started by a running mpirun?"};
    }
    c.fd_ = *fd;
    c.host_ = host;
    c.port_ = port;
    base::socket_keepalive(c.fd_);
    return std::optional<Client>(std::move(c));
}

// Ends the process when the connection to mpirun ends or fails before it
// is stopped. Only reads (peeks) the socket; the main thread does not read
// it meanwhile (nothing is due from mpirun until FinalizeDone).
class Client::Watch {
public:
    Watch(int fd, int rank) {
        if (::pipe2(stop_, O_CLOEXEC) != 0) return;
        // The program's signal handlers must keep running on its own threads.
        sigset_t all;
        sigset_t old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        thread_ = std::thread([fd, rank, stop = stop_[0]] { run(fd, rank, stop); });
        pthread_sigmask(SIG_SETMASK, &old, nullptr);
    }
    ~Watch() {
        if (thread_.joinable()) {
            const char c = 0;
            [[maybe_unused]] ssize_t w = ::write(stop_[1], &c, 1);
            thread_.join();
        }
        for (int fd : stop_)
            if (fd >= 0) ::close(fd);
    }
    Watch(const Watch&) = delete;
    Watch& operator=(const Watch&) = delete;

private:
    static void run(int fd, int rank, int stop) {
        pollfd p[2] = {{fd, POLLIN | POLLRDHUP, 0}, {stop, POLLIN, 0}};
        for (;;) {
            const int rc = ::poll(p, 2, -1);
            if (rc < 0 && errno == EINTR) continue;
            if (rc < 0 || p[1].revents != 0) return;
            if (p[0].revents != 0) break;
        }
        std::uint8_t b;
        const ssize_t n = ::recv(fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
        int err = 0;
        socklen_t len = sizeof err;
        ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
        const std::string why = n > 0    ? "mpirun sent something unexpected"
                                : n == 0 ? "mpirun closed it"
                                         : std::strerror(err != 0 ? err : errno);
        const std::string line = "strata: rank " + std::to_string(rank) + ": lost the connection to mpirun (" + why +
                                 "); the job is over, ending this process\n";
        [[maybe_unused]] ssize_t w = ::write(2, line.data(), line.size());
        ::_exit(1);
    }

    int stop_[2] = {-1, -1};
    std::thread thread_;
};

Client::Client() = default;

Client::Client(Client&& o) noexcept
    : fd_(o.fd_),
      rank_(o.rank_),
      size_(o.size_),
      subjob_(o.subjob_),
      job_key_(std::move(o.job_key_)),
      reader_(std::move(o.reader_)),
      checked_in_(o.checked_in_),
      watch_(std::move(o.watch_)),
      host_(std::move(o.host_)),
      port_(std::move(o.port_)) {
    o.fd_ = -1;
}

Client& Client::operator=(Client&& o) noexcept {
    if (this != &o) {
        watch_stop();
        if (fd_ >= 0) ::close(fd_);
        fd_ = o.fd_;
        rank_ = o.rank_;
        size_ = o.size_;
        subjob_ = o.subjob_;
        job_key_ = std::move(o.job_key_);
        reader_ = std::move(o.reader_);
        checked_in_ = o.checked_in_;
        watch_ = std::move(o.watch_);
        host_ = std::move(o.host_);
        port_ = std::move(o.port_);
        o.fd_ = -1;
    }
    return *this;
}

Client::~Client() {
    watch_stop();
    if (fd_ >= 0) ::close(fd_);
}

void Client::watch_stop() { watch_.reset(); }

base::Result<Frame> Client::frame_read_from(int fd, FrameReader& reader, const char* during) {
    std::uint8_t buf[16384];
    for (;;) {
        bool bad = false;
        if (std::optional<Frame> f = reader.next(bad)) return std::move(*f);
        if (bad) return base::Error{"protocol error: malformed frame from mpirun"};
        const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            pollfd p{fd, POLLIN, 0};
            ::poll(&p, 1, -1);
            continue;
        }
        if (n < 0)
            return base::Error{std::string("lost the connection to mpirun ") + during + ": " + std::strerror(errno)};
        if (n == 0) return base::Error{std::string("mpirun closed the connection ") + during + " (the job is ending)"};
        reader.feed(buf, static_cast<std::size_t>(n));
    }
}

base::Result<std::pair<security::Nonce, security::Nonce>> Client::challenge_run(int fd, FrameReader& reader,
                                                                              const char* during) const {
    Hello hello;
    if (!security::nonce_fill(hello.nonce))
        return base::Error{std::string("the OpenSSL random generator is not seeded; cannot make a nonce ") + during};
    if (base::Status sent = write_all(fd, encode(hello)); !sent) return sent.failure();
    base::Result<Frame> frame = frame_read_from(fd, reader, during);
    if (!frame) return frame.failure();
    if (frame->type != Type::challenge)
        return base::Error{"protocol error: mpirun did not answer the Hello with a Challenge"};
    const base::Result<Challenge> challenge = base::wire::decode<Challenge>(frame->payload);
    if (!challenge) return base::Error{"protocol error: mpirun's Challenge is malformed: " + challenge.error()};
    const auto expected = security::proof_make(job_key_, security::ProofRole::control_mpirun, hello.nonce,
                                               challenge->nonce, 0, 0);
    if (!security::proof_equal(expected, challenge->proof)) {
        return base::Error{std::string("mpirun at ") + env::kWireup + " did not prove this job's key (" + env::kJobKey +
                           "): the key was altered, or what listens there is not this job's mpirun"};
    }
    return std::make_pair(hello.nonce, challenge->nonce);
}

base::Result<Release> Client::checkin(const BusinessCard& card) {
    const auto nonces = challenge_run(fd_, reader_, "before the startup barrier opened");
    if (!nonces) return nonces.failure();

    Checkin m;
    m.rank = static_cast<std::uint32_t>(rank_);
    m.pid = static_cast<std::uint32_t>(::getpid());
    m.proof = security::proof_make(job_key_, security::ProofRole::control_rank, nonces->first, nonces->second,
                                   m.rank, m.pid);
    m.card = card;
    if (base::Status sent = write_all(fd_, encode(m)); !sent) return sent.failure();
    checked_in_ = true;

    base::Result<Frame> frame = frame_read("before the startup barrier opened");
    if (!frame) return frame.failure();
    if (frame->type != Type::release)
        return base::Error{"protocol error: mpirun sent an unexpected message before the startup barrier opened"};
    base::Result<Release> r = base::wire::decode<Release>(frame->payload);
    if (!r) return base::Error{"protocol error: malformed Release from mpirun: " + r.error()};
    if (r->cards.size() != static_cast<std::size_t>(size_))
        return base::Error{"protocol error: mpirun's Release has " + std::to_string(r->cards.size()) + " cards for " +
                           std::to_string(size_) + " processes"};
    watch_ = std::make_unique<Watch>(fd_, rank_);
    return std::move(*r);
}

base::Result<NamesReply> Client::names(NameOp op, const std::string& service, const std::string& port) {
    const base::Result<int> fd = mpirun_connect(host_, port_, rank_, job_key_);
    if (!fd) return base::Error{"cannot reach mpirun's name service: " + fd.error()};
    const base::UniqueFd owned(*fd);
    FrameReader reader;
    const char* during = "while asking mpirun's name service";
    const auto nonces = challenge_run(owned.get(), reader, during);
    if (!nonces) return nonces.failure();
    Names m;
    m.rank = static_cast<std::uint32_t>(rank_);
    m.pid = static_cast<std::uint32_t>(::getpid());
    m.proof = security::proof_make(job_key_, security::ProofRole::control_names, nonces->first, nonces->second, m.rank,
                                   m.pid);
    m.op = op;
    m.service = service;
    m.port = port;
    if (base::Status sent = write_all(owned.get(), encode(m)); !sent) return sent.failure();
    base::Result<Frame> frame = frame_read_from(owned.get(), reader, during);
    if (!frame) return frame.failure();
    if (frame->type != Type::names_reply)
        return base::Error{"protocol error: mpirun's name service answered with another message"};
    base::Result<NamesReply> reply = base::wire::decode<NamesReply>(frame->payload);
    if (!reply) return base::Error{"protocol error: mpirun's name service sent a malformed answer: " + reply.error()};
    return std::move(*reply);
}

void Client::abort(int code, const std::string& message) {
    // Before checkin mpirun does not know this connection; the process's exit
    // status is then the only report (mpirun ends the job on it).
    if (fd_ < 0 || !checked_in_) return;
    watch_stop();
    Abort m;
    m.code = code;
    m.message = message;
    if (!write_all(fd_, encode(m))) return;
    ::shutdown(fd_, SHUT_WR);
    // mpirun closes the connection once it has taken note of the Abort. Waiting
    // for that makes the reported cause "MPI_Abort" rather than whatever the
    // exit status of this process happens to look like when it races ahead.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kAbortWaitMs.get());
    std::uint8_t buf[4096];
    for (;;) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) return;
        pollfd p{fd_, POLLIN, 0};
        const int rc = ::poll(&p, 1, static_cast<int>(left.count()));
        if (rc < 0 && errno == EINTR) continue;
        if (rc <= 0) return;
        const ssize_t n = ::recv(fd_, buf, sizeof buf, MSG_DONTWAIT);
        if (n == 0) return;
        if (n < 0 && errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK) return;
    }
}

base::Status Client::send_finalize() {
    if (fd_ < 0) return base::Error{"no connection to mpirun"};
    watch_stop();
    return write_all(fd_, encode_empty(Type::finalize));
}

base::Result<bool> Client::poll_finalize_done() {
    if (fd_ < 0) return base::Error{"no connection to mpirun"};
    std::uint8_t buf[4096];
    for (;;) {
        bool bad = false;
        if (std::optional<Frame> f = reader_.next(bad)) {
            if (f->type == Type::finalize_done) return true;
            return base::Error{"protocol error: mpirun sent an unexpected message during MPI_Finalize"};
        }
        if (bad) return base::Error{"protocol error: malformed frame from mpirun"};
        const ssize_t n = ::recv(fd_, buf, sizeof buf, MSG_DONTWAIT);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return false;
        if (n < 0) {
            return base::Error{std::string("lost the connection to mpirun during MPI_Finalize: ") +
                               std::strerror(errno)};
        }
        if (n == 0) return base::Error{"mpirun closed the connection during MPI_Finalize (the job is ending)"};
        reader_.feed(buf, static_cast<std::size_t>(n));
    }
}

}  // namespace strata::wireup
