// The relay protocol: how the ranks of a private site, and the relays of two
// sites, reach each other through the site's relay (docs/RELAYS.md).
//
// A site whose compute nodes cannot be reached from other sites runs one
// relay on its gateway (the login node), started by its gatekeeper. Every
// connection to a relay opens with a fixed-size exchange that proves the job
// key both ways (security/challenge.hpp), the relay's listener being the only
// door of the job that stays open to other sites:
//
//   connector -> relay   Open      what the connection is for (72 B)
//   relay -> connector   Challenge the relay's nonce and proof (64 B)
//   connector -> relay   Response  the connector's proof (32 B)
//   relay -> connector   Answer    u32: 1 = accepted, 0 = refused (4 B)
//
// The proofs bind the Open's kind, ranks and stream, so an Open cannot be
// replayed as another. What follows depends on the kind:
//   attach    a rank of the site, for as long as it lives: the relay sends
//             it Notices (below) on this connection, nothing else;
//   pair      a rank of the site opens stream `stream` of its link to rank
//             `to`, which sits behind the relay at `relay`: after the
//             Answer the connection carries that link's bytes end to end
//             (the ranks' own handshake first, then their data, TLS if the
//             link has it), the relays forwarding them without looking;
//   accept    a rank of the site takes the pair stream a Notice offered it
//             (`token`): the other end of such a connection;
//   link      a peer relay: the connection becomes a link between the two
//             relays that carries many pair streams as frames (below);
//   control   a rank of the site, to mpirun: the relay connects to mpirun's
//             wire-up listener (the one address it was started with, and no
//             other) and forwards both ways; the rank and mpirun then hold
//             their own conversation (wireup/protocol.hpp), which proves the
//             job key end to end;
//   egress    a rank of the site opens stream `stream` of its link to rank
//             `to` at a public site, whose listener is `relay`: the relay
//             connects there and forwards both ways (the ranks' handshake,
//             then their data, pass it unread);
//   ingress   a rank of a public site opens stream `stream` of its link to
//             rank `to`, attached here: the relay offers it to `to` (an
//             accept Notice) and forwards between the two connections.
// Where two relays cannot reach each other, mpirun's hub (a relay run by
// mpirun, which every relay can reach, as it reaches mpirun's wire-up
// listener) joins them; it serves only these and accept:
//   hub_attach  a relay, for as long as it lives: `relay` is its own
//               endpoint (as its ranks publish it); the hub sends it Notices;
//   hub_link    a relay that could not dial the relay at `relay`: the hub
//               offers the connection to that relay (an accept Notice, which
//               it takes with an accept Open to the hub) and forwards between
//               the two; the relays then run a link's handshake over it as if
//               they were connected directly.
// A link's Open carries the dialling relay's own endpoint in `relay` (0
// when it does not know it), so the relay it dials uses the same link for
// its own streams to it.
//
// On a link, pair streams are multiplexed in frames (12-byte header: u8
// type, 3 zero bytes, u32 stream id, u32 payload length). The relay that
// dialled the link numbers its streams odd, the other even. Every stream
// has a window of kWindow bytes in each direction: a relay sends DATA only
// within the credit the other has granted and grants it again (CREDIT) as
// the bytes leave towards their rank, so one pair that floods cannot take
// the link, or the relay's memory, from the others. A relay forwards what
// it reads at once (cut-through): it never waits for a message to be whole.
//
// Every integer is little-endian. Every decoder takes exactly its message's
// bytes and checks every field it can; the relay reads these from anyone who
// connects, so they are fuzzed (tests/fuzz/fuzz_relay_protocol.cpp).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "security/challenge.hpp"

namespace strata::relay {

inline constexpr std::uint32_t kOpenMagic = 0x314c5253;  // "SRL1"
inline constexpr std::size_t kOpenSize = 72;
inline constexpr std::size_t kChallengeSize = security::kNonceBytes + security::kProofBytes;
inline constexpr std::size_t kResponseSize = security::kProofBytes;
inline constexpr std::size_t kAnswerSize = 4;
inline constexpr std::size_t kNoticeSize = 24;
inline constexpr std::size_t kFrameHeaderSize = 12;
// A DATA frame carries at most this much; a stream's window in each direction.
inline constexpr std::uint32_t kChunk = 64 * 1024;
inline constexpr std::uint32_t kWindow = 512 * 1024;
// A RESET frame's reason, at most.
inline constexpr std::uint32_t kReasonMax = 512;

enum class Kind : std::uint32_t {
    attach = 1, pair = 2, accept = 3, link = 5, control = 6, egress = 7, ingress = 8,  // 4: none
    hub_attach = 9, hub_link = 10
};

// An IPv4 address and port, in host order (the TCP method publishes IPv4).
struct Endpoint {
    std::uint32_t address = 0;
    std::uint16_t port = 0;
    bool operator==(const Endpoint&) const = default;
};
// "a.b.c.d:port"; nullopt when it is not one.
std::optional<Endpoint> endpoint_parse(const std::string& text);
std::string endpoint_text(const Endpoint& e);

struct Open {
    Kind kind = Kind::attach;
    std::uint32_t from = 0;    // the connecting rank
    std::uint32_t to = 0;      // pair, egress, ingress: the rank at the other end
    std::uint32_t stream = 0;  // pair: which stream of the link (0: the link itself)
    std::uint64_t token = 0;   // accept: the Notice's token
    security::Nonce nonce{};
    // pair: the relay `to` sits behind; egress: `to`'s listener; link,
    // hub_attach: the connecting relay's own; hub_link: the relay to reach.
    Endpoint relay;
};
std::array<std::uint8_t, kOpenSize> open_encode(const Open& o);
// nullopt: not an Open (another magic, an unknown kind, a nonzero pad).
std::optional<Open> open_decode(std::span<const std::uint8_t, kOpenSize> bytes);

// The proofs of the handshake, over what the Open claims.
security::Proof open_proof(const std::string& job_key, security::ProofRole role, const Open& o,
                           const security::Nonce& relay_nonce);

// relay -> attached rank.
enum class NoticeType : std::uint32_t {
    accept = 1,     // rank `from` opened stream `stream` of its link to you: connect with kind accept, `token`
};
struct Notice {
    NoticeType type = NoticeType::accept;
    std::uint32_t from = 0;
    std::uint32_t stream = 0;
    std::uint64_t token = 0;
};
std::array<std::uint8_t, kNoticeSize> notice_encode(const Notice& n);
std::optional<Notice> notice_decode(std::span<const std::uint8_t, kNoticeSize> bytes);

// Frames on a link between relays.
enum class FrameType : std::uint8_t {
    open = 1,    // payload: u32 from, u32 to, u32 stream (12 B)
    data = 2,    // payload: 1..kChunk bytes of the stream
    credit = 3,  // payload: u32 bytes the sender may send more
    close = 4,   // no payload: the sender's direction of the stream ended (the rank closed it)
    reset = 5,   // payload: why (0..kReasonMax bytes of text): the stream is over both ways
    bye = 6,     // id 0, no payload: the sender stops (its subjob ended); the link ends with it
};
struct FrameHeader {
    FrameType type = FrameType::data;
    std::uint32_t id = 0;
    std::uint32_t length = 0;
};
std::array<std::uint8_t, kFrameHeaderSize> frame_header_encode(const FrameHeader& h);
// nullopt: an unknown type, nonzero pad bytes, or a length its type does
// not allow (the link must then be dropped).
std::optional<FrameHeader> frame_header_decode(std::span<const std::uint8_t, kFrameHeaderSize> bytes);

struct OpenPayload {
    std::uint32_t from = 0;
    std::uint32_t to = 0;
    std::uint32_t stream = 0;
};
std::array<std::uint8_t, 12> open_payload_encode(const OpenPayload& p);
OpenPayload open_payload_decode(std::span<const std::uint8_t, 12> bytes);

// Little-endian u32/u64 at `p`.
std::uint32_t le32(const std::uint8_t* p);
std::uint64_t le64(const std::uint8_t* p);
void le32_put(std::uint8_t* p, std::uint32_t v);
void le64_put(std::uint8_t* p, std::uint64_t v);

}  // namespace strata::relay
