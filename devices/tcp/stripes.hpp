// Parallel streams: a link's large payloads striped over several TCP
// connections, as MPICH-G2's parallel sockets and GridFTP do, so that a
// wide-area link is not limited to what one window-limited TCP stream moves.
//
// A link's first connection (stream 0) carries every header and every packet
// whose payload is at most the stripe unit, in order, as without streams.
// A larger payload, sent while the sender uses n > 1 streams to that peer,
// goes as
//   stream 0:   plan record, the packet's header, then its stripes i = 0, n, 2n, ...
//   stream k:   its stripes i = k, n + k, ...   (k = 1 .. n-1)
// where stripe i is the bytes [i * unit, min((i + 1) * unit, total)) of the
// payload, each preceded by a stripe record. Extra streams are opened by the
// sender on demand (Hello with its stream index), carry data one way only,
// and go through the same job-key challenge and TLS as stream 0. Only the
// sender chooses n and the unit: the plan record carries both.
//
// The receiver takes the payload in order: stripe i from stream i mod n, then
// stripe i + 1, and back to stream 0 after the last one. Every stream is
// FIFO and the sender queues the stripes of one packet before anything that
// follows it, so the next bytes the receiver needs are always at the head of
// the stream it reads from: MPI's order per pair of processes holds whatever
// n is, and changing n between packets reorders nothing. Payloads still land
// in order, so chunked landings (non-contiguous receives) work unchanged.
//
// The records have a header's size, and their first byte is a packet type
// adi never uses (adi/envelope.hpp), so the receiver tells them from headers.
#pragma once

#include <sys/uio.h>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "adi/envelope.hpp"
#include "base/little_endian.hpp"
#include "wireup/emulation.hpp"

namespace strata::dev::tcp {

inline constexpr std::uint8_t kRecordPlan = adi::kMethodRecordFirst;
inline constexpr std::uint8_t kRecordStripe = adi::kMethodRecordFirst + 1;

// The premium lane (quality of service, MPIX_QOS in mpi.h): one more
// one-way connection from the sender, stream kLaneStream, that carries whole
// packets (never stripes) of the communicators the sender gave premium
// service, marked DSCP EF; stream 0 and its stripes are the bulk lane. A
// communicator's packets all take one lane, so MPI's order holds within each;
// when the sender moves a communicator to the other lane, it puts a fence
// record (seq N) on the lane it leaves and a wait record (seq N) on the lane
// it joins before the communicator's next packet: the receiver takes nothing
// after the wait from that lane until it has taken fence N from the other.
// Records have no payload; fence numbers grow by one per move, per sender.
inline constexpr std::uint8_t kRecordFence = adi::kMethodRecordFirst + 2;
inline constexpr std::uint8_t kRecordWait = adi::kMethodRecordFirst + 3;
inline constexpr std::uint32_t kLaneStream = wireup::kStreamsMax;  // after every stripe stream

// The receiver's side of a peer's fences: the last one taken on each lane
// (0: bulk, 1: premium).
struct LaneFences {
    std::uint64_t passed[2] = {0, 0};
    static int lane_of(std::uint32_t stream) { return stream == kLaneStream ? 1 : 0; }
    // Whether a wait record `n` on `lane` lets what follows it go.
    bool may_pass(int lane, std::uint64_t n) const { return passed[1 - lane] >= n; }
};

struct StripeRecord {
    std::uint8_t type = 0;     // kRecordPlan or kRecordStripe
    std::uint8_t streams = 0;  // plan: n
    std::uint16_t reserved = 0;
    std::uint32_t unit = 0;    // plan: the stripe unit
    std::uint64_t seq = 0;     // the striped packet's number on this link (per sender)
    std::uint64_t offset = 0;  // stripe: where its bytes go in the payload
    std::uint64_t length = 0;  // stripe: how many follow
    std::uint64_t total = 0;   // plan and stripe: the payload's size
};
static_assert(sizeof(StripeRecord) == sizeof(adi::Header), "a record reads as a header does");

// A record on the wire: this layout, multi-byte fields little-endian, as a
// header's (adi::to_wire). In place, both ways; nothing on a little-endian host.
constexpr void to_wire(StripeRecord& r) {
    if constexpr (std::endian::native == std::endian::big) {
        r.reserved = base::byte_swap(r.reserved);
        r.unit = base::byte_swap(r.unit);
        r.seq = base::byte_swap(r.seq);
        r.offset = base::byte_swap(r.offset);
        r.length = base::byte_swap(r.length);
        r.total = base::byte_swap(r.total);
    }
}
constexpr void from_wire(StripeRecord& r) { to_wire(r); }

inline std::uint64_t stripe_count(std::uint64_t total, std::uint64_t unit) { return (total + unit - 1) / unit; }

// The stripe `i` of a plan: where it starts and how long it is.
inline std::uint64_t stripe_offset(const StripeRecord& plan, std::uint64_t i) { return i * plan.unit; }
inline std::uint64_t stripe_length(const StripeRecord& plan, std::uint64_t i) {
    const std::uint64_t at = i * plan.unit;
    return plan.total - at < plan.unit ? plan.total - at : plan.unit;
}

// Appends to `out` the pieces of `data` (a gather list) that hold the bytes
// [offset, offset + length) of its concatenation.
inline void iov_slice(std::span<const iovec> data, std::size_t offset, std::size_t length, std::vector<iovec>& out) {
    for (const iovec& v : data) {
        if (length == 0) break;
        if (offset >= v.iov_len) {
            offset -= v.iov_len;
            continue;
        }
        const std::size_t take = v.iov_len - offset < length ? v.iov_len - offset : length;
        out.push_back(iovec{static_cast<char*>(v.iov_base) + offset, take});
        length -= take;
        offset = 0;
    }
}

}  // namespace strata::dev::tcp
