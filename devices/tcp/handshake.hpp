// The job-key handshake that opens every TCP connection between ranks
// (security/challenge.hpp), in fixed-size messages:
//   connector -> acceptor  Hello     magic, from rank, to rank, stream, set, nonce (56 B)
//   acceptor -> connector  Challenge nonce, acceptor's proof (64 B)
//   connector -> acceptor  Response  connector's proof (32 B)
//   acceptor -> connector  Answer    u32: 1 = this link, 0 = the other (4 B)
// The proofs of an extra stream (stream index above 0) bind its index too.
// A link that STRATA_DATA_TLS covers then runs TLS keyed by the job and the
// two nonces (tls_link.hpp) before any data.
//
// The connecting side is a state of its Connection (connection.hpp); the
// accepting side, before the connection is known to belong to any link, is
// an Incoming, here. Whether the acceptor answers 1 (when both ends of a
// link connect at once, the connection the lower rank opened wins) is its
// owner's decision (tcp_method.hpp).
//
// The Hello is the first bytes a rank's listener reads from whoever
// connects, before anything is proven, so its decoding is fuzzed
// (tests/fuzz/fuzz_tcp_hello.cpp). Layout, little endian: magic "STR4", from
// rank, to rank, stream, set (u64), 32-byte nonce. Stream 0 is a link's first
// connection; 1 and up are the extra connections its sender opens to stripe
// large payloads (stripes.hpp). Set 0 is the job: ranks are world ranks and
// the proofs use the job key. Another set is a connection between two jobs
// (adi::PeerSet, MPI_Comm_accept): ranks are set ranks and the proofs use the
// set's key.
#pragma once

#include "base/little_endian.hpp"
#include "base/result.hpp"
#include "relay/dial.hpp"
#include "security/challenge.hpp"

#include <array>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace strata::dev::tcp {

inline constexpr std::uint32_t kHelloMagic = 0x34525453;  // "STR4"
inline constexpr std::size_t kHelloSize = 24 + security::kNonceBytes;
inline constexpr std::size_t kChallengeSize = security::kNonceBytes + security::kProofBytes;
inline constexpr std::size_t kResponseSize = security::kProofBytes;
inline constexpr std::size_t kAnswerSize = 4;  // the acceptor's u32, little-endian: 1 accepts the connection
// An accepted connection that has not proven itself by then is dropped, so
// silent strangers cannot pile up.
inline constexpr auto kHandshakeTimeout = std::chrono::seconds(10);

struct Hello {
    std::uint32_t from = 0;
    std::uint32_t to = 0;
    std::uint32_t stream = 0;
    security::Nonce nonce{};
    std::uint64_t set = 0;  // 0: the job
};

inline std::array<std::uint8_t, kHelloSize> hello_encode(const Hello& h) {
    std::array<std::uint8_t, kHelloSize> out{};
    const std::uint32_t words[4] = {kHelloMagic, h.from, h.to, h.stream};
    for (std::size_t w = 0; w < 4; ++w) base::store(words[w], out.data() + 4 * w);
    base::store(h.set, out.data() + 16);
    std::memcpy(out.data() + 24, h.nonce.data(), h.nonce.size());
    return out;
}

// nullopt when the bytes are not a Strata Hello (another magic).
inline std::optional<Hello> hello_decode(std::span<const std::uint8_t, kHelloSize> bytes) {
    auto word = [&](std::size_t at) { return base::load<std::uint32_t>(bytes.data() + at); };
    if (word(0) != kHelloMagic) return std::nullopt;
    Hello h;
    h.from = word(4);
    h.to = word(8);
    h.stream = word(12);
    h.set = base::load<std::uint64_t>(bytes.data() + 16);
    std::memcpy(h.nonce.data(), bytes.data() + 24, h.nonce.size());
    return h;
}

// The proof (or, for ProofRole::link_tls_key, the TLS key) of stream
// `stream` of the link from rank `from` (the connector) to rank `to`.
security::Proof link_proof(const std::string& job_key, security::ProofRole role, const security::Nonce& connector,
                           const security::Nonce& acceptor, std::uint32_t from, std::uint32_t to, std::uint32_t stream);

// Sends a few bytes on a socket that was just connected or accepted: they fit
// in the empty socket buffer, so a short write means the link is broken.
bool send_small(int fd, const void* data, std::size_t n);

// An accepted connection still in its handshake: the Hello is read, then
// (once challenged) the connector's proof. Its owner reads it when the socket
// is readable, challenges a whole Hello, checks a whole Response, and
// answers.
struct Incoming {
    enum class Read { again, closed, whole };

    int fd = -1;
    std::string from;  // printable remote address, for the log
    std::chrono::steady_clock::time_point since;
    std::vector<std::uint8_t> got;
    bool challenged = false;
    std::uint32_t from_rank = 0;
    std::uint32_t to_rank = 0;
    std::uint32_t stream = 0;
    std::uint64_t set = 0;
    int peer = -1;  // the owner's index of the connector, once it knows it
    security::Nonce connector_nonce{};
    security::Nonce acceptor_nonce{};
    // A stream a relay offered: the relay's handshake comes first.
    std::unique_ptr<relay::Dialer> dialer;

    // Reads towards the message awaited (the Hello, then the Response):
    // whole, not yet (again), or the connector closed or broke the
    // connection (closed).
    Read read();
    // A whole Hello: takes what it claims (from_rank, to_rank, stream, set);
    // fails when it is not a Strata Hello or names a stream above
    // kLaneStream (stripes.hpp: the premium lane, after the stripe streams).
    base::Status hello_take();
    // Whether the Hello taken claims a link to rank `me` from another rank
    // among `count` from `first` (the job: 0 and its size; another job's
    // processes: their set ranks); fails saying the ranks are invalid.
    base::Status claim_check(std::uint32_t me, std::uint32_t first, std::uint32_t count) const;
    // Once the owner checked the claimed ranks against the set's: sends the
    // challenge under the set's `key`; fails saying why the connection must
    // be dropped.
    base::Status challenge(const std::string& key);
    // A whole Response: whether it proves `key`.
    bool proven(const std::string& key) const;
    // Sends the Answer; false when the connection broke.
    bool answer(bool accept) const;
};

}  // namespace strata::dev::tcp
