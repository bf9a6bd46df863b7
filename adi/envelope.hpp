// The message envelope: the fixed header that precedes every packet a method
// carries between two processes. Devices read only `type` and the payload
// length (through wire_payload) to frame packets; everything else is adi's.
#pragma once

#include <cstdint>

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
