// devices/tcp: every pair of processes that nothing faster reaches, including
// wide-area links.
//
// One bidirectional connection per pair, opened on first use (plus, towards
// peers at other sites, up to STRATA_TCP_STREAMS one-way connections that
// the sender opens to stripe large payloads over: stripes.hpp). When both ends
// connect at once, the connection started by the lower rank wins: the higher
// rank's attempt is refused during the handshake and its queued packets go out
// on the winner. Header and data leave in one sendmsg() straight from the
// caller's buffer; arriving payloads are read with readv() straight into the
// landing buffer (the posted receive for rendezvous data, or the engine's
// unpacking buffer for non-contiguous receives), with a small
// staging buffer as the second iovec to pick up the following headers in the
// same system call; otherwise one recv() into the staging buffer picks up
// headers and small payloads together. A read that comes back short has
// emptied the socket, so a small message costs one read, never a second one
// that returns EAGAIN. Sockets are non-blocking and polled through one
// level-triggered epoll set by poll(): the device never blocks the progress
// engine.
//
// The device drives epoll itself rather than through an Asio reactor: one
// epoll_wait(0) per poll and no handler allocation per packet keep the
// per-message cost at the level of the system calls.
//
// Every link starts with the job-key challenge-response of
// security/challenge.hpp, in fixed-size messages:
//   connector -> acceptor  Hello     magic, from rank, to rank, stream, nonce (48 B)
//   acceptor -> connector  Challenge nonce, acceptor's proof (64 B)
//   connector -> acceptor  Response  connector's proof (32 B)
//   acceptor -> connector  Answer    u32: 1 = this link, 0 = the other (4 B)
// The proofs of an extra stream (stream index above 0) bind its index too.
// A connection that fails it is closed and logged on stderr; nothing else
// of the job changes. With STRATA_DATA_TLS, links between sites (or all
// links) then run TLS keyed by the job (tls_link.hpp) before any data.
#pragma once

#include <netinet/in.h>

#include <array>
#include <chrono>
#include <deque>
#include <memory>
#include <unordered_map>
#include <vector>

#include "adi/method.hpp"
#include "devices/tcp/emulator.hpp"
#include "devices/tcp/stripes.hpp"
#include "devices/tcp/tls_link.hpp"
#include "security/challenge.hpp"

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
    int streams(int peer) const override { return peers_[static_cast<std::size_t>(peer)].streams; }
    bool streams_set(int peer, int n) override;
    std::string report() const override;

    // The port the listener is bound to (tests, diagnostics).
    int port() const { return port_; }

    // System calls made on established links, so tests can prove how many a
    // message costs (timing cannot), and what went over extra streams.
    struct Counters {
        std::uint64_t waits = 0;   // epoll_wait
        std::uint64_t reads = 0;   // recv/readv on connected peers
        std::uint64_t writes = 0;  // sendmsg on connected peers
        std::uint64_t stripes_sent = 0;
        std::uint64_t stripes_received = 0;
    };
    const Counters& counters() const { return counters_; }
    // Connections established with `peer`: those this process opened to send
    // stripes (its streams 1..), and those `peer` opened to it, plus stream 0
    // in each count.
    int streams_out(int peer) const;
    int streams_in(int peer) const;

private:
    // The connecting side goes connecting -> hello_sent (awaits the
    // acceptor's challenge) -> response_sent (awaits its answer) -> connected.
    // A link that STRATA_DATA_TLS covers goes through tls_handshake before
    // connected.
    enum class Link {
        idle,
        connecting,
        hello_sent,
        response_sent,
        awaiting_incoming,
        tls_handshake,
        connected,
        closed,
        failed
    };

    // A striped send: done when the last of its packets has left.
    struct Striped {
        std::uint64_t token = 0;
        std::size_t left = 0;
    };

    // What leaves on the wire, in its wire form (little-endian).
    struct OutPacket {
        std::uint64_t due = 0;  // wide-area emulation's stamp, sent before the header on shaped links
        StripeRecord record{};  // a striped packet's plan, or a stripe's record
        adi::Header header;
        std::vector<iovec> iov;  // the stamp (on shaped links), the record, the header, the data
        std::uint64_t token = 0;
        std::vector<std::byte> copy;  // send_now: the bytes the socket did not take at once
        std::shared_ptr<Striped> group;  // set on the packets of a striped send
    };

    // One TCP connection of a link: stream 0 (both ways), or an extra stream
    // (one way: stripes from the process that opened it).
    struct Conn {
        int fd = -1;
        Link link = Link::idle;
        std::uint32_t stream = 0;
        std::uint64_t key = 0;  // its epoll key
        std::deque<std::unique_ptr<OutPacket>> out;
        bool want_out = false;  // EPOLLOUT registered
        bool want_in = true;    // EPOLLIN registered (off while another stream's bytes come first)
        // Received bytes not yet consumed.
        std::vector<std::byte> rx;
        std::size_t rx_begin = 0;
        std::size_t rx_end = 0;
        // Outgoing handshake: our nonce, and the acceptor's challenge, then
        // its answer, as they arrive.
        security::Nonce nonce{};
        security::Nonce acceptor_nonce{};
        std::array<std::uint8_t, 64> reply{};
        std::size_t reply_got = 0;
        std::size_t reply_need = 0;
        std::unique_ptr<TlsLink> tls;  // set on links that STRATA_DATA_TLS covers
        bool established = false;      // it was connected once
    };

    struct Peer {
        Conn c;  // stream 0
        std::vector<std::unique_ptr<Conn>> sends;  // [k - 1]: our stream k to the peer
        std::vector<std::unique_ptr<Conn>> recvs;  // [k - 1]: the peer's stream k to us
        std::string hostname;
        std::string address;  // where to connect: "a.b.c.d"
        int port = 0;
        std::string error;
        // Receive side: the packet whose payload is arriving.
        bool in_payload = false;
        adi::Header cur{};
        adi::Landing land;
        std::size_t land_at = 0;     // bytes written into `land`
        std::uint64_t pay_done = 0;  // payload bytes consumed
        // A striped payload (stripes.hpp): its plan, the stripe arriving, and
        // whether its record was read and how many of its bytes are left.
        bool striped = false;
        StripeRecord plan{};
        std::uint64_t stripe = 0;
        bool stripe_head = false;
        std::uint64_t stripe_left = 0;
        // Send side: streams used for the next striped packets, and their number.
        int streams = 1;
        std::uint64_t stripe_seq = 0;
        std::string site;  // the peer's "site" label, for STRATA_DATA_TLS=wan
    };

    // An accepted connection still in its handshake: Hello read, then (once
    // challenged) the connector's proof.
    struct Incoming {
        int fd = -1;
        std::string from;  // printable remote address, for the log
        std::chrono::steady_clock::time_point since;
        std::vector<std::uint8_t> got;
        bool challenged = false;
        std::uint32_t from_rank = 0;
        std::uint32_t stream = 0;
        security::Nonce connector_nonce{};
        security::Nonce acceptor_nonce{};
    };

    base::Status listen_open();
    // What connect_world refuses: STRATA_DATA_TLS or STRATA_TCP_STREAMS out of
    // range, too many processes, or ranks that disagree on TLS.
    base::Status settings_check(const std::vector<wireup::BusinessCard>& cards, int my_rank) const;
    void start_connect(int peer, Conn& c);
    void on_connected(int peer, Conn& c);
    void on_reply(int peer, Conn& c, adi::Upcalls& up);
    void on_incoming(int fd);
    // A complete Hello: answer it with a challenge; fails (saying why) to drop.
    base::Status challenge_incoming(Incoming& in);
    void decide_incoming(Incoming& in);
    void incoming_drop(int fd, const char* why);
    // Drops accepted connections that have not finished the handshake in
    // time, so silent strangers cannot pile up.
    void incoming_expire();
    // The proof (or TLS key) of stream `stream` of the link from `from` to `to`.
    security::Proof link_proof(security::ProofRole role, const security::Nonce& connector,
                               const security::Nonce& acceptor, std::uint32_t from, std::uint32_t to,
                               std::uint32_t stream) const;
    // Events of the epoll set (poll): new connections on the listener; an
    // event on stream 0 of a link or on an extra stream (false: no such
    // stream); the handshake's next step on a connection not yet connected.
    // The per-event and per-message steps below are inline, so poll() and
    // read_peer() compile to the calls they would make written in one piece.
    void incoming_accept();
    void peer_event(int peer, std::uint32_t events, adi::Upcalls& up);
    bool stream_event(std::uint64_t key, std::uint32_t events, adi::Upcalls& up);
    void handshake_event(int peer, Conn& c, std::uint32_t events, adi::Upcalls& up);
    void read_peer(int peer, adi::Upcalls& up);
    // The buffers of the next read on stream 0 (`iov`, `n_iov` of them): the
    // rest of the payload straight into its landing when nothing is staged
    // (returns how many bytes go there), then the staging buffer.
    std::size_t read_iov(Peer& p, iovec* iov, int& n_iov);
    // `into` payload bytes were read straight into the landing.
    void direct_landed(int peer, Peer& p, std::size_t into, adi::Upcalls& up);
    // A read on `c` that returned `n` < 0, or 0 where bytes were asked for:
    // true when it was interrupted and goes again; otherwise false, the link
    // having failed unless the socket was only empty.
    bool read_retry(int peer, const Conn& c, ssize_t n, adi::Upcalls& up);
    // What that read said, for link_failed: the peer closed (n == 0), TLS
    // failed, or the system call did (errno).
    std::string read_failure(int peer, const Conn& c, ssize_t n) const;
    // Stream 0 ended: the peer finished (its connections close) or, with
    // anything still owed either way, the link failed.
    void peer_closed(int peer, adi::Upcalls& up);
    // Closes every connection of `p` (the peer closed, or shutdown()).
    void peer_close(Peer& p);
    void parse_staged(int peer, adi::Upcalls& up);
    // Payload bytes that belong in the current landing went in: move to the
    // next landing when it is full and the payload goes on.
    void landing_advance(Peer& p, int peer, adi::Upcalls& up);
    // `n` payload bytes at `src`, in order, into the landings (what no landing takes is discarded).
    void land_bytes(Peer& p, int peer, adi::Upcalls& up, const std::byte* src, std::size_t n);
    // A striped payload: reads its stripes in order from their streams until
    // it is complete (true) or the next bytes are not there yet (false).
    bool stripes_read(int peer, adi::Upcalls& up);
    // Its steps: the connection the current stripe comes on (nullptr: wait,
    // or the link failed); the stripe's record, from staging or read (`n`,
    // `asked`; false: out of order, the link failed); a read straight into
    // the landing; and a stripe complete (true: the whole payload is).
    Conn* stripe_conn(int peer, Peer& p, adi::Upcalls& up);
    bool stripe_head_next(int peer, Peer& p, Conn& c, adi::Upcalls& up, ssize_t& n, std::size_t& asked);
    ssize_t stripe_read_direct(int peer, Peer& p, Conn& c, adi::Upcalls& up, std::size_t& asked);
    bool stripe_done(int peer, Peer& p, std::uint64_t count, adi::Upcalls& up);
    // stripes_read, then what stream 0 holds after the payload, as long as
    // packets keep coming whole; false while a striped payload waits.
    bool stripes_go(int peer, adi::Upcalls& up);
    // Reads an extra stream's bytes: held by the emulation, or taken by
    // stripes_read when they come next; otherwise the stream waits, muted.
    void read_stream(int peer, Conn& c, adi::Upcalls& up);
    // One read on `c` into `iov` (TLS: the first buffer only); counts it.
    ssize_t conn_read(Conn& c, iovec* iov, int n_iov);
    // The same into one buffer (inline: a stripe's record is read so).
    ssize_t conn_recv(Conn& c, void* buf, std::size_t n);
    void flush(int peer, Conn& c, adi::Upcalls* up);
    adi::SendStatus send_striped(int peer, const adi::Header& h, std::span<const iovec> data, std::uint64_t token,
                                 std::uint64_t payload);
    // A packet for the send queue: its stamp (when `shaped`), header and data.
    static std::unique_ptr<OutPacket> out_packet(const adi::Header& h, std::span<const iovec> data,
                                                 std::uint64_t token, bool shaped, std::uint64_t due);
    void link_failed(int peer, const std::string& why, adi::Upcalls* up);
    // Whether the link to `peer` runs TLS (STRATA_DATA_TLS; both ends decide alike).
    bool wants_tls(int peer) const;
    bool encrypts(int peer) const override { return wants_tls(peer); }
    // After the answer: TLS on the link (tls_handshake), or connected at once.
    void link_established(int peer, Conn& c, bool server, const security::Nonce& connector,
                          const security::Nonce& acceptor, std::uint32_t from, std::uint32_t to);
    // Once `c` is connected: what waits to go, and what came.
    void conn_ready(int peer, Conn& c, adi::Upcalls& up);
    void tls_step(int peer, Conn& c, adi::Upcalls& up);
    void conn_close(Conn& c);
    // The epoll set's view of `c`: read and write interest as its flags say.
    void conn_watch(Conn& c, bool add);
    void set_want_out(Conn& c, bool on);
    void set_want_in(Conn& c, bool on);
    Conn* conn_of(int peer, std::uint64_t key);

    adi::MethodContext ctx_;
    std::string my_site_;
    std::string data_tls_;  // "off", "wan" or "all"
    adi::Capabilities caps_;
    std::size_t stripe_unit_ = 0;
    int epfd_ = -1;
    int listen_fd_ = -1;
    int port_ = 0;
    std::vector<Peer> peers_;
    std::unordered_map<int, Incoming> incoming_;
    adi::PeerFailures failures_;  // reported at the next poll
    std::vector<std::uint64_t> sent_later_;  // sends completed inside send(): reported at the next poll
    Counters counters_;
    Emulator emulator_;
};

std::unique_ptr<adi::Method> create(const adi::MethodContext& ctx);

}  // namespace strata::dev::tcp
