#include "relay/dial.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include "relay/io.hpp"

namespace strata::relay {

namespace {

using Clock = std::chrono::steady_clock;

int ms_left(Clock::time_point deadline) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    return left > 0 ? static_cast<int>(left) : 0;
}

// Waits for `events` on `fd` until the deadline; false when it passed.
bool await(int fd, short events, Clock::time_point deadline) {
    for (;;) {
        pollfd p{fd, events, 0};
        const int n = ::poll(&p, 1, ms_left(deadline));
        if (n > 0) return true;
        if (n == 0 || errno != EINTR) return false;
    }
}

}  // namespace

base::Result<Dialer> Dialer::start(const Endpoint& at, Open open, const std::string& job_key) {
    Dialer d;
    d.at_ = at;
    d.open_ = open;
    d.key_ = job_key;
    const std::string where = "the relay at " + endpoint_text(at) + ": ";
    if (!security::nonce_fill(d.open_.nonce)) return base::Error{where + "the OpenSSL random generator is not seeded"};
    d.fd_.reset(socket_open());
    if (d.fd_.get() < 0) return base::Error{where + "cannot create a socket: " + errno_text(errno)};
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(at.port);
    addr.sin_addr.s_addr = htonl(at.address);
    if (::connect(d.fd_.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 && errno != EINPROGRESS)
        return base::Error{where + errno_text(errno)};
    return d;
}

base::Result<bool> Dialer::fail(const std::string& why) const {
    return base::Error{"the relay at " + endpoint_text(at_) + ": " + why};
}

base::Result<bool> Dialer::step() {
    switch (state_) {
        case State::connecting: return connected();
        case State::open_sent: {
            base::Result<bool> whole = read_toward(kChallengeSize);
            if (!whole || !*whole) return whole;
            return challenged();
        }
        case State::response_sent: {
            base::Result<bool> whole = read_toward(kAnswerSize);
            if (!whole || !*whole) return whole;
            if (le32(got_.data()) != 1) return fail("it refused the connection (see its log)");
            state_ = State::done;
            return true;
        }
        case State::done: return true;
    }
    return false;
}

// Writable: connected, or failed to. The Open goes.
base::Result<bool> Dialer::connected() {
    if (const int err = socket_error(fd_.get()); err != 0) return fail(errno_text(err));
    const auto hello = open_encode(open_);
    if (!send_small(fd_.get(), hello.data(), hello.size())) return fail("the connection broke: " + errno_text(errno));
    state_ = State::open_sent;
    return step();  // the Challenge may be there already
}

// The Challenge is whole: check the relay's proof, answer with ours.
base::Result<bool> Dialer::challenged() {
    security::Proof proof{};
    std::memcpy(relay_nonce_.data(), got_.data(), relay_nonce_.size());
    std::memcpy(proof.data(), got_.data() + relay_nonce_.size(), proof.size());
    got_.clear();
    if (!security::proof_equal(open_proof(key_, security::ProofRole::relay_acceptor, open_, relay_nonce_), proof))
        return fail("it does not know this job's key: it is not this job's relay");
    const auto mine = open_proof(key_, security::ProofRole::relay_connector, open_, relay_nonce_);
    if (!send_small(fd_.get(), mine.data(), mine.size())) return fail("the connection broke: " + errno_text(errno));
    state_ = State::response_sent;
    return step();
}

base::Result<bool> Dialer::read_toward(std::size_t need) {
    while (got_.size() < need) {
        std::uint8_t buf[kChallengeSize];
        const ssize_t r = ::recv(fd_.get(), buf, need - got_.size(), 0);
        if (r > 0) {
            got_.insert(got_.end(), buf, buf + r);
        } else if (r == 0) {
            return fail("it closed the connection");
        } else if (errno == EINTR) {
            continue;
        } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
            return false;
        } else {
            return fail(errno_text(errno));
        }
    }
    return true;
}

base::Result<int> dial(const Endpoint& at, Open open, const std::string& job_key, std::chrono::milliseconds timeout) {
    const Clock::time_point deadline = Clock::now() + timeout;
    base::Result<Dialer> d = Dialer::start(at, open, job_key);
    if (!d) return d.failure();
    for (;;) {
        const base::Result<bool> done = d->step();
        if (!done) return done.failure();
        if (*done) return d->take();
        if (!await(d->fd(), d->wants_write() ? POLLOUT : POLLIN, deadline))
            return base::Error{"the relay at " + endpoint_text(at) + ": timed out"};
    }
}

}  // namespace strata::relay
