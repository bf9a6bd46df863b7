// devices/shm: processes on the same host (equal "host" labels: same kernel
// boot and network namespace) talk through POSIX shared memory.
//
// Every process creates one segment holding its inbox: one single-producer,
// single-consumer byte ring per local peer, written only by that peer and read
// only by the owner, so neither side ever takes a lock. Records start on cache
// lines; the reader polls the first word of the next record (the writer stores
// it last), so a small packet costs the reader one cache line, and hands space
// back through a byte counter (tail) on a line of its own. Peers map each other's segments after the
// startup barrier; the last one to attach unlinks the name, so nothing is left
// in /dev/shm however the job ends afterwards.
//
// Small packets are copied into the ring whole (header + payload in one
// record). A payload that does not fit one record streams through the ring in
// fragments. Large rendezvous payloads cross in a single copy: the sender puts
// a record describing its buffers into the ring, the receiver pulls the bytes
// straight into the landing with process_vm_readv (cross-memory attach) and
// answers with a completion record. Whether a receiver can read a sender's
// memory is probed once per pair at startup; where the kernel refuses it
// (ptrace restrictions, no CMA), or with STRATA_SHM_CMA=0, large payloads
// stream through the ring instead.
//
// Waiting: a receiver that goes to sleep says so in its segment; a sender that
// sees the flag after writing rings a doorbell (a datagram to the receiver's
// unix socket, which is the method's wait_fd), so an oversubscribed rank
// sleeps in poll() instead of spinning.
//
// Other jobs (adi::PeerSet, MPI_Comm_accept/MPI_Comm_connect): processes of
// the other group on this host, under this account, get rings as a job's do,
// in an inbox segment each process makes for the set (its main segment is
// sized for its own job). The rings of a set's inbox are the other group's
// processes in set-rank order. A process of another job may end while this
// one waits for it, and its mpirun tells only its own job: while it waits, a
// process checks every 100 ms that the doorbells of the other jobs' processes
// it reaches are still bound (a socket is unbound when its process ends).
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "adi/method.hpp"

namespace strata::dev::shm {

class ShmMethod final : public adi::Method {
public:
    explicit ShmMethod(adi::MethodContext ctx);
    ~ShmMethod() override;
    ShmMethod(const ShmMethod&) = delete;
    ShmMethod& operator=(const ShmMethod&) = delete;

    const adi::Capabilities& caps() const override { return caps_; }
    base::Status publish(wireup::BusinessCard& card) override;
    base::Status connect_world(const adi::World& world) override;
    // Whether the processes of two cards share memory through this method:
    // both published an address, on one host, under one account (each inbox
    // is readable by its owner only), with one data representation (records
    // cross in host byte order).
    // The same ring size too, as processes of two jobs may set STRATA_SHM_RING
    // differently.
    static bool links(const wireup::BusinessCard& a, const wireup::BusinessCard& b);
    bool reaches(int peer) const override;
    bool peers_add(const adi::PeerSet& set) override;
    void peers_close(int first, int count) override;
    adi::SendStatus send(int peer, const adi::Header& h, std::span<const iovec> data, std::uint64_t token) override;
    int poll(adi::Upcalls& up) override;
    int poll_peer(int peer, adi::Upcalls& up) override;
    int wait_fd() const override { return bell_fd_; }
    bool busy() const override;
    bool sleep_prepare() override;
    void sleep_end() override;
    bool send_now(int peer, const adi::Header& h, const std::byte* data, std::size_t n) override;
    bool has_queued_sends() const override { return queued_peers_ > 0 || cma_pending_ > 0; }
    bool transfer_underway() const override { return cma_pending_ > 0; }
    bool shares_cpu(int cpu) override;
    void shutdown() override;

    // Whether payloads from world rank `peer` arrive by cross-memory attach
    // (tests, diagnostics).
    bool single_copy_from(int peer) const;
    std::uint64_t single_copy_reads() const { return cma_reads_; }
    // Chunks of our single-copy sends we wrote into receivers ourselves.
    std::uint64_t shared_writes() const { return share_writes_; }

    struct Segment;  // the shared layout, defined in shm_method.cpp
    struct Ring;
    struct Address;  // what a process publishes

private:
    enum class What : std::uint8_t { packet, cma, cma_done };

    // A send waiting for ring space (or a single-copy send waiting for the
    // receiver's completion record).
    struct OutPacket {
        What what = What::packet;
        adi::Header header{};
        std::vector<iovec> iov;
        std::uint64_t token = 0;
        std::size_t payload = 0;  // bytes in iov
        std::size_t sent = 0;     // payload bytes written so far
        bool header_sent = false;
    };

    struct Peer {
        int world = -1;
        int index = -1;               // its ring in our segment (or in our inbox for its set)
        int slot = -1;                // our ring in its segment
        std::uint64_t set = 0;        // another job's process: the set's id (0: this job's)
        Segment* seg = nullptr;       // its segment (for a set, its inbox), mapped
        std::size_t seg_bytes = 0;
        Ring* out = nullptr;          // ring we write into (in its segment)
        Ring* in = nullptr;           // ring we read (in our segment)
        std::uint64_t out_head = 0;       // bytes we wrote
        std::uint64_t out_tail_seen = 0;  // its tail when we last looked
        std::uint64_t in_tail = 0;        // what we consumed
        std::uint64_t in_released = 0;    // what we handed back (ring tail; only we write it)
        std::deque<std::unique_ptr<OutPacket>> queue;
        pid_t pid = 0;
        std::uint64_t probe_addr = 0;  // where its probe word lives, in its memory
        std::uint64_t probe_value = 0;
        std::string name;              // its segment (for a set, its inbox)
        std::string bell;              // its main segment's name, which names its doorbell
        int cma_out = 0;               // our single-copy sends it has not read yet
        bool gone = false;             // another job's process that ended (reported)
        // Receive side: a payload arriving in fragments.
        bool in_payload = false;
        adi::Header cur{};
        adi::Landing land;
        std::size_t landed = 0;
        std::uint64_t remaining = 0;
        bool cma_from = false;        // we can read its memory
        // Our single-copy send it shares the copying of (see help()), 0: none.
        std::uint64_t share_token = 0;
        std::uintptr_t share_src = 0;
        std::uint64_t share_bytes = 0;
    };

    // An inbox: a segment of `rings` rings that `attachers` peers map, the
    // last of them removing its name.
    struct Inbox {
        Segment* seg = nullptr;
        std::size_t bytes = 0;
        std::string name;
        int first = 0;  // a set's: its first engine index (0 for the job's own)
    };
    base::Result<Inbox> segment_create(const std::string& name, std::size_t rings, std::uint32_t attachers);
    // Maps p's segment (p.name), which must hold a ring at p.slot.
    base::Status segment_attach(Peer& p);
    void inbox_drop(Inbox& box);
    // Every segment of ours: the job's and the sets' inboxes.
    template <class F>
    void inboxes_each(F&& f) {
        if (mine_ != nullptr) f(*mine_);
        for (Inbox& box : set_inboxes_) f(*box.seg);
    }
    // Where p's doorbell is and how to probe its memory, from its address.
    static void address_take(Peer& p, const Address& a);
    // Takes a set's process out: its sends and single copies end unanswered.
    void peer_forget(Peer& p);
    // Whether another job's process p ended (its doorbell is unbound).
    bool peer_ended(const Peer& p) const;
    // The other jobs' processes that ended since the last look: failures to
    // report (true: some).
    bool sets_check_alive();
    std::byte* reserve(Peer& p, std::size_t bytes);
    // Header + all `n` bytes of `data` as one record now, or false (queue not
    // empty, too big for one record, no room).
    bool put_whole(Peer& p, const adi::Header& h, std::span<const iovec> data, std::size_t n);
    // The record for a packet of n payload bytes, its header written, or
    // nullptr (see put_whole); the caller copies the payload and commits.
    std::byte* put_begin(Peer& p, const adi::Header& h, std::size_t n);
    // Publishes the record at `at` (its body written) to the reader.
    void commit(Peer& p, std::byte* at, std::uint16_t kind, std::size_t bytes);
    bool write(Peer& p, OutPacket& o);
    void enqueue(Peer& p, std::unique_ptr<OutPacket> o);
    int flush(Peer& p, adi::Upcalls& up);
    int drain(Peer& p, adi::Upcalls& up);
    void release(Peer& p);
    void read_cma(Peer& p, adi::Upcalls& up, const std::byte* body);
    void cma_done_send(Peer& p, std::uint64_t token);
    // Shared single copies: the sender offers one in its kCma record (true:
    // offered), the receiver copies chunks into `dest` along with it, the
    // sender helps while it polls.
    bool share_offer(Peer& p, const OutPacket& o);
    bool read_shared(Peer& p, std::byte* dest, std::uint64_t src, std::uint64_t bytes);
    int help(Peer& p);
    void ring_bell(const Peer& p);
    bool probe_cma(const Peer& p) const;
    bool can_single_copy_to(const Peer& p) const;

    adi::MethodContext ctx_;
    adi::Capabilities caps_;
    std::string name_;       // our segment's name
    wireup::BusinessCard card_;  // ours (sets' processes are matched against it)
    Segment* mine_ = nullptr;
    std::size_t mine_bytes_ = 0;
    int nlocal_ = 0;         // processes on this host, us included
    int my_index_ = -1;      // our local index
    std::size_t ring_bytes_ = 0;
    std::size_t frag_ = 0;
    int bell_fd_ = -1;       // our doorbell (bound), also used to ring others
    std::uint64_t probe_value_ = 0;
    std::deque<Peer> peers_;               // local peers in local-index order (ours excluded)
    std::vector<int> peer_of_world_;       // world rank -> index into peers_, or -1
    int queued_peers_ = 0;
    adi::PeerFailures failures_;  // reported at the next poll
    std::uint64_t cma_reads_ = 0;
    std::uint64_t share_writes_ = 0;
    int cma_pending_ = 0;  // single-copy sends the receiver has not read yet
    std::vector<Inbox> set_inboxes_;  // one per set with a process on this host
    int set_peers_ = 0;               // other jobs' processes in peers_
    int probe_fd_ = -1;               // connects to their doorbells to see they are bound
    std::int64_t alive_checked_ns_ = 0;
};

std::unique_ptr<adi::Method> create(const adi::MethodContext& ctx);

}  // namespace strata::dev::shm
