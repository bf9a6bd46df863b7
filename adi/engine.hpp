// The engine: protocols (eager, rendezvous, synchronous, cancel), request life
// cycle, per-peer method choice and the progress loop. It moves contiguous
// byte ranges, or packed streams of a Segment (adi/segment.hpp) for data that
// is not contiguous; datatypes and communicators stay in mpi/.
#pragma once

#include <sched.h>

#include <array>
#include <bit>
#include <chrono>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "adi/matching.hpp"
#include "adi/method.hpp"
#include "adi/request.hpp"

namespace strata::adi {

// Where the data of a send or receive is: `bytes` contiguous bytes at `buf`
// (read by a send, the capacity of a receive), or, when `segment` is set,
// the packed stream of a non-contiguous layout (then `bytes` is its size()).
struct Buffer {
    Buffer() = default;
    Buffer(std::byte* b, std::size_t n) : buf(b), bytes(n) {}
    explicit Buffer(std::shared_ptr<Segment> s) : bytes(s->size()), segment(std::move(s)) {}

    std::byte* buf = nullptr;
    std::size_t bytes = 0;
    std::shared_ptr<Segment> segment;
};

// Everything a send needs: the process it goes to, its protocol and the
// envelope the receiver matches (the communicator's context, our rank in the
// communicator, the tag).
struct SendArgs {
    int world_peer = 0;
    SendMode mode = SendMode::standard;
    int context = 0;
    int rank = 0;
    int tag = 0;
    Buffer data;
    std::uint8_t flags = 0;  // Request::flags
};

// Everything a receive needs: the process it waits on (kAnySource for
// MPI_ANY_SOURCE) and the envelope it matches: context, the wanted source
// rank in the communicator (or kAnySource) and tag (or kAnyTag).
struct RecvArgs {
    int world_source = kAnySource;
    int context = 0;
    int rank = kAnySource;
    int tag = kAnyTag;
    Buffer data;
    // For kAnySource: the methods that reach the processes the receive may
    // match (Engine::methods_reaching of the communicator's group), the only
    // ones it makes the engine poll; 0 means every method that reaches some
    // process.
    std::uint32_t from_methods = 0;
};

class Engine final : public Upcalls {
public:
    // `methods` in preference order: the first that reaches a peer carries its traffic.
    explicit Engine(std::vector<std::unique_ptr<Method>> methods);
    ~Engine();
    Engine(const Engine&) = delete;
    Engine& operator=(const Engine&) = delete;

    // Startup: every method adds its address to our card; then, with all cards,
    // each peer gets the first method that reaches it.
    base::Status publish(wireup::BusinessCard& card);
    base::Status connect_world(const World& world);
    Method* method_for(int world_peer) const {
        return methods_[static_cast<std::size_t>(route_[static_cast<std::size_t>(world_peer)])].get();
    }
    int world_size() const { return static_cast<int>(route_.size()); }
    // Adds the processes of another job (PeerSet; `set.first` must be
    // world_size()): each is routed over the first method that takes the set
    // and reaches it. Fails, adding nothing, naming a process no method
    // reaches.
    base::Status peers_add(const PeerSet& set);
    // MPI_Comm_disconnect's last step: the methods may close the links to
    // [first, first + count); sending to them again is an error of the caller.
    void peers_close(int first, int count);

    // A request of `kind` from the pool: a slot a destroyed request left
    // (its storage used again), its id fresh. Inline, and with what is
    // rarely needed (a new slot, a slot that served the other kind, buffers
    // to free) out of line: every blocking call and every request handle
    // takes one.
    Request* request_create(Kind kind) {
        if (free_slots_.empty()) [[unlikely]] slots_grow();
        const std::uint32_t slot = free_slots_.back();
        free_slots_.pop_back();
        std::uint32_t& gen = generations_[slot];
        if (++gen == 0) [[unlikely]] gen = 1;  // id 0 means "no request"
        Request* r = slots_[slot].get();
        r->id = (static_cast<std::uint64_t>(gen) << 32) | slot;
        r->kind = kind;
        // The state of the kind, emptied by request_destroy; send_start and
        // recv_start set it up.
        if (r->state.index() != static_cast<std::size_t>(kind)) [[unlikely]] state_make(*r);
        return r;
    }
    // Back to the pool; the old id no longer finds it. A second destroy does nothing.
    [[gnu::always_inline]] void request_destroy(Request* r) {
        if (r->id == 0) return;
        need_clear(*r);
        const auto slot = static_cast<std::uint32_t>(r->id);
        r->id = 0;
        r->pending = 0;
        r->released = false;
        r->buf = nullptr;
        r->bytes = 0;
        if (r->on_complete || r->segment || r->stage.data() != nullptr) [[unlikely]] request_release(*r);
        free_slots_.push_back(slot);
    }

    // Start a send described by `a` on `r`, a request of kind send (fresh, or
    // a completed one started again). Inline, like irecv, so that the
    // caller's struct is stored straight into `r` (its segment moved, not
    // counted again); the protocol runs out of line.
    void isend(Request& r, SendArgs a) {
        request_fill(r, a.context, a.rank, a.tag, std::move(a.data));
        r.flags = a.flags;
        send_start(r, a.world_peer, a.mode);
    }
    // The largest message that goes to `world_peer` eagerly (in one step,
    // without a rendezvous).
    std::size_t eager_limit_to(int world_peer) const {
        return eager_limit_[static_cast<std::size_t>(route_[static_cast<std::size_t>(world_peer)])];
    }
    // A blocking standard-mode send of contiguous bytes that fits the eager
    // limit of `world_peer`'s method and can leave at once: sent without a
    // request. False when it cannot go that way (the caller takes the normal
    // path; nothing was sent).
    bool send_now(int world_peer, int context, int rank, int tag, const std::byte* buf, std::size_t bytes) {
        Method& m = *method_for(world_peer);
        if (bytes > eager_limit_to(world_peer) || (!failed_peers_.empty() && failed_peers_.count(world_peer) != 0)) {
            return false;
        }
        Header h{};
        h.type = Packet::eager;
        h.context = context;
        h.source = rank;
        h.tag = tag;
        h.length = bytes;
        if (!m.send_now(world_peer, h, buf, bytes)) return false;
        traffic_count(world_peer, bytes);
        // The method may have kept part of it (a copy) to send later.
        if (m.has_queued_sends()) sent_queued(world_peer);
        return true;
    }
    // Start a receive described by `a` on `r`, a request of kind recv (fresh,
    // or a completed one started again).
    void irecv(Request& r, RecvArgs a) {
        request_fill(r, a.context, a.rank, a.tag, std::move(a.data));
        recv_start(r, a.world_source, a.from_methods);
    }
    // The methods that carry the traffic of the world ranks `world`, as a bit
    // set over method indexes (RecvArgs::from_methods): what a receive from
    // MPI_ANY_SOURCE among them needs polled. Call after connect_world().
    std::uint32_t methods_reaching(std::span<const int> world) const {
        std::uint32_t mask = 0;
        for (const int w : world) mask |= 1u << route_[static_cast<std::size_t>(w)];
        return mask;
    }
    // Envelope of the earliest matching unexpected message, without receiving it.
    bool iprobe(int context, int source, int tag, Status& status);
    // MPI_Cancel: a queued receive is withdrawn at once; a send asks its receiver.
    void cancel(Request& r);

    // Selective polling: one pass polls only the methods that some outstanding
    // request needs (the method of its peer; for a receive from
    // MPI_ANY_SOURCE, the methods that reach its communicator's processes),
    // and those with packets queued for sending. A method that reaches none
    // of them is not polled at all: no peer of that method can be sending
    // what is awaited, since a process only sends over the method that the
    // receiver would use itself (Method::connect_world). While a cheap
    // method that reaches other processes (shared memory; self does not count)
    // is needed too, an expensive one (poll_cost >= 10, TCP) is polled once
    // every STRATA_SKIP_POLL passes. Returns the number of events handled.
    int progress();
    // progress() for a call that polls without waiting (MPI_Test*, MPI_Iprobe):
    // an application that spins on it holds its core, so on a host with more
    // ranks than cores (or beside a peer on the same core) a pass that found
    // nothing gives the core away (sched_yield), letting the rank it waits
    // for run.
    int progress_test() {
        const int events = progress();
        if (events == 0 && yield_each_pass()) core_yield();
        return events;
    }
    // While it lives, progress() also polls what a probe of `world_source`
    // needs (kAnySource: the methods `from_methods`, as in RecvArgs).
    class Interest {
    public:
        Interest(Engine& e, int world_source, std::uint32_t from_methods = 0);
        ~Interest();
        Interest(const Interest&) = delete;
        Interest& operator=(const Interest&) = delete;

    private:
        Engine& engine_;
        std::uint32_t need_;
    };
    // How often each method was polled, in method order (STRATA_POLL_STATS
    // prints them at MPI_Finalize; tests read them to prove what was polled).
    std::vector<std::pair<std::string, std::uint64_t>> poll_counts() const;
    // One line per method naming the peers it reaches ("shm: 1-3").
    std::string routes_text() const;
    // What this process sent, one count per MPI message: by the topology level
    // of the link it took (the deepest level both ends share, 0 between
    // sites) and by method. Counted only from traffic_count_on() on (the MPI
    // layer turns it on under STRATA_STATS, or when a program first reads the
    // counts): until then a send pays one predictable branch, not the count.
    void traffic_count_on() { counting_ = true; }
    bool traffic_counting() const { return counting_; }
    struct Traffic {
        std::uint64_t messages = 0;
        std::uint64_t bytes = 0;
    };
    const std::array<Traffic, wireup::kLevels>& traffic_by_level() const { return by_level_; }
    const std::vector<Traffic>& traffic_by_method() const { return by_method_; }  // in method order
    // What went to processes whose link passes a relay (Method::relays).
    const Traffic& traffic_relayed() const { return relayed_; }
    // Index of the method called `name` in method order, or -1.
    int method_index(const std::string& name) const;
    // "level 0 (wide area): 3 messages, 120 bytes; ...; tcp: 3 messages, 120 bytes"
    // (STRATA_STATS prints it at MPI_Finalize).
    std::string traffic_text() const;
    // Parallel streams to `world_peer` (Method::streams): the count its
    // method uses, and a new one (false when the method has none).
    int streams(int world_peer) const { return method_for(world_peer)->streams(world_peer); }
    bool streams_set(int world_peer, int n) { return method_for(world_peer)->streams_set(world_peer, n); }
    // Premium service for `contexts` to `world_peers` (Method::qos_reserve),
    // through each peer's method: a handle for qos_release, or why a method
    // refused (then nothing is held). Methods without premium service leave
    // their peers' traffic as it is.
    base::Result<std::uint64_t> qos_reserve(std::span<const int> world_peers, std::span<const int> contexts,
                                            std::uint64_t bytes_per_s);
    void qos_release(std::uint64_t handle);
    // "tcp: <report>" per method that has something to tell (Method::report),
    // one line each (STRATA_STATS prints them at MPI_Finalize).
    std::vector<std::string> methods_report() const;
    // How often a waiting rank gave its core away (sched_yield) and slept on
    // its methods' descriptors (STRATA_POLL_STATS prints them too).
    std::uint64_t yields() const { return yields_; }
    std::uint64_t sleeps() const { return sleeps_; }
    // Whether STRATA_POLL_STATS asks for the counters at MPI_Finalize.
    static bool poll_stats_wanted();
    // Drive progress until done() holds; spins briefly, then yields, then sleeps
    // on the methods' descriptors so oversubscribed ranks leave the CPU.
    template <class Done>
    void wait(Done&& done) {
        unsigned idle = 0;
        while (!done()) {
            if (progress() > 0) {
                idle = 0;
            } else if ((++idle & 15) == 0) {
                idle_step(idle);  // every 16th idle pass: time to yield or sleep?
            } else if (yield_each_pass()) {
                core_yield();
            }
        }
    }
    // wait() for one request, a blocking call's own, whose peer is world
    // rank `world_peer` (kAnySource: any). While every outstanding request
    // awaits its method, a pass polls that method alone, and only the peer
    // (Method::poll_peer) while it is the only request; every 16th idle pass
    // is a full one.
    void wait_one(Request& r, int world_peer);
    // Whether this host runs more ranks than it has cores: waiting ranks then
    // yield their core between polls and sleep after 50 us instead of spinning.
    void set_oversubscribed(bool yes);
    // Waits that found a peer on this process's core (Method::shares_cpu) and
    // so yielded between polls from then on.
    std::uint64_t cpu_shared_waits() const { return cpu_shared_waits_; }
    // Extra descriptor to wake on while sleeping (e.g. the launcher's socket).
    void watch_fd(int fd) { extra_fds_.push_back(fd); }

    bool sends_drained() const;
    // MPI_Finalize began: from now on every wait polls (and sleeps on) every
    // method, so that a peer still finishing what it owes this process (a
    // link it opens, records it sends: devices/tcp/stripes.hpp's lanes) is
    // served although nothing here awaits it.
    void finalizing() { ending_mask_ = methods_.size() >= 32 ? ~0u : (1u << methods_.size()) - 1; }
    void shutdown();

    const std::string& last_error() const { return last_error_; }

    std::size_t unexpected_count() const { return unexpected_.size(); }
    std::size_t posted_count() const { return posted_.size(); }

    // Upcalls from the methods.
    Landing on_header(int peer, const Header& h) override;
    void on_payload(int peer, const Header& h, const Landing& landing) override;
    void on_packet(int peer, const Header& h, const std::byte* payload) override;
    Landing on_landing_full(int peer, const Header& h, const Landing& landing) override;
    void on_sent(std::uint64_t token) override;
    void on_peer_failed(int peer, const std::string& why) override;

private:
    // The cold parts of request_create and request_destroy.
    [[gnu::noinline]] void slots_grow();
    [[gnu::noinline]] static void state_make(Request& r);
    [[gnu::noinline]] static void request_release(Request& r);
    // The envelope and data of a send or receive, into its request.
    static void request_fill(Request& r, int context, int rank, int tag, Buffer&& data) {
        r.context = context;
        r.rank = rank;
        r.tag = tag;
        r.buf = data.buf;
        r.bytes = data.bytes;
        // Contiguous data has no segment, and a fresh request holds none.
        if (data.segment || r.segment) [[unlikely]] r.segment = std::move(data.segment);
    }
    // The protocols of isend and irecv, once the request holds its envelope and data.
    void send_start(Request& r, int world_peer, SendMode mode);
    // The parts of send_start beyond an eager message of contiguous data:
    // a peer known to have failed, packing non-contiguous data into the
    // stage (returned), and the rendezvous request (`h` is the envelope,
    // `need` the method's bit).
    [[gnu::noinline]] void send_refused(Request& r);
    [[gnu::noinline]] static std::byte* send_pack(Request& r);
    [[gnu::noinline]] void send_rts(Request& r, Header& h, std::uint32_t need);
    void recv_start(Request& r, int world_source, std::uint32_t from_methods);
    // recv_start's search of the unexpected messages: binds `r` to the
    // earliest that matches, if one does.
    [[gnu::noinline]] bool recv_arrived(Request& r);
    Request* lookup(std::uint64_t id) const;
    // One outstanding event of `r` happened; the last one completes it.
    // Inline for the count; what completion does is out of line.
    void complete_one(Request& r) {
        if (r.pending <= 0) return;
        if (--r.pending == 0) completed(r);
    }
    // `r` completed: nothing to poll for it any more; its owner's choices
    // (on_complete, released) out of line.
    void completed(Request& r) {
        need_clear(r);
        if (r.on_complete || r.released) [[unlikely]] completed_owned(r);
    }
    [[gnu::noinline]] void completed_owned(Request& r);
    void fail(Request& r, Error e);
    void bind(Request& r, Unexpected* u);
    void deliver(Request& r, const Unexpected& u);
    // An eager message `h` from `peer`: bound to the posted receive `r` it
    // matched (landing_for then says where the payload goes), or queued as
    // unexpected (the landing returned).
    void eager_matched(int peer, const Header& h, Request& r);
    Landing eager_unexpected(int peer, const Header& h);
    // on_packet for an eager message that lands in steps: unexpected (into
    // a new Unexpected), or into the segment of the posted receive `r` it
    // matched.
    [[gnu::noinline]] void packet_land(int peer, const Header& h, const std::byte* payload, Request* r);
    void send_control(int peer, Packet type, const Header& about, std::uint64_t receiver_req, std::uint8_t flags = 0);
    void on_cts(int peer, const Header& h);
    void on_cancel_req(int peer, const Header& h);
    void on_cancel_ack(const Header& h);
    void idle_step(unsigned idle);  // idle: a multiple of 16
    // Whether a waiting rank gives its core away after every idle pass: its
    // host runs more ranks than cores, or a peer last waited on its core.
    bool yield_each_pass() const { return oversubscribed_ || cpu_shared_; }
    void core_yield() {
        ++yields_;
        sched_yield();
    }
    // Tells the awaited methods this process's core; whether a peer waits there too.
    bool cpu_shared();
    bool transfer_underway() const;  // a polled method's peer copies our data
    Landing landing_for(Request& r);
    // The methods a request about `world_peer` needs polled (kAnySource:
    // `from_methods`, 0 meaning every method that reaches some process).
    std::uint32_t need_of(int world_peer, std::uint32_t from_methods = 0) const {
        if (world_peer != kAnySource) return 1u << route_[static_cast<std::size_t>(world_peer)];
        return from_methods != 0 ? from_methods : reaching_mask_;
    }
    // Whether the bit set `need` names exactly one method. Not
    // std::has_single_bit, which without a popcount instruction in the target
    // is a call into libgcc.
    static bool one_method(std::uint32_t need) { return need != 0 && (need & (need - 1)) == 0; }
    // Counts `need` in (out of) need_ and need_mask_. Inline for the usual
    // one method; a receive from MPI_ANY_SOURCE may name several.
    void need_add(std::uint32_t need) {
        if ((need & (need - 1)) != 0) [[unlikely]] return need_add_each(need);
        if (need != 0 && need_[static_cast<std::size_t>(std::countr_zero(need))]++ == 0) need_mask_ |= need;
    }
    void need_drop(std::uint32_t need) {
        if ((need & (need - 1)) != 0) [[unlikely]] return need_drop_each(need);
        if (need != 0 && --need_[static_cast<std::size_t>(std::countr_zero(need))] == 0) need_mask_ &= ~need;
    }
    void need_add_each(std::uint32_t need);
    void need_drop_each(std::uint32_t need);
    void need_set(Request& r, std::uint32_t need) {
        need_clear(r);
        r.need = need;
        need_add(need);
    }
    void need_clear(Request& r) {
        if (r.need == 0) return;
        need_drop(r.need);
        r.need = 0;
    }
    void sent_queued(int peer);
    // Methods the current pass must poll, as a bit set over method indexes.
    std::uint32_t poll_set() const { return need_mask_ | owed_mask_ | ending_mask_; }
    void qos_owed(int method);
    // Pipelined sends of non-contiguous data: pack and hand over the next chunks.
    int pump(Request& r);
    void pump_finish(Request& r);
    int pump_all();

    std::vector<std::unique_ptr<Method>> methods_;
    std::vector<int> route_;  // by world rank: index into methods_
    // qos_reserve's handles: per method (index), the method's own handle.
    std::unordered_map<std::uint64_t, std::vector<std::pair<int, std::uint64_t>>> qos_;
    std::uint64_t qos_next_ = 1;
    std::vector<std::uint8_t> peer_level_;  // by world rank: the topology level of the link to it
    std::vector<std::uint8_t> peer_relayed_;  // by world rank: 1 when its link passes a relay
    std::string my_site_;  // this process's site label (peers_add levels other jobs' processes by it)
    std::array<Traffic, wireup::kLevels> by_level_{};
    std::array<int, wireup::kLevels> level_kinds_{};  // this process's levels' kinds (wireup::Topology::kind)
    std::vector<Traffic> by_method_;
    Traffic relayed_;
    bool counting_ = false;
    void traffic_count(int world_peer, std::size_t bytes) {
        if (!counting_) [[likely]] return;
        const auto p = static_cast<std::size_t>(world_peer);
        Traffic& l = by_level_[peer_level_[p]];
        Traffic& m = by_method_[static_cast<std::size_t>(route_[p])];
        ++l.messages;
        l.bytes += bytes;
        ++m.messages;
        m.bytes += bytes;
        if (peer_relayed_[p] != 0) {
            ++relayed_.messages;
            relayed_.bytes += bytes;
        }
    }
    // Selective polling state, by method index.
    std::vector<int> need_;           // outstanding requests (and probes) needing the method
    std::uint32_t need_mask_ = 0;     // methods whose need_ is above 0
    std::uint32_t reaching_mask_ = 0;  // methods that reach some process (all until connect_world)
    std::uint32_t owed_mask_ = 0;     // queued control packets wait in the method
    std::uint32_t ending_mask_ = 0;   // every method, once the process is in MPI_Finalize (finalizing)
    std::vector<bool> slow_;          // poll_cost >= 10
    std::vector<std::size_t> eager_limit_;
    std::vector<std::uint64_t> polls_;
    std::uint32_t fast_mask_ = 0;  // cheap methods reaching other processes
    std::uint32_t slow_mask_ = 0;
    std::uint64_t pass_ = 0;
    std::uint64_t skip_poll_ = 1;
    // Requests by slot. An id is (generation << 32) | slot, so a stale or
    // forged id from the wire finds nothing; destroyed requests stay in their
    // slot for reuse, since every blocking MPI call creates one and an
    // allocation plus a hash-map insert each time cost more than the rest of
    // the engine's work for a small message.
    std::vector<std::unique_ptr<Request>> slots_;
    std::vector<std::uint32_t> generations_;  // by slot: generation of the last id handed out
    std::vector<std::uint32_t> free_slots_;
    PostedQueue posted_;
    UnexpectedQueue unexpected_;
    std::vector<std::uint64_t> pumping_;  // ids of pipelined sends with chunks left
    std::unordered_map<int, std::string> failed_peers_;
    std::string last_error_;
    std::vector<int> extra_fds_;
    bool oversubscribed_ = false;
    std::uint64_t yields_ = 0;
    std::uint64_t sleeps_ = 0;
    // A peer last waited on our core (every 16th idle pass asks): yield
    // between polls. Kept from one wait to the next until asked again.
    bool cpu_shared_ = false;
    std::uint64_t cpu_shared_waits_ = 0;
    std::chrono::microseconds spin_limit_{0};
    std::chrono::microseconds yield_after_{0};  // polling this long without an event, yield between polls
    std::chrono::steady_clock::time_point idle_since_;
};

// The ranks below `n` for which `in` holds, as "0,2-5"; empty when none (what
// mpirun -v prints).
std::string rank_ranges(std::size_t n, const std::function<bool(std::size_t)>& in);

}  // namespace strata::adi
