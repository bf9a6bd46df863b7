// devices/tcp: every pair of processes that nothing faster reaches, including
// wide-area links.
//
// One bidirectional connection per pair, opened on first use (plus, towards
// peers at other sites, up to STRATA_TCP_STREAMS one-way connections that
// the sender opens to stripe large payloads over: stripes.hpp). When both ends
// connect at once, the connection started by the lower rank wins: the higher
// rank's attempt is refused during the handshake and its queued packets go out
// on the winner. Header and data leave in one sendmsg() straight from the
// caller's buffer; arriving payloads are read straight into the landing
// buffer (reader.hpp). A read that comes back short has emptied the socket,
// so a small message costs one read, never a second one that returns EAGAIN.
// Sockets are non-blocking and polled through one level-triggered epoll set
// by poll(): the device never blocks the progress engine.
//
// The device drives epoll itself rather than through an Asio reactor: one
// epoll_wait(0) per poll and no handler allocation per packet keep the
// per-message cost at the level of the system calls.
//
// Every link starts with the job-key challenge-response of handshake.hpp; a
// connection that fails it is closed and logged on stderr; nothing else of
// the job changes. With STRATA_DATA_TLS, links between sites (or all links)
// then run TLS keyed by the job (tls_link.hpp) before any data.
//
// The method is the facade over its parts, each usable and tested alone:
//   connection.hpp  one connection: socket, handshake (connecting side),
//                   send queue and flush, staging buffer, TLS
//   handshake.hpp   the handshake's messages and its accepting side
//   reader.hpp      stream 0's bytes into headers and landed payloads
//   striping.hpp    a large payload over several connections, both ways
//   emulator.hpp    wide-area emulation, consulted by a link it shapes only
// TcpMethod owns the peers (each: its connections, its reader, its striping
// state, its shaped link if any), the epoll set, the listener and the
// accepted connections still in their handshake, and decides what the parts
// do not: which connection becomes a link, and that a failure anywhere on a
// link fails the whole link (reported once to the engine).
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "adi/method.hpp"
#include "devices/tcp/connection.hpp"
#include "devices/tcp/emulator.hpp"
#include "devices/tcp/handshake.hpp"
#include "devices/tcp/reader.hpp"
#include "devices/tcp/striping.hpp"
#include "relay/protocol.hpp"
#include "wireup/routes.hpp"

namespace strata::dev::tcp {

class TcpMethod final : public adi::Method {
public:
    explicit TcpMethod(adi::MethodContext ctx);
    ~TcpMethod() override;
    TcpMethod(const TcpMethod&) = delete;
    TcpMethod& operator=(const TcpMethod&) = delete;

    const adi::Capabilities& caps() const override { return caps_; }
    base::Status publish(wireup::BusinessCard& card) override;
    base::Status connect_world(const adi::World& world) override;
    bool reaches(int peer) const override;
    // Another job's processes: reached directly at the TCP address of their
    // card (not through relays), their links proven by the set's key and
    // opened at once (a link's end is how a process hears that a process of
    // the other job went away).
    bool peers_add(const adi::PeerSet& set) override;
    void peers_close(int first, int count) override;
    adi::SendStatus send(int peer, const adi::Header& h, std::span<const iovec> data, std::uint64_t token) override;
    bool send_now(int peer, const adi::Header& h, const std::byte* data, std::size_t n) override;
    int poll(adi::Upcalls& up) override;
    int wait_fd() const override { return epfd_; }
    // Packets held by wide-area emulation count as work: due ones now, and
    // those due within kEmulationSpin keep the process awake (a timer wakes
    // it for later ones), so delivery stays within microseconds of the stamp.
    bool busy() const override { return emulator_.next_due_in() == 0; }
    bool sleep_prepare() override;
    bool has_queued_sends() const override;
    void shutdown() override;
    int streams(int peer) const override { return peer_at(peer).streams; }
    bool streams_set(int peer, int n) override;
    // Premium service: the contexts' packets to the peers move to each
    // peer's premium lane (stripes.hpp), opened on first use and marked
    // DSCP EF; under emulation the reservation is the emulator's.
    base::Result<std::uint64_t> qos_reserve(std::span<const int> peers, std::span<const int> contexts,
                                            std::uint64_t bytes_per_s) override;
    void qos_release(std::uint64_t handle) override;
    // The IP_TOS of this process's premium lane to `peer` (-1: none open).
    int lane_tos(int peer) const;
    std::string report() const override;

    // The port the listener is bound to (tests, diagnostics).
    int port() const { return port_; }

    // System calls made on established links, so tests can prove how many a
    // message costs (timing cannot), and what went over extra streams. The
    // reads and writes are the sums of every connection's own counts.
    struct Counters {
        std::uint64_t waits = 0;   // epoll_wait
        std::uint64_t reads = 0;   // recv/readv on connected peers
        std::uint64_t writes = 0;  // send/sendmsg on connected peers
        std::uint64_t stripes_sent = 0;
        std::uint64_t stripes_received = 0;
        std::uint64_t lane_sent = 0;   // packets sent on premium lanes
        std::uint64_t lane_moves = 0;  // contexts moved between lanes (fences sent)
    };
    Counters counters() const;
    // Connections established with `peer`: those this process opened to send
    // stripes (its streams 1..), and those `peer` opened to it, plus stream 0
    // in each count.
    int streams_out(int peer) const;
    int streams_in(int peer) const;

private:
    using Link = Connection::State;

    // Whom a link's handshake proves itself to: the job (trusts_[0], world
    // ranks, the job key) or a set of another job's processes (set ranks,
    // the set's key; adi::PeerSet).
    struct Trust {
        std::uint64_t id = 0;
        std::string key;
        std::uint32_t me = 0;          // this process's rank in it
        std::uint32_t first_rank = 0;  // the rank of its peer `first`
        int first = 0;
        int count = 0;                 // its peers, from `first`
        std::string data_tls;          // the other job's STRATA_DATA_TLS ("" in the job)
    };

    struct Peer {
        Connection c;  // stream 0
        std::vector<std::unique_ptr<Connection>> sends;  // [k - 1]: our stream k to the peer
        std::vector<std::unique_ptr<Connection>> recvs;  // [k - 1]: the peer's stream k to us
        Remote remote;
        std::string error;
        // Receive side: stream 0's packets, and the stripes of a striped payload.
        Reader reader;
        StripeReader stripes;
        // Send side: streams used for the next striped packets, and their number.
        int streams = 1;
        std::uint64_t stripe_seq = 0;
        std::string site;  // the peer's "site" label, for STRATA_DATA_TLS=wan
        // How the link is made (wireup/routes.hpp), and the peer's site's
        // relay where the route goes through it.
        wireup::Route route = wireup::Route::direct;
        relay::Endpoint relay;
        ShapedLink* shaping = nullptr;  // wide-area emulation, on a link it shapes
        std::uint32_t trust = 0;  // index into trusts_
        // Premium service (stripes.hpp's lanes). Send side: the contexts
        // whose packets take the premium lane (sends[kLaneStream - 1]), each
        // with how many reservations hold it, and the last fence number.
        std::vector<std::pair<int, int>> premium;
        std::uint64_t fence_seq = 0;
        // Receive side: the premium lane's reader, the fences taken, the
        // fence each lane's wait record waits for (0: none), and whether a
        // lane may go on with what it has staged (lanes_resume).
        Reader lane_reader;
        LaneFences fences;
        std::uint64_t waiting[2] = {0, 0};
        bool resumed = false;
    };
    struct QosHold {
        std::vector<int> peers;
        std::vector<int> contexts;
        QosGrant grant;
    };

    Peer& peer_at(int peer) { return *peers_[static_cast<std::size_t>(peer)]; }
    const Peer& peer_at(int peer) const { return *peers_[static_cast<std::size_t>(peer)]; }
    const Trust& trust_of(int peer) const { return trusts_[peer_at(peer).trust]; }
    // A new peer at index `peer` (peers_.size()) of trusts_[trust].
    void peer_new(int peer, std::uint32_t trust);
    // Where `card` says the peer listens (a rank of the job or of another);
    // `index` names it in the error.
    base::Status peer_address_set(Peer& p, const wireup::BusinessCard& card, const std::string& index);
    // The Hello of `in` read: which trust and peer it claims, checked; then
    // the challenge.
    base::Status incoming_claim(Incoming& in);

    base::Status listen_open();
    // The emulation's timer in the epoll set, once it exists.
    void timer_watch();
    // connect_world's part for the routes: each peer's.
    base::Status routes_set(const std::vector<wireup::BusinessCard>& cards, std::size_t me);
    // At a private site, from publish(): the attach connection to the site's
    // relay, on which it offers this process the streams other sites open.
    base::Status relay_attach();
    // A connection of a link whose route is not direct: through this site's
    // relay, the peer's, or both (wireup/routes.hpp).
    void relay_connect(int peer, Connection& c);
    // relay_handshake: the relay's next step; once it answered, the Hello.
    void relay_step(int peer, Connection& c);
    // The relay's Notices on the attach connection: a stream to take.
    void relay_notices();
    void relay_notice(const relay::Notice& n);
    void relay_lost(const std::string& why);
    // What connect_world refuses: STRATA_DATA_TLS or STRATA_TCP_STREAMS out of
    // range, too many processes, or ranks that disagree on TLS.
    base::Status settings_check(const std::vector<wireup::BusinessCard>& cards, int my_rank) const;
    // A connection of `peer` for the epoll set under `key` (stream 0's, or a
    // new extra stream's).
    std::unique_ptr<Connection> conn_make(int peer, std::uint64_t kind, std::uint32_t stream) const;
    // The connecting side's steps (connection.hpp), a failure failing the link.
    void start_connect(int peer, Connection& c);
    void on_connected(int peer, Connection& c);
    void on_reply(int peer, Connection& c, adi::Upcalls& up);
    // The accepting side (handshake.hpp): reads the Hello, challenges it,
    // checks the response and decides whether the connection becomes the
    // link; a connection refused is closed (and logged when `why` says
    // why).
    void on_incoming(int fd);
    void decide_incoming(Incoming& in);
    void incoming_drop(int fd, const char* why);
    // Adds an accepted connection (or one a relay handed over) to the
    // handshakes in progress; `from` names it in the log.
    void incoming_add(int fd, std::string from);
    // Its epoll interest: readable, and writable while a relay's handshake
    // waits to connect.
    void incoming_watch(const Incoming& in);
    // Drops accepted connections that have not finished the handshake in
    // time, so silent strangers cannot pile up.
    void incoming_expire();
    // Events of the epoll set (poll): new connections on the listener; an
    // event on stream 0 of a link or on an extra stream (false: no such
    // stream); the handshake's next step on a connection not yet connected.
    // The per-event and per-message steps below, and those of the parts they
    // call (Reader::read_iov, Reader::direct_landed, Connection::write), are
    // inline, so poll() and read_peer() compile to the calls they would make
    // written in one piece.
    void incoming_accept();
    void peer_event(int peer, std::uint32_t events, adi::Upcalls& up);
    bool stream_event(std::uint64_t key, std::uint32_t events, adi::Upcalls& up);
    void handshake_event(int peer, Connection& c, std::uint32_t events, adi::Upcalls& up);
    // Reads stream 0 (Lane 0) or the premium lane (Lane 1): into the
    // lane's reader's buffers, then through the reader or, on a shaped link,
    // into the emulation.
    void read_peer(int peer, adi::Upcalls& up) { read_lane<0>(peer, peer_at(peer).c, up); }
    template <int Lane>
    void read_lane(int peer, Connection& c, adi::Upcalls& up);
    // The premium lane: this process's to `peer` (opened on first use), and
    // the peer's to this process (nullptr: none).
    Connection& lane_out(int peer);
    Connection* lane_in(Peer& p) {
        return p.recvs.size() >= kLaneStream ? p.recvs[kLaneStream - 1].get() : nullptr;
    }
    adi::SendStatus send_lane(int peer, const adi::Header& h, std::span<const iovec> data, std::uint64_t token);
    // One more (delta 1) or one fewer (-1) reservation holds `context` on
    // `peer`'s premium lane; at the first and the last, the context moves
    // between the lanes behind a fence.
    void premium_mark(int peer, int context, int delta);
    void record_queue(int peer, Connection& c, std::uint8_t type, std::uint64_t seq);
    // A lane's reader met a fence (its number passed; the other lane may go
    // on) or a wait (false: the lane stops until the other's fence).
    bool mark_taken(Peer& p, int lane, Reader::Parsed what, std::uint64_t n);
    void lanes_resume(int peer, adi::Upcalls& up);
    // A read on `c` that returned `n` < 0, or 0 where bytes were asked for:
    // true when it was interrupted and goes again; otherwise false, the link
    // having failed unless the socket was only empty.
    bool read_retry(int peer, const Connection& c, ssize_t n, adi::Upcalls& up);
    // Stream 0 ended: the peer finished (its connections close) or, with
    // anything still owed either way, the link failed.
    void peer_closed(int peer, adi::Upcalls& up);
    // Links whose end arrived while the emulation still held packets sent
    // before it: ended once those are delivered.
    void closing_check(adi::Upcalls& up);
    // Closes every connection of `p` (the peer closed, or shutdown()).
    void peer_close(Peer& p);
    // What a lane has staged, through its reader: a striped packet's plan
    // starts its stripes (stream 0 only), a malformed one fails the link, a
    // wait whose fence has not come stops the lane.
    template <int Lane = 0>
    void parse_staged(int peer, Peer& p, adi::Upcalls& up);
    // The stripes of the striped payload, then what stream 0 holds after it,
    // as long as packets keep coming whole; false while a striped payload
    // waits (stream 0 muted while another stream's bytes come first).
    bool stripes_go(int peer, adi::Upcalls& up);
    // Reads an extra stream's bytes: held by the emulation, or taken by
    // stripes_go when they come next; otherwise the stream waits, muted.
    void read_stream(int peer, Connection& c, adi::Upcalls& up);
    void flush(int peer, Connection& c, adi::Upcalls* up);
    adi::SendStatus send_striped(int peer, const adi::Header& h, std::span<const iovec> data, std::uint64_t token,
                                 std::uint64_t payload);
    // Opens the extra streams a striped send to `peer` uses; false: the link failed.
    bool streams_open(int peer, int n);
    void link_failed(int peer, const std::string& why, adi::Upcalls* up);
    // Whether the link to `peer` runs TLS (STRATA_DATA_TLS; both ends decide alike).
    bool wants_tls(int peer) const;
    bool encrypts(int peer) const override { return wants_tls(peer); }
    bool relays(int peer) const override {
        return peer_at(peer).route != wireup::Route::direct;
    }
    // After the answer: TLS on the link (tls_handshake), or connected at once.
    void link_established(int peer, Connection& c, bool server, const security::Nonce& connector,
                          const security::Nonce& acceptor, std::uint32_t from, std::uint32_t to);
    // Once `c` is connected: what waits to go, and what came.
    void conn_ready(int peer, Connection& c, adi::Upcalls& up);
    void tls_step(int peer, Connection& c, adi::Upcalls& up);
    Connection* conn_of(int peer, std::uint64_t key);

    adi::MethodContext ctx_;
    std::string my_site_;
    std::string data_tls_;  // "off", "wan" or "all"
    adi::Capabilities caps_;
    std::size_t stripe_unit_ = 0;
    int epfd_ = -1;
    int listen_fd_ = -1;
    int port_ = 0;
    std::string address_;  // the listener's card address
    // By peer index: the job's ranks, then other jobs' processes (peers_add).
    // Each peer in its own allocation, so that adding peers moves none.
    std::vector<std::unique_ptr<Peer>> peers_;
    std::vector<Trust> trusts_;
    std::string my_host_;  // this process's card's host (loopback reaches peers with the same)
    std::unordered_map<int, Incoming> incoming_;
    // At a private site: its relay, and the attach connection to it with the
    // part of a Notice read so far.
    std::optional<relay::Endpoint> my_relay_;
    int attach_fd_ = -1;
    std::vector<std::uint8_t> notice_got_;
    adi::PeerFailures failures_;  // reported at the next poll
    std::vector<std::uint64_t> sent_later_;  // sends completed inside send(): reported at the next poll
    Counters counters_;  // waits and stripes sent; counters() adds the connections' and the readers'
    Emulator emulator_;
    std::vector<int> closing_;  // peer_closed waits for the emulation (closing_check)
    std::unordered_map<std::uint64_t, QosHold> qos_;  // by qos_reserve's handle
    std::uint64_t qos_next_ = 1;
};

std::unique_ptr<adi::Method> create(const adi::MethodContext& ctx);

}  // namespace strata::dev::tcp
