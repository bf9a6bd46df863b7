// The message envelope: the fixed header that precedes every packet a method
// carries between two processes. Devices read only `type` and the payload
// length (through wire_payload) to frame packets; everything else is adi's.
#pragma once

#include <bit>
#include <cstdint>

#include "base/little_endian.hpp"

namespace strata::adi {

enum class Packet : std::uint8_t {
    eager = 1,       // envelope + whole message
    eager_sync = 2,  // as eager, receiver answers sync_ack once matched (Ssend)
    rts = 3,         // rendezvous request to send: envelope only, `length` = message size
    cts = 4,         // clear to send: receiver_req names the posted receive
    // Rendezvous payload for the request named by receiver_req: the whole
    // message at once, or (non-contiguous data, packed as it goes) several
    // consecutive packets that add up to the size the rts announced.
    rndv_data = 5,
    sync_ack = 6,    // the eager_sync message named by sender_req was matched
    cancel_req = 7,  // sender asks to withdraw its unmatched message sender_req
    cancel_ack = 8,  // answer; flags bit 0 = withdrawn
};

// Packet types from this value up are never adi's: a method may frame its own
// records among the packets it carries with them (devices/tcp/stripes.hpp), in
// the place of a header and of a header's size.
inline constexpr std::uint8_t kMethodRecordFirst = 0xF0;

struct Header {
    Packet type;
    std::uint8_t flags;
    std::uint16_t reserved;
    std::int32_t context;  // communicator context id
    std::int32_t source;   // sender's rank in that communicator
    std::int32_t tag;
    std::uint64_t length;        // message size in bytes (rndv_data: this packet's payload)
    std::uint64_t sender_req;    // sender's request id (opaque to the receiver)
    std::uint64_t receiver_req;  // receiver's request id (opaque to the sender)
};
static_assert(sizeof(Header) == 40, "the envelope is part of the wire format");

// On the wire a header has this layout with every multi-byte field
// little-endian, whatever the host, so that processes of different byte
// order can share a link. to_wire turns a header in place into its wire
// form, from_wire a wire form back (a byte swap is its own inverse, so they
// are one operation, named for the direction the caller means). On a
// little-endian host both do nothing and compile to nothing.
constexpr void to_wire(Header& h) {
    if constexpr (std::endian::native == std::endian::big) {
        h.reserved = base::byte_swap(h.reserved);
        h.context = base::byte_swap(h.context);
        h.source = base::byte_swap(h.source);
        h.tag = base::byte_swap(h.tag);
        h.length = base::byte_swap(h.length);
        h.sender_req = base::byte_swap(h.sender_req);
        h.receiver_req = base::byte_swap(h.receiver_req);
    }
}
constexpr void from_wire(Header& h) { to_wire(h); }

// For a sender that hands the header's own bytes to the socket: `h` itself on
// a little-endian host, so the send path copies nothing; else `scratch`,
// filled with h's wire form.
inline const Header& wire_bytes(const Header& h, Header& scratch) {
    if constexpr (std::endian::native == std::endian::little) {
        return h;
    } else {
        scratch = h;
        to_wire(scratch);
        return scratch;
    }
}

// Bytes that follow the header on the wire.
inline std::uint64_t wire_payload(const Header& h) {
    switch (h.type) {
        case Packet::eager:
        case Packet::eager_sync:
        case Packet::rndv_data:
            return h.length;
        default:
            return 0;
    }
}

inline bool carries_payload(Packet p) {
    return p == Packet::eager || p == Packet::eager_sync || p == Packet::rndv_data;
}

}  // namespace strata::adi
