#include "devices/tcp/handshake.hpp"

#include <sys/socket.h>
#include <sys/types.h>

#include <cerrno>

#include "base/little_endian.hpp"
#include "devices/tcp/stripes.hpp"

namespace strata::dev::tcp {

security::Proof link_proof(const std::string& job_key, security::ProofRole role, const security::Nonce& connector,
                           const security::Nonce& acceptor, std::uint32_t from, std::uint32_t to,
                           std::uint32_t stream) {
    return stream == 0 ? security::proof_make(job_key, role, connector, acceptor, from, to)
                       : security::proof_make(job_key, role, connector, acceptor, from, to, stream);
}

bool send_small(int fd, const void* data, std::size_t n) {
    return ::send(fd, data, n, MSG_NOSIGNAL) == static_cast<ssize_t>(n);
}

Incoming::Read Incoming::read() {
    const std::size_t need = challenged ? kResponseSize : kHelloSize;
    std::uint8_t buf[kHelloSize];
    while (got.size() < need) {
        const ssize_t n = ::recv(fd, buf, need - got.size(), 0);
        if (n > 0) {
            got.insert(got.end(), buf, buf + n);
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return Read::again;
        return Read::closed;
    }
    return Read::whole;
}

base::Status Incoming::hello_take() {
    const std::optional<Hello> hello = hello_decode(std::span<const std::uint8_t, kHelloSize>(got.data(), kHelloSize));
    if (!hello) return base::Error{"not a Strata handshake"};
    from_rank = hello->from;
    to_rank = hello->to;
    stream = hello->stream;
    set = hello->set;
    connector_nonce = hello->nonce;
    if (stream > kLaneStream) return base::Error{"invalid stream in the handshake"};
    return {};
}

base::Status Incoming::claim_check(std::uint32_t me, std::uint32_t first, std::uint32_t count) const {
    if (to_rank != me || from_rank == me || from_rank < first || from_rank - first >= count)
        return base::Error{"invalid ranks in the handshake"};
    return {};
}

base::Status Incoming::challenge(const std::string& key) {
    if (!security::nonce_fill(acceptor_nonce)) {
        return base::Error{"cannot make a nonce (the OpenSSL random generator is not seeded)"};
    }
    const auto proof = link_proof(key, security::ProofRole::link_acceptor, connector_nonce, acceptor_nonce, from_rank,
                                  to_rank, stream);
    std::array<std::uint8_t, kChallengeSize> message{};
    std::memcpy(message.data(), acceptor_nonce.data(), acceptor_nonce.size());
    std::memcpy(message.data() + acceptor_nonce.size(), proof.data(), proof.size());
    if (!send_small(fd, message.data(), message.size())) {
        return base::Error{"the connection broke during the handshake"};
    }
    challenged = true;
    got.clear();
    return {};
}

bool Incoming::proven(const std::string& key) const {
    security::Proof proof{};
    std::memcpy(proof.data(), got.data(), proof.size());
    const auto expected = link_proof(key, security::ProofRole::link_connector, connector_nonce, acceptor_nonce,
                                     from_rank, to_rank, stream);
    return security::proof_equal(expected, proof);
}

bool Incoming::answer(bool accept) const {
    const std::uint32_t word = base::to_little<std::uint32_t>(accept ? 1 : 0);
    return send_small(fd, &word, sizeof word);
}

}  // namespace strata::dev::tcp
