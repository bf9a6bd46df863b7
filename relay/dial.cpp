#include "relay/dial.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <netinet/tcp.h>

#include "base/unique_fd.hpp"

namespace strata::relay {

namespace {

std::string errno_text(int e) { return std::strerror(e); }

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

base::Status send_all(int fd, const std::uint8_t* data, std::size_t n, Clock::time_point deadline) {
    std::size_t sent = 0;
    while (sent < n) {
        const ssize_t w = ::send(fd, data + sent, n - sent, MSG_NOSIGNAL);
        if (w > 0) {
            sent += static_cast<std::size_t>(w);
        } else if (w < 0 && errno != EAGAIN && errno != EINTR) {
            return base::Error{errno_text(errno)};
        } else if (!await(fd, POLLOUT, deadline)) {
            return base::Error{"timed out"};
        }
    }
    return {};
}

base::Status recv_all(int fd, std::uint8_t* data, std::size_t n, Clock::time_point deadline) {
    std::size_t got = 0;
    while (got < n) {
        const ssize_t r = ::recv(fd, data + got, n - got, 0);
        if (r > 0) {
            got += static_cast<std::size_t>(r);
        } else if (r == 0) {
            return base::Error{"it closed the connection"};
        } else if (errno != EAGAIN && errno != EINTR) {
            return base::Error{errno_text(errno)};
        } else if (!await(fd, POLLIN, deadline)) {
            return base::Error{"timed out"};
        }
    }
    return {};
}

base::Status connect_to(int fd, const Endpoint& at, Clock::time_point deadline) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(at.port);
    addr.sin_addr.s_addr = htonl(at.address);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) return {};
    if (errno != EINPROGRESS) return base::Error{errno_text(errno)};
    if (!await(fd, POLLOUT, deadline)) return base::Error{"timed out"};
    int err = 0;
    socklen_t len = sizeof err;
    getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
    return err == 0 ? base::Status{} : base::Status{base::Error{errno_text(err)}};
}

// The handshake on a connected socket: Open, Challenge, Response, Answer.
base::Status handshake(int fd, Open& open, const std::string& job_key, Clock::time_point deadline) {
    if (!security::nonce_fill(open.nonce)) return base::Error{"the OpenSSL random generator is not seeded"};
    const auto hello = open_encode(open);
    if (base::Status s = send_all(fd, hello.data(), hello.size(), deadline); !s) return s;
    std::array<std::uint8_t, kChallengeSize> challenge{};
    if (base::Status s = recv_all(fd, challenge.data(), challenge.size(), deadline); !s) return s;
    security::Nonce theirs{};
    security::Proof proof{};
    std::memcpy(theirs.data(), challenge.data(), theirs.size());
    std::memcpy(proof.data(), challenge.data() + theirs.size(), proof.size());
    if (!security::proof_equal(open_proof(job_key, security::ProofRole::relay_acceptor, open, theirs), proof))
        return base::Error{"it does not know this job's key: it is not this job's relay"};
    const auto mine = open_proof(job_key, security::ProofRole::relay_connector, open, theirs);
    if (base::Status s = send_all(fd, mine.data(), mine.size(), deadline); !s) return s;
    std::array<std::uint8_t, kAnswerSize> answer{};
    if (base::Status s = recv_all(fd, answer.data(), answer.size(), deadline); !s) return s;
    if (le32(answer.data()) != 1) return base::Error{"it refused the connection (see its log)"};
    return {};
}

}  // namespace

base::Result<int> dial(const Endpoint& at, Open open, const std::string& job_key, std::chrono::milliseconds timeout) {
    const Clock::time_point deadline = Clock::now() + timeout;
    base::UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    if (fd.get() < 0) return base::Error{"cannot create a socket: " + errno_text(errno)};
    int one = 1;
    setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    base::Status s = connect_to(fd.get(), at, deadline);
    if (s) s = handshake(fd.get(), open, job_key, deadline);
    if (!s) return base::Error{"the relay at " + endpoint_text(at) + ": " + s.error()};
    return fd.release();
}

}  // namespace strata::relay
