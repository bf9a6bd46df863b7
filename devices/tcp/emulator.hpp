// Wide-area emulation on the TCP method's links (wireup/emulation.hpp).
//
// The sender stamps every packet on a shaped link with the time the emulated
// link would deliver it: the packet starts when the link is free, occupies it
// for bytes/bandwidth, and arrives one latency after it has left. With a
// window (window_kib), each TCP connection carrying the link (a stream:
// stripes.hpp) is paced too, as a window-limited TCP stream is: at most
// window bytes unacknowledged, so at most window / RTT bytes per second with
// RTT = 2 x latency. A packet on a stream starts when the stream's previous
// packet has gone at that rate, occupies the stream for bytes x RTT / window
// and, from its start, the shared link for bytes / bandwidth; it has left
// when both are done (pace_due below). Links are
// shared as on a real grid (wireup/shared_links.hpp): every process of a site
// sending to another site uses one wide-area link (per ordered pair of
// sites), every process of a machine sending to the other machines of its
// site that machine's local-area interface, and with an uplink every
// process of a site sending to any other site that site's uplink too. The stamp travels as 8 bytes
// (little-endian) before the packet's header (only on shaped links; both ends decide alike
// from the cards). The receiver reads packets as they come, holds each whole
// until its stamp, and only then hands it to the engine, in order per peer.
//
// Stamps are CLOCK_MONOTONIC times, which every process of one machine shares:
// emulation is for grids laid out on one machine, and configure() refuses a
// shaped link to a process on another.
//
// The model: links are shared by their senders; a receiver takes from several
// links at once at each one's rate (a site receiving from two sites gets both
// links' bandwidth); a window paces each stream at a steady rate (no slow
// start), and there is no loss or jitter.
//
// Premium service (MPIX_QOS, stripes.hpp's premium lane): a process that
// reserves R bytes/s on a wide-area link (Emulator::qos_reserve; admitted
// only while all reservations on the link stay within its premium capacity,
// wireup::premium_capacity) sends its premium lane's packets through a pipe
// of its own at R, from the link's reserved share, and never queues behind
// the link's bulk traffic; bulk traffic shares what the reservations leave
// (bandwidth minus their sum), as a DiffServ network polices expedited
// forwarding at its reservation and serves it first. The share reserved is
// not lent to bulk traffic while unused. The same holds for an uplink.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <unordered_map>
#include <string>
#include <vector>

#include "adi/method.hpp"
#include "devices/tcp/stripes.hpp"
#include "wireup/emulation.hpp"
#include "wireup/shared_links.hpp"

namespace strata::dev::tcp {

// One shaped link as the sender paces it.
struct Pace {
    double latency_ns = 0;
    double ns_per_byte = 0;         // on the shared link; 0: unlimited
    double window_ns_per_byte = 0;  // on one stream, RTT / window; 0: no window
    double uplink_ns_per_byte = 0;  // on the sender's site's uplink; 0: none
};

// The stamp of a packet of `bytes` handed to a stream at `now` (ns): the
// arithmetic of Emulator::stamp() without the clock and the shared table.
// `stream_free` is when the stream's window lets the next packet start (it
// moves on); `reserve(start, ns)` reserves the shared link for `ns` from
// `start` or from when it is free, and returns when that ends.
template <class Reserve>
std::uint64_t pace_due(const Pace& p, std::uint64_t now, std::size_t bytes, std::uint64_t& stream_free,
                       Reserve&& reserve) {
    const auto on_link = static_cast<std::uint64_t>(static_cast<double>(bytes) * p.ns_per_byte);
    const auto latency = static_cast<std::uint64_t>(p.latency_ns);
    if (p.window_ns_per_byte <= 0) return reserve(now, on_link) + latency;
    const std::uint64_t start = now > stream_free ? now : stream_free;
    stream_free = start + static_cast<std::uint64_t>(static_cast<double>(bytes) * p.window_ns_per_byte);
    const std::uint64_t left = reserve(start, on_link);
    return (left > stream_free ? left : stream_free) + latency;
}

// The same with the sender's site's uplink (`uplink(start, ns)` reserves
// it as `reserve` does the link): a packet between sites occupies both from
// its start, each at its own rate, and has left when both are done; every
// process of the site shares the uplink whatever its destination.
template <class Reserve, class ReserveUplink>
std::uint64_t pace_due(const Pace& p, std::uint64_t now, std::size_t bytes, std::uint64_t& stream_free,
                       Reserve&& reserve, ReserveUplink&& uplink) {
    const auto on_uplink = static_cast<std::uint64_t>(static_cast<double>(bytes) * p.uplink_ns_per_byte);
    return pace_due(p, now, bytes, stream_free, [&](std::uint64_t start, std::uint64_t ns) {
        const std::uint64_t left = reserve(start, ns);
        if (p.uplink_ns_per_byte <= 0) return left;
        const std::uint64_t up = uplink(start, on_uplink);
        return left > up ? left : up;
    });
}

// Premium service's rates (MPIX_QOS): a premium lane's packets cross the
// sender's own pipe at its reservations' sum (0: unpaced), never behind the
// link's bulk traffic.
inline Pace premium_pace(Pace p, double reserved_bytes_per_s) {
    p.ns_per_byte = reserved_bytes_per_s > 0 ? 1e9 / reserved_bytes_per_s : 0;
    return p;
}

// What the reservations on a link (or uplink) of `bytes_per_s` (0:
// unlimited) leave to bulk traffic. Admission keeps their sum below the
// bandwidth (premium_mbit < bandwidth_mbit).
inline double bulk_left(double bytes_per_s, double reserved) {
    return bytes_per_s > 0 && reserved > 0 ? bytes_per_s - reserved : bytes_per_s;
}

// Bulk packets on a wide-area link share what the reservations leave, on the
// link and on the sender's site's uplink (0: unlimited, no uplink).
inline Pace bulk_pace(Pace p, double link_left, double uplink_left) {
    p.ns_per_byte = link_left > 0 ? 1e9 / link_left : 0;
    p.uplink_ns_per_byte = uplink_left > 0 ? 1e9 / uplink_left : 0;
    return p;
}

class Emulator;

// One link that emulation shapes, as the two ends of the link consult it: the
// sender stamps every packet (stamp: connection.hpp's OutPacket puts it
// first), the receiver feeds it what arrives, to be held until due. A link
// has one only when STRATA_EMULATION shapes it (Emulator::shaping() is
// nullptr for every other link), so the path of a message on an unshaped
// link pays one test of a pointer for emulation, and nothing else.
class ShapedLink {
public:
    ShapedLink(const ShapedLink&) = delete;
    ShapedLink& operator=(const ShapedLink&) = delete;

    // Sender: the stamp for a packet of `bytes` (header or record, and
    // payload) on the link's stream `stream` (0 .. kLaneStream: the premium
    // lane goes through the process's premium pipe on the link).
    std::uint64_t stamp(int stream, std::size_t bytes);
    // Receiver: bytes that arrived on the link's stream `stream`, in order.
    void feed(int stream, const std::byte* data, std::size_t n);
    // Receiver: whether packets that arrived wait for their stamp (the end
    // of the link, when it comes, waits for them as a real network's would).
    bool holds() const { return holding(); }

private:
    friend class Emulator;
    // A packet, a striped packet's plan (the record, then the header; its
    // payload comes as stripes), or a stripe, as it arrived with its stamp.
    struct Held {
        std::uint64_t due = 0;
        StripeRecord record{};  // type 0: a packet
        adi::Header header{};
        std::vector<std::byte> payload;
    };
    struct StreamIn {
        std::vector<std::byte> head;  // stamp and header or record(s), until complete
        std::optional<Held> partial;  // head complete, payload arriving
        std::size_t payload_need = 0;
        std::deque<Held> held;
    };
    // A shared link (or uplink) this one crosses: its index in the table,
    // its bandwidth and its premium capacity, bytes/s.
    struct Crossing {
        int index = -1;
        double bytes_per_s = 0;
        double premium_capacity = 0;
    };

    ShapedLink(Emulator& owner, int peer) : owner_(owner), peer_(peer) {}
    // Its latency, bandwidth and window from `shape`, every stream free.
    void shape_set(const wireup::LinkShape& shape);
    // The bytes/s bulk traffic gets on `x` now: its bandwidth less the
    // reservations (0: unlimited).
    double bulk_rate(const Crossing& x) const;
    // Moves the stamp and header (or record) bytes at the front of `data` into
    // s.head; true once they are complete and s.partial awaits the payload.
    static bool head_take(StreamIn& s, const std::byte*& data, std::size_t& n);
    // When the first held packet of lane `lane` (0: stream 0, with its
    // stripes; 1: the premium lane) can go (UINT64_MAX: a stripe of it has
    // not arrived, or it waits for a fence of the other lane).
    std::uint64_t head_due(int lane) const;
    bool holding() const;
    std::deque<Held>& lane_held(int lane) { return in_[lane == 0 ? 0 : kLaneStream].held; }
    const std::deque<Held>& lane_held(int lane) const { return in_[lane == 0 ? 0 : kLaneStream].held; }
    void heads_stale() { head_stale_[0] = head_stale_[1] = true; }

    Emulator& owner_;
    int peer_;
    int shared_ = -1;  // the link in the shared table
    int uplink_ = -1;  // the sender's site's uplink in it (-1: none)
    bool wan_ = false; // between sites (premium service applies)
    std::string name_; // "the wide-area link from site A to site B", for messages
    Crossing link_;
    Crossing up_;
    std::uint64_t* local_free_ = nullptr;  // a link to another job: this process's own view of it
    Pace pace_;
    std::vector<std::uint64_t> stream_free_;  // sender: by stream
    std::vector<StreamIn> in_;                // receiver: by stream
    LaneFences fences_;                       // receiver: the lanes' fences taken
    // head_due(lane), once known; recomputed when stale.
    mutable std::uint64_t head_due_[2] = {0, 0};
    mutable bool head_stale_[2] = {true, true};
};

// Premium bandwidth reserved by Emulator::qos_reserve: the shared links (and
// uplinks) it holds, and how much on each.
struct QosGrant {
    std::vector<int> links;
    std::uint64_t bytes_per_s = 0;
};

// The emulation of a process's links: which are shaped, the packets held
// on all of them, and the timer that wakes the process when the next is due.
class Emulator {
public:
    Emulator() = default;
    ~Emulator();
    Emulator(const Emulator&) = delete;
    Emulator& operator=(const Emulator&) = delete;

    // Before the startup barrier: reads STRATA_EMULATION (`text`; fails when
    // it is malformed) and, when it shapes anything, attaches to the job's
    // shared link table (mpirun removes its name once every process has
    // checked in: wireup/shared_links.hpp). `job_key` names the table.
    base::Status attach(const std::string& text, const std::string& job_key);
    // Shapes the links that text covers, on that table; fails when a shaped
    // peer is on another machine.
    base::Status configure(const adi::World& world);
    // Another job's processes, at peer indexes from `first` (adi::PeerSet):
    // when `their_emulation` is this job's text (both ends decide alike),
    // their links are shaped as the world's are, by level from the cards
    // (another site: the wide area; this site, another host: the local
    // area; never a process on another machine). The jobs share no table:
    // each process paces its own traffic on them, one link per site it
    // sends to, and no premium capacity is kept on them. `my_site` and
    // `my_host` are this process's card's.
    base::Status peers_add(int first, const std::vector<wireup::BusinessCard>& cards, const std::string& my_site,
                           const std::string& my_host, const std::string& their_emulation);
    bool active() const { return timer_fd_ >= 0; }
    // The link to `peer` when it is shaped, else nullptr.
    ShapedLink* shaping(int peer) const { return active() ? links_[static_cast<std::size_t>(peer)].get() : nullptr; }
    // The timer descriptor, readable when the earliest held packet is due
    // (after arm()); -1 when nothing is shaped.
    int timer_fd() const { return timer_fd_; }

    // Hands every held packet that is due to `up`, in order per peer
    // (Upcalls::on_packet; a striped packet through on_header, its stripes
    // into the landings, on_payload); returns how many.
    int deliver(adi::Upcalls& up);
    // Nanoseconds until the earliest held packet is due (0: due now), or -1
    // when none is held.
    std::int64_t next_due_in() const;
    // Arms the timer for the earliest held packet, `early_ns` before it is due.
    void arm(std::int64_t early_ns);
    // Reads the timer's expiry after it fired.
    void timer_clear();

    // Premium service for this process's traffic to `peers` (world ranks):
    // `bytes_per_s` on every wide-area link (and uplink) the shaped links to
    // them cross, admitted only if each stays within its premium capacity
    // (else nothing is reserved, and the error names the link and what is
    // left). Peers whose links are not shaped between sites need nothing.
    base::Result<QosGrant> qos_reserve(std::span<const int> peers, std::uint64_t bytes_per_s);
    void qos_release(const QosGrant& grant);

    static std::uint64_t now_ns();
    // Stripes of striped packets handed over so far.
    std::uint64_t stripes_delivered() const { return stripes_delivered_; }
    // Packets from other jobs' processes held until due and handed over.
    std::uint64_t foreign_delivered() const { return foreign_delivered_; }

private:
    friend class ShapedLink;
    // The first held packet of `l` (a striped one with its stripes) to `up`;
    // false when a stripe is out of order (the peer failed).
    bool deliver_first(ShapedLink& l, int lane, adi::Upcalls& up);
    // This process's premium pipe on a shared link: its reservations' sum
    // (the pipe's rate), and when the pipe is next free.
    struct Pipe {
        std::uint64_t bytes_per_s = 0;
        std::uint64_t free_ns = 0;
    };
    std::vector<std::unique_ptr<ShapedLink>> links_;  // by peer; nullptr: not shaped
    std::unordered_map<int, Pipe> pipes_;             // by shared link
    std::unordered_map<std::string, std::uint64_t> local_free_;  // links to other jobs, by their site
    // Makes the timer once something is shaped.
    base::Status timer_make();
    wireup::Emulation emulation_;  // attach()'s reading of STRATA_EMULATION
    std::string text_;             // and the text itself
    std::unique_ptr<wireup::SharedLinks> table_;
    std::vector<int> holding_;  // peers with held packets
    int timer_fd_ = -1;
    std::uint64_t stripes_delivered_ = 0;
    std::uint64_t foreign_delivered_ = 0;
};

}  // namespace strata::dev::tcp
