#include "devices/tcp/handshake.hpp"

#include <sys/socket.h>
#include <sys/types.h>

#include <cerrno>

#include "base/little_endian.hpp"
#include "wireup/emulation.hpp"

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

base::Status Incoming::challenge(const std::string& job_key, std::uint32_t me, std::size_t ranks) {
    const std::optional<Hello> hello = hello_decode(std::span<const std::uint8_t, kHelloSize>(got.data(), kHelloSize));
    if (!hello) {
        return base::Error{"not a Strata handshake"};
    }
    from_rank = hello->from;
    stream = hello->stream;
    connector_nonce = hello->nonce;
    const std::uint32_t to = hello->to;
    if (to != me || from_rank >= ranks || from_rank == me) {
        return base::Error{"invalid ranks in the handshake"};
    }
    if (stream >= static_cast<std::uint32_t>(wireup::kStreamsMax)) {
        return base::Error{"invalid stream in the handshake"};
    }
    if (!security::nonce_fill(acceptor_nonce)) {
        return base::Error{"cannot make a nonce (the OpenSSL random generator is not seeded)"};
    }
    const auto proof =
        link_proof(job_key, security::ProofRole::link_acceptor, connector_nonce, acceptor_nonce, from_rank, to, stream);
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

bool Incoming::proven(const std::string& job_key, std::uint32_t me) const {
    security::Proof proof{};
    std::memcpy(proof.data(), got.data(), proof.size());
    const auto expected =
        link_proof(job_key, security::ProofRole::link_connector, connector_nonce, acceptor_nonce, from_rank, me, stream);
    return security::proof_equal(expected, proof);
}

bool Incoming::answer(bool accept) const {
    const std::uint32_t word = base::to_little<std::uint32_t>(accept ? 1 : 0);
    return send_small(fd, &word, sizeof word);
}

}  // namespace strata::dev::tcp
