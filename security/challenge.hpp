// Challenge-response on the per-job key.
//
// Every connection inside a job (a rank checking in with mpirun, one rank
// linking to another over TCP) proves both ends know the job key without
// the key travelling: the connecting side sends a fresh nonce, the accepting
// side answers with its own nonce and a proof, and the connecting side
// answers with its proof. A proof is HMAC-SHA256 under the key of
//
//     role || 0x00 || connector nonce || acceptor nonce || le32(a) || le32(b) [|| le32(c)]
//
// where the role names which side made it (so a proof cannot be reflected
// back as the other side's) and a, b bind what the connection claims (the
// two ranks of a link; the rank and pid of a Checkin). The acceptor's nonce
// is new for every connection, so a recorded handshake replayed later fails.
// docs/SECURITY.md gives the threat model.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace strata::security {

inline constexpr std::size_t kNonceBytes = 32;
inline constexpr std::size_t kProofBytes = 32;
using Nonce = std::array<std::uint8_t, kNonceBytes>;
using Proof = std::array<std::uint8_t, kProofBytes>;

// Who made a proof. The names are part of the protocol.
enum class ProofRole {
    control_mpirun,  // mpirun answering a rank's Hello
    control_rank,    // a rank's Checkin
    control_names,   // a rank's request to mpirun's name service
    link_acceptor,   // the rank that accepted a TCP link
    link_connector,  // the rank that opened it
    link_tls_key,    // not a proof: the TLS key of a link (devices/tcp/tls_link.hpp)
    relay_acceptor,  // a site's relay answering a connection (relay/protocol.hpp)
    relay_connector, // a rank or a peer relay connecting to a relay
    port_acceptor,   // MPI_Comm_accept's root answering a client (mpi/port.cpp)
    port_connector,  // MPI_Comm_connect's root proving the port's secret
    port_set_key,    // not a proof: the key of the connection's links (adi::PeerSet)
    port_credential, // what a client's grid credential signs (mpi/port.cpp)
};

// Fills `out` from the OpenSSL CSPRNG; false if it is not seeded.
bool nonce_fill(Nonce& out);

Proof proof_make(const std::string& key, ProofRole role, const Nonce& connector, const Nonce& acceptor,
                 std::uint32_t a, std::uint32_t b);
// The same with a third word, le32(c), after b: a TCP link's extra stream
// (devices/tcp) binds its index so.
Proof proof_make(const std::string& key, ProofRole role, const Nonce& connector, const Nonce& acceptor,
                 std::uint32_t a, std::uint32_t b, std::uint32_t c);

// Constant-time comparison.
bool proof_equal(const Proof& x, const Proof& y);

}  // namespace strata::security
