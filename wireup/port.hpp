// Ports (MPI-2 §5.4): the names MPI_Open_port hands out and the
// conversation by which MPI_Comm_connect's root joins MPI_Comm_accept's.
//
// A port name is a capability: "strata-port:1:ADDRESS[,ADDRESS...]:PORT:ID:SECRET"
// with the listener's addresses as a card writes them (devices/tcp/
// network.hpp), ID 16 and SECRET 64 hexadecimal digits. Whoever holds the
// name may connect; nobody else can, since the secret never travels: the two
// roots prove it to each other by the challenge-response of
// security/challenge.hpp (roles port_acceptor, port_connector) and derive
// from it, with both nonces, the key of the links between the two jobs'
// processes (role port_set_key; adi::PeerSet).
//
// Conversation, one TCP connection from the client's root to the port, frames
// as base/wire.hpp describes them:
//   client -> server  Hello      port id, the client's nonce, its site and
//                                STRATA_EMULATION
//   server -> client  Challenge  the server's nonce and its proof
//   client -> server  Offer      the client's proof, its group's free context
//                                pairs and cards, and, when the client has a
//                                grid credential, its certificates and their
//                                key's signature of the conversation
//   server -> client  Answer     the context pair and set id of the new
//                                connection, the server group's cards and
//                                its job's STRATA_EMULATION
//   client -> server  Confirm    (empty) the client took the answer
// or, instead of a Challenge or an Answer, a Refusal saying why. The server
// reads nothing from a client that has not proven the secret beyond what
// fits a Hello and an Offer (kMaxFrame), and gives each step kStepTimeout.
//
// Wide-area emulation between the jobs (emulated_latency): when both jobs
// emulate alike, the server holds each frame it receives, and each it sends,
// one emulated latency between the two roots' sites, so the client sees the
// conversation's round trips as across that link; the links between the two
// groups' processes are shaped too (devices/tcp/emulator.hpp).
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"
#include "base/unique_fd.hpp"
#include "security/challenge.hpp"
#include "security/x509.hpp"
#include "wireup/protocol.hpp"

namespace strata::wireup::port {

using Secret = std::array<std::uint8_t, 32>;

struct Name {
    std::string address;  // "ADDRESS[,ADDRESS...]:PORT"
    std::uint64_t id = 0;
    Secret secret{};
};

// The one-way latency (seconds) emulated between the roots of two jobs at
// sites `my_site` and `their_site` whose STRATA_EMULATION texts are `mine`
// and `theirs`: the wide-area link's between two sites when both jobs give
// the same text and it shapes that link; otherwise (or at one site) zero.
double emulated_latency(const std::string& mine, const std::string& theirs, const std::string& my_site,
                        const std::string& their_site);

std::string name_format(const Name& n);
// Reads what name_format wrote; fails saying what is wrong. Linear in the
// text (fuzzed: tests/fuzz/fuzz_port.cpp).
base::Result<Name> name_parse(std::string_view text);

inline constexpr std::uint32_t kMaxFrame = 16u << 20;
// How long one step of the conversation may take once it started.
inline constexpr auto kStepTimeout = std::chrono::seconds(30);

enum class Type : std::uint8_t { hello = 1, challenge = 2, offer = 3, answer = 4, confirm = 5, refusal = 6 };

// Each message declares its fields (base/wire.hpp); port::encode frames it
// and base::wire::decode<M> reads its payload back.
struct Hello {
    std::uint64_t id = 0;
    security::Nonce nonce{};
    std::string site;       // the client root's site label
    std::string emulation;  // the client's job's STRATA_EMULATION
};
constexpr auto wire_fields(std::type_identity<Hello>) {
    namespace w = base::wire;
    return std::tuple{w::field("id", &Hello::id), w::field("nonce", &Hello::nonce), w::field("site", &Hello::site),
                      w::field("emulation", &Hello::emulation)};
}
// The server's nonce and proof: the payload of the wire-up protocol's Challenge.
using Challenge = wireup::Challenge;
struct Offer {
    security::Proof proof{};
    std::vector<std::uint8_t> mask;  // mpi::ContextPool's wire mask
    std::vector<BusinessCard> cards;
    std::string certificates;            // PEM, leaf first; empty: no credential
    std::vector<std::uint8_t> signature;  // credential_sign's
};
constexpr auto wire_fields(std::type_identity<Offer>) {
    namespace w = base::wire;
    return std::tuple{w::field("proof", &Offer::proof), w::field("mask", &Offer::mask), w::field("cards", &Offer::cards),
                      w::field("certificates", &Offer::certificates), w::field("signature", &Offer::signature)};
}
inline std::string wire_check(const Offer& m) { return m.cards.empty() ? "an offer without cards" : ""; }
struct Answer {
    std::uint32_t pair = 0;
    std::uint64_t set = 0;
    std::vector<BusinessCard> cards;
    std::string emulation;  // the server's job's STRATA_EMULATION
};
constexpr auto wire_fields(std::type_identity<Answer>) {
    namespace w = base::wire;
    return std::tuple{w::field("pair", &Answer::pair), w::field("set", &Answer::set), w::field("cards", &Answer::cards),
                      w::field("emulation", &Answer::emulation)};
}
inline std::string wire_check(const Answer& m) {
    if (m.cards.empty()) return "an answer without cards";
    return m.set == 0 ? "an answer of set 0" : "";
}
// Why the server turned the client away.
enum class Refused : std::uint32_t {
    unknown_port = 1,  // no port of that id here (closed)
    secret = 2,        // the client's proof was wrong
    no_context = 3,    // no context pair is free in both groups
    malformed = 4,     // the client broke the conversation
    identity = 5,      // the server accepts only other certificate subjects (the last kind)
};
struct Refusal {
    Refused why = Refused::malformed;
    std::string text;
};
constexpr auto wire_fields(std::type_identity<Refusal>) {
    namespace w = base::wire;
    return std::tuple{w::within("why", &Refusal::why, Refused::unknown_port, Refused::identity),
                      w::field("text", &Refusal::text)};
}

// Each message's frame type (Type{}: not a message of this conversation).
template <class M>
inline constexpr Type kTypeOf = Type{};
template <>
inline constexpr Type kTypeOf<Hello> = Type::hello;
template <>
inline constexpr Type kTypeOf<Challenge> = Type::challenge;
template <>
inline constexpr Type kTypeOf<Offer> = Type::offer;
template <>
inline constexpr Type kTypeOf<Answer> = Type::answer;
template <>
inline constexpr Type kTypeOf<Refusal> = Type::refusal;

template <class M>
std::vector<std::uint8_t> encode(const M& m) {
    return base::wire::frame_of<kTypeOf<M>>(m);
}
inline std::vector<std::uint8_t> encode_confirm() { return base::wire::frame_empty(static_cast<std::uint8_t>(Type::confirm)); }

// The proofs of the two roots, and the key of the connection's links.
security::Proof port_proof(const Secret& secret, security::ProofRole role, const security::Nonce& client,
                           const security::Nonce& server);
std::string set_key(const Secret& secret, const security::Nonce& client, const security::Nonce& server);

// A client's grid credential (security/tls.hpp says where it is found): the
// proxy, else the user's certificate with a key that is not encrypted (a
// connect never asks for a pass phrase). nullopt when there is none; a
// credential that is there but unusable is an error.
struct Credential {
    std::string certificates;  // PEM, leaf first (never the key)
    security::PkeyPtr key;
};
base::Result<std::optional<Credential>> credential_find();
// The credential's signature of this conversation: of the port proof of role
// port_credential, so that it proves nothing to a server of another port.
base::Result<std::vector<std::uint8_t>> credential_sign(const Credential& c, const Secret& secret,
                                                        const security::Nonce& client, const security::Nonce& server);
// The server's check of what an Offer presents: the chain verifies against
// the trusted CAs ($X509_CERT_DIR, else ~/.strata/certificates; proxy rules,
// revocation) and its leaf signed this conversation. Returns the identity
// (the end-entity subject, Globus form) or why not.
base::Result<std::string> credential_check(const std::string& certificates, const std::vector<std::uint8_t>& signature,
                                           const Secret& secret, const security::Nonce& client,
                                           const security::Nonce& server);

// One end of the conversation over a blocking-free socket: each wait polls
// the socket in short slices, calling `idle` between them (the MPI library
// keeps its progress engine going), until `deadline`.
class Channel {
public:
    using Idle = std::function<void()>;
    using Clock = std::chrono::steady_clock;

    explicit Channel(base::UniqueFd fd) : fd_(std::move(fd)) {}
    int fd() const { return fd_.get(); }
    base::Status send(const std::vector<std::uint8_t>& frame);
    // The next frame; fails when the peer closed or broke the connection, or
    // at the deadline ("timed out").
    base::Result<base::wire::RawFrame> receive(Clock::time_point deadline, const Idle& idle);

private:
    base::UniqueFd fd_;
    base::wire::FrameSplitter split_{1, static_cast<std::uint8_t>(Type::refusal), kMaxFrame};
};

// Connects to the first of `addresses` (IPv4, preferred first) that answers
// at `port`, by `deadline`. Fails saying why (refused: nobody listens there).
base::Result<Channel> dial(const std::vector<std::string>& addresses, int port, Channel::Clock::time_point deadline,
                           const Channel::Idle& idle);
// The next connection on listener `fd` (non-blocking), by `deadline` (none:
// waits until one comes).
base::Result<Channel> accept_next(int fd, std::optional<Channel::Clock::time_point> deadline, const Channel::Idle& idle);

}  // namespace strata::wireup::port
