// One request type for every communication the engine tracks.
//
// A request is complete when `pending` reaches zero: each outstanding event
// (data handed to the device, a sync_ack, a cancel answer, a payload landing)
// holds one count. The MPI layer owns requests through its handle table; the
// engine knows them by `id` on the wire (never by address) so a forged or
// stale id from the network cannot reach freed memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <variant>
#include <vector>

#include "adi/segment.hpp"

namespace strata::adi {

class Method;

inline constexpr int kAnySource = -2;
inline constexpr int kAnyTag = -1;
inline constexpr int kProcNull = -1;

// What went wrong with one request; the MPI layer maps it to an error class.
enum class Error : std::uint8_t { none, truncated, peer_failed };

struct Status {
    int source = kAnySource;
    int tag = kAnyTag;
    Error error = Error::none;
    bool cancelled = false;
    std::uint64_t bytes = 0;
    // The world rank of the sender when `bytes` counts a message as it came
    // (a probe's status), or -1: then bytes count the receiver's own form.
    int probed_peer = -1;
};

enum class SendMode : std::uint8_t { standard, buffered, synchronous, ready };

struct SendState {
    SendMode mode = SendMode::standard;
    int world_peer = -1;
    Method* method = nullptr;
    bool rendezvous = false;
    bool awaiting_cts = false;
    bool awaiting_sync = false;
    bool data_in_flight = false;
    bool cancel_asked = false;
    // Non-contiguous data: packed into the request's `stage` just before it
    // leaves, whole for an eager message, otherwise chunk by chunk into a few
    // slots (pipelined rendezvous data).
    bool pipelined = false;
    std::uint64_t receiver_req = 0;  // from the cts
    std::size_t next = 0;            // packed bytes handed to the method so far
    int chunks_in_flight = 0;
};

struct RecvState {
    bool posted = false;      // sits in the posted queue
    bool matched = false;     // a message was bound to it
    int source = -1;          // world rank it waits on (kAnySource: any)
    int matched_peer = -1;    // world rank of the matched sender
    void* unexpected = nullptr;  // the still-arriving unexpected message it waits for
    std::uint64_t msg_length = 0;  // size of the matched message, from its envelope
    std::uint64_t landed = 0;      // payload bytes of the message that arrived so far
    // Non-contiguous receives: chunks land in the request's `stage`, which
    // holds the packed bytes from offset land_base on, and are unpacked as
    // they fill it.
    std::uint64_t land_base = 0;
    std::uint8_t flags = 0;  // the matched message's (its send's Request::flags)
};

enum class Kind : std::uint8_t { send, recv };

struct Request {
    std::uint64_t id = 0;
    Kind kind = Kind::send;
    int pending = 0;
    Status status;

    // Envelope. For a send: context, our rank in the communicator (source), tag.
    // For a receive: context, the wanted source rank (or kAnySource), tag (or kAnyTag).
    int context = 0;
    int rank = 0;
    int tag = 0;
    // For a send: bits its envelope carries to the receive that matches it
    // (RecvState::flags), for the layer above; the engine only carries them.
    std::uint8_t flags = 0;

    // Contiguous bytes to send from, or to receive into (capacity).
    std::byte* buf = nullptr;
    std::size_t bytes = 0;
    // Set instead of `buf` when the data is not contiguous; `bytes` is then
    // its packed size.
    std::shared_ptr<Segment> segment;
    // Packed bytes of a segment's data on their way (SendState, RecvState),
    // kept by the request rather than its state so that request_destroy
    // sees whether there is memory to free without asking the variant.
    std::vector<std::byte> stage;

    std::variant<SendState, RecvState> state;

    std::uint64_t seq = 0;  // posting order, for matching ANY_SOURCE fairly

    // Which methods the engine must poll until this request completes, a bit
    // set over its method indexes: the one method of its peer, or for a
    // receive from MPI_ANY_SOURCE every method that reaches a process of its
    // communicator; 0 once nothing is awaited. The engine's bookkeeping for
    // selective polling.
    std::uint32_t need = 0;

    // Owner's choices: `released` means nobody will wait for it (destroy on
    // completion); `on_complete` runs once when it completes (e.g. to free a
    // region of the MPI_Bsend buffer).
    bool released = false;
    std::function<void()> on_complete;

    bool complete() const { return pending == 0; }
    SendState& send() { return std::get<SendState>(state); }
    RecvState& recv() { return std::get<RecvState>(state); }
};

}  // namespace strata::adi
