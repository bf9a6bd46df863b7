// adi::Method: the one interface every communication device implements.
//
// Who calls what
//   The engine (adi/engine.cpp) owns every Method. At MPI_Init it calls
//   publish() so the method can put its address in this process's business
//   card, then, once the startup barrier released everyone's cards,
//   connect_world(). From then on it calls send() to move packets and poll()
//   to make progress; poll() calls back into the engine through Upcalls.
//   shutdown() is called once from MPI_Finalize after the final barrier.
//
// What may block
//   Nothing. send() hands bytes to the OS or queues them; poll() does a bounded
//   amount of work and returns. Only the engine decides to sleep: it calls
//   sleep_prepare() on every method it would wait for, and when all agree it
//   waits on their wait_fd()s, then calls sleep_end() on each. A method whose
//   peers cannot write to a descriptor (shared memory) asks them, through its
//   own shared state, to ring its wait_fd() while sleep_prepare() is in force.
//
// Which methods are polled
//   Only those some outstanding request needs (selective polling, engine.hpp):
//   a method must not rely on being polled when nothing awaits it. Its queued
//   sends (has_queued_sends) always make it needed.
//
// Who owns which buffer
//   The header passed to send() is copied by the method before send() returns.
//   The data iovecs stay owned by the caller and must remain valid until the
//   send completes: at once when send() returns SendStatus::done, otherwise
//   when the method calls Upcalls::on_sent(token). A Landing returned by
//   on_header() belongs to the engine. The method writes the payload into it
//   in order; when it has filled a landing of non-zero capacity and payload
//   remains, it calls on_landing_full() and continues into the landing that
//   returns (the engine unpacks a full staging buffer there and hands it back,
//   so a payload of any size can land in bounded memory). What does not fit in
//   a landing of capacity 0 is silently discarded (truncation). At the end of
//   the payload the method calls on_payload() with the landing it last used.
//
// Ordering
//   Packets between one pair of processes arrive in the order they were sent
//   (all methods are reliable and ordered per pair); the engine relies on this
//   for MPI's non-overtaking rule.
#pragma once

#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "adi/envelope.hpp"
#include "base/result.hpp"
#include "wireup/protocol.hpp"
#include "wireup/topology.hpp"

namespace strata::adi {

// What a device can do, filled in by the device, read by the engine.
struct Capabilities {
    std::string name;              // "self", "tcp", ...
    std::size_t eager_limit = 0;   // larger messages use rendezvous
    // Relative cost of one poll (1 = memory, 100 = a system call). The engine
    // polls a method costing 10 or more only every STRATA_SKIP_POLL passes
    // while a cheaper method is also needed.
    int poll_cost = 1;
};

// Where an arriving payload goes.
struct Landing {
    std::byte* dest = nullptr;
    std::size_t capacity = 0;
    void* cookie = nullptr;  // engine's bookkeeping, handed back in on_payload
    std::uint32_t kind = 0;  // engine's bookkeeping
};

class Upcalls {
public:
    // A header arrived from world rank `peer`. For packets with a payload
    // (carries_payload) the method then delivers the payload into the returned
    // Landing and calls on_payload, also for empty payloads.
    virtual Landing on_header(int peer, const Header& h) = 0;
    virtual void on_payload(int peer, const Header& h, const Landing& landing) = 0;
    // A packet arrived whole: its header and all wire_payload(h) bytes at
    // `payload`, in one piece. The same as on_header, a land_copy of the
    // payload and on_payload, which is what this default does; the engine
    // delivers eager messages in one step.
    virtual void on_packet(int peer, const Header& h, const std::byte* payload);
    // `landing` is full (capacity bytes written) and the payload continues:
    // returns where the next bytes go.
    virtual Landing on_landing_full(int peer, const Header& h, const Landing& landing) = 0;
    // The send identified by `token` completed; its data buffers are free.
    virtual void on_sent(std::uint64_t token) = 0;
    // The link to `peer` failed; `why` says what happened and what to check.
    virtual void on_peer_failed(int peer, const std::string& why) = 0;

protected:
    ~Upcalls() = default;
};

enum class SendStatus { done, queued, failed };

// Copies `n` payload bytes that arrived in one piece into `landing`, moving on
// through on_landing_full() when it fills and bytes remain (what does not fit
// a landing of capacity 0 is dropped). Returns the landing last written, for
// the next piece or for on_payload().
Landing land_copy(Upcalls& up, int peer, const Header& h, Landing landing, std::size_t& landed,
                  const std::byte* data, std::size_t n);

// Link failures a device noticed where it could not call up (inside send(),
// or while walking its peers), kept until its next poll().
using PeerFailures = std::vector<std::pair<int, std::string>>;
// Reports and clears them; returns how many there were. Inline: every poll
// asks, and there are almost never any.
int failures_report_all(Upcalls& up, PeerFailures& pending);
inline int failures_report(Upcalls& up, PeerFailures& pending) {
    return pending.empty() ? 0 : failures_report_all(up, pending);
}

// The card entry under which MPI_Init publishes the process's data
// representation (mpi/hetero/representation.hpp, its bytes()). Only processes whose
// entries are equal store data alike and may link by a method that moves
// records in host byte order (shared memory, libfabric); others use TCP, whose
// records are little-endian on the wire.
inline constexpr std::string_view kRepresentationEntry = "representation";
inline bool same_representation(const wireup::BusinessCard& a, const wireup::BusinessCard& b) {
    return a.entry(kRepresentationEntry) == b.entry(kRepresentationEntry);
}

// What the startup barrier released: every process's card (by world rank),
// the topology built from them, and this process's rank.
struct World {
    std::vector<wireup::BusinessCard> cards;
    wireup::Topology topology;
    int rank = 0;
};

// Processes of another job joined to this one (MPI_Comm_accept and
// MPI_Comm_connect, mpi/port.cpp): both jobs number the processes of the
// connection alike, the accepting group first (set ranks), and each process
// adds the other group's processes to its engine after its own job's (their
// engine indexes from `first`, in set-rank order from `first_rank`).
// Connections between them prove `key` (derived from the port's secret)
// instead of the job key; `id` names the set in their handshakes.
struct PeerSet {
    std::uint64_t id = 0;
    std::string key;
    std::uint32_t my_rank = 0;     // this process's set rank
    std::uint32_t first_rank = 0;  // set rank of cards[0]
    int first = 0;                 // engine index of cards[0]
    std::vector<wireup::BusinessCard> cards;  // the other group's processes
    std::string emulation;  // the other job's STRATA_EMULATION (links shaped when it equals this job's)
    // By card: whether a method before this one reaches that process (the
    // engine routes it there), so this one need not open a link to it now.
    std::vector<char> taken;
};

// What a method learns about its process when it is created.
struct MethodContext {
    int rank = 0;
    int size = 1;
    std::string job_key;   // proves membership of this job to peers
    std::string hostname;
};

class Method {
public:
    virtual ~Method() = default;

    virtual const Capabilities& caps() const = 0;

    // Before the startup barrier: open listeners, add our address to the card.
    // Fails when the method cannot work here.
    virtual base::Status publish(wireup::BusinessCard& card) = 0;
    // After the barrier: everyone's cards and the topology. Fails when the
    // method cannot serve peers it should reach: it must never reach a peer
    // that does not reach it back (the receiver polls the method it would use
    // itself to send to the sender).
    virtual base::Status connect_world(const World& world) = 0;
    // Whether this method can carry packets to world rank `peer`.
    virtual bool reaches(int peer) const = 0;
    // Processes of another job (PeerSet), numbered after every peer the
    // engine holds: true when the method takes them, reaches() then answering
    // for their indexes (it may still reach none of them). A method that
    // returns false is never asked about those indexes. When the engine could
    // not add a set (some process reached by no method), the next set takes
    // its indexes again: the method forgets what it had from set.first on.
    // Called between polls, never from inside one.
    virtual bool peers_add(const PeerSet& /*set*/) { return false; }
    // The connections to the processes [first, first + count) of a set may
    // close: nothing more is sent to them (MPI_Comm_disconnect).
    virtual void peers_close(int /*first*/, int /*count*/) {}
    // Whether what it carries to `peer` is encrypted (TLS on a TCP link); only
    // shown to the user (mpirun -v).
    virtual bool encrypts(int /*peer*/) const { return false; }
    // Whether what it carries to `peer` passes a relay (a private site's,
    // wireup/routes.hpp); counted apart (Engine::traffic_relayed).
    virtual bool relays(int /*peer*/) const { return false; }

    // Send header + data to `peer`. See the buffer rules above.
    virtual SendStatus send(int peer, const Header& h, std::span<const iovec> data, std::uint64_t token) = 0;

    // Make progress: deliver arrived packets, push queued sends. Returns the
    // number of events handled (0 = nothing happened).
    virtual int poll(Upcalls& up) = 0;
    // Like poll(), but it may look only at what world rank `peer` sent and at
    // sends queued for it: the engine's shortcut while its only outstanding
    // request awaits that one peer (it still calls poll() every few idle
    // passes).
    virtual int poll_peer(int peer, Upcalls& up) {
        (void)peer;
        return poll(up);
    }

    // A descriptor that becomes readable when poll() would have work, or -1 if
    // the method cannot be waited on that way.
    virtual int wait_fd() const { return -1; }
    // True when poll() has work right now that no descriptor will announce.
    virtual bool busy() const { return false; }
    // The engine is about to sleep on wait_fd(). Returns false (and the engine
    // does not sleep) when poll() has work now; otherwise arrivals from now on
    // must make wait_fd() readable until sleep_end().
    virtual bool sleep_prepare() { return !busy(); }
    virtual void sleep_end() {}
    // A peer is moving data of ours right now (reading it from our memory):
    // the answer is due within the time that copy takes, so a waiting rank
    // with a core of its own keeps polling instead of going to sleep.
    virtual bool transfer_underway() const { return false; }
    // This process runs on core `cpu` now (the method tells its peers, where
    // it can) and whether a peer it reaches said it last waited on that core
    // too. A process waiting for an answer then hands its core over at every
    // idle poll, as with more ranks than cores: the peer that must answer may
    // be queued behind it (a busy machine puts two ranks that are not bound
    // on one core). Asked every 16th idle pass of a wait; must be cheap.
    virtual bool shares_cpu(int /*cpu*/) { return false; }
    // Unsent data still queued (MPI_Finalize waits for it to drain).
    virtual bool has_queued_sends() const { return false; }
    // All or nothing: copies header + the `n` bytes at `data` out to `peer` now
    // and returns true, or does nothing and returns false (no room, packets
    // queued before it, or not supported). The engine's shortcut for a
    // blocking send that needs no request.
    virtual bool send_now(int peer, const Header& h, const std::byte* data, std::size_t n) {
        (void)peer, (void)h, (void)data, (void)n;
        return false;
    }

    // Parallel streams (devices/tcp/stripes.hpp): how many connections this
    // process sends to `peer` over (1 for a method without streams), and a new
    // count, 1 .. wireup::kStreamsMax, for the packets handed over from now on
    // (those already handed over keep theirs, and the order per pair holds
    // either way). streams_set() returns false when the method has no streams.
    virtual int streams(int /*peer*/) const { return 1; }
    virtual bool streams_set(int /*peer*/, int /*n*/) { return false; }
    // Premium service (MPIX_QOS in mpi.h; devices/tcp/stripes.hpp's lanes):
    // the packets of `contexts` to `peers` (this method's) go ahead of the
    // other traffic to them, at `bytes_per_s` reserved where the method
    // knows the links' capacity (wide-area emulation), from the next packet
    // on, MPI's order within each context kept. Returns a handle for
    // qos_release (0: the method has no premium service, nothing held), or
    // why the reservation was refused (nothing held then either).
    virtual base::Result<std::uint64_t> qos_reserve(std::span<const int> /*peers*/, std::span<const int> /*contexts*/,
                                                    std::uint64_t /*bytes_per_s*/) {
        return std::uint64_t{0};
    }
    virtual void qos_release(std::uint64_t /*handle*/) {}
    // What the method has to tell at MPI_Finalize under STRATA_STATS, one line
    // without its name (empty: nothing).
    virtual std::string report() const { return {}; }

    virtual void shutdown() {}
};

}  // namespace strata::adi
