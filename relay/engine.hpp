// The inside of a Relay (relay.hpp): what it holds per connection, and the
// event loop over them. One file per concern implements it:
//   engine.cpp     the loop, timers, the listener, stopping, accounting
//   admission.cpp  accepted connections' handshake, and what each kind
//                  of Open becomes (attach, pair, accept, link, and the
//                  splices of splice.cpp)
//   link.cpp       links: dialling one, reading frames, the fair writer
//   stream.cpp     pair streams: the rank's socket, credit, close, reset
//   splice.cpp     control connections: a rank spliced to mpirun
//   hub.cpp        mpirun's hub (relays joined where they cannot dial each
//                  other), and a relay's side of it
//
// Every socket's epoll key is its role (top byte) and a serial number, so
// an event for a socket closed earlier in the same batch finds nothing
// instead of its descriptor's next owner. Whatever may free an object
// returns whether the caller's object still exists; no reference to a map
// element is kept across such a call.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "relay/dial.hpp"
#include "relay/io.hpp"
#include "relay/protocol.hpp"
#include "relay/relay.hpp"

namespace strata::relay {

using Clock = std::chrono::steady_clock;
// A handshake not finished by then, or a stream nobody accepted, is dropped.
inline constexpr auto kHandshakeTimeout = std::chrono::seconds(10);
inline constexpr auto kAcceptTimeout = std::chrono::seconds(10);
// A relay that knows mpirun's hub waits this long for a link's connection
// (a firewall that drops it says nothing), then links through the hub.
inline constexpr auto kLinkConnectTimeout = std::chrono::seconds(3);
// A relay's attach to mpirun's hub, made before it announces its port: within
// the gatekeeper's wait for that port (5 s), so that a hub it cannot reach is
// the reason it gives.
inline constexpr auto kHubAttachTimeout = std::chrono::seconds(4);
// A link writes frames in batches of about this much (the per-link part of
// the memory bound), and drops a peer that leaves this much control unread.
inline constexpr std::size_t kWriteBatch = 64 * 1024;
inline constexpr std::size_t kControlMax = 4 * 1024 * 1024;
// An attached rank that leaves this many bytes of Notices unread is detached.
inline constexpr std::size_t kNoticeBacklog = 64 * 1024;

// An endpoint as one word, the key of the maps by endpoint.
inline std::uint64_t endpoint_key(const Endpoint& e) { return std::uint64_t{e.address} << 16 | e.port; }

enum class Role : std::uint8_t {
    listener = 1, wake, stop, lifeline, pending, link, attach, rank, splice_rank, splice_far, hub, hub_dial
};

// An accepted connection in its handshake.
struct Pending {
    Watch w;
    std::string peer;  // "a.b.c.d:port", for the log
    Clock::time_point since;
    std::vector<std::uint8_t> got;
    bool challenged = false;
    Open open;
    security::Nonce relay_nonce{};
};

// A link between two relays. The dialling side goes through its own
// handshake first (connecting, open_sent, response_sent); through mpirun's
// hub, the hub's handshake comes before (hub_leg).
struct Link {
    enum class State { connecting, hub_leg, open_sent, response_sent, up };
    Watch w;
    std::string peer;  // the endpoint dialled, or the accepted connection's address
    Endpoint endpoint;  // the peer relay's, when known (0 otherwise)
    bool dialled = false;
    bool via_hub = false;
    bool farewell = false;      // the peer said bye: its end is no failure
    std::optional<Dialer> leg;  // hub_leg: the hub's handshake
    State state = State::up;
    Clock::time_point since;
    Open open;                      // dialled: the Open sent
    std::vector<std::uint8_t> got;  // the handshake's reply, then frames not yet whole
    // Waiting to be written, in this order: control frames (OPEN, RESET),
    // streams owing CREDIT, then one frame per stream per turn.
    std::deque<std::vector<std::uint8_t>> control;
    std::size_t control_bytes = 0;
    std::deque<std::uint64_t> credits;
    std::deque<std::uint64_t> ready;
    std::vector<std::uint8_t> out;  // the batch being written
    std::size_t out_at = 0;
    std::unordered_map<std::uint32_t, std::uint64_t> streams;  // link id -> stream key
    std::uint32_t next_id = 1;
};

// One pair stream of a link: its rank's socket (on the accepting side, none
// until the rank takes the Notice's token) and what waits each way.
struct Stream {
    Watch w;
    std::uint64_t link = 0;
    std::uint32_t id = 0;
    OpenPayload ends;  // from, to, the ranks' stream index
    std::uint32_t credit = kWindow;     // what this relay may still send
    std::uint32_t allowance = kWindow;  // what the peer may still send
    std::uint32_t credit_owed = 0;      // granted, not yet sent
    bool credit_queued = false;
    bool in_ready = false;
    ByteQueue to_link;
    ByteQueue to_rank;
    bool rank_eof = false;     // the rank closed its side (a CLOSE follows the data)
    bool close_sent = false;
    bool peer_closed = false;  // a CLOSE came: shut the rank's side once drained
    bool shut = false;
    std::uint64_t token = 0;  // waiting for the accept with this token
    Clock::time_point since;
};

// Two sockets forwarded to each other: the rank that opened it (side 0)
// and what it asked for (side 1): mpirun (control), a public site's rank
// (egress), or the rank of this site that takes the offer (ingress: none
// until it accepts the token).
struct Splice {
    std::uint32_t rank = 0;
    std::uint32_t to = 0;     // ingress: the rank offered it
    std::string far;          // side 1, for the log: "mpirun", "rank 5"
    std::uint64_t token = 0;  // ingress: waiting for the accept with this token
    Clock::time_point since;
    Watch side[2];
    ByteQueue queue[2];  // [side]: bytes waiting to be written to that side
    bool eof[2] = {false, false};   // that side closed its sending half
    bool shut[2] = {false, false};  // that side's writing half was shut (the other's end passed on)
    bool connecting = false;        // mpirun's side not connected yet
};

// A rank attached to this relay, or (at mpirun's hub) a relay.
struct Attach {
    Watch w;
    std::uint32_t rank = 0;
    std::optional<Endpoint> relay;  // a relay attached to the hub: its endpoint
    std::string peer;
    std::vector<std::uint8_t> out;  // Notices not yet written
};

class Engine {
public:
    Engine(Options options, base::UniqueFd epoll, base::UniqueFd listener, base::UniqueFd wake, int port);
    static base::Result<std::unique_ptr<Engine>> open(Options options);

    int port() const { return port_; }
    base::Status run();
    void stop();
    Stats stats() const;

private:
    struct Counters {
        std::atomic<std::uint64_t> streams_opened{0}, from_ranks{0}, to_ranks{0}, buffered{0}, peak{0},
            links_opened{0}, links{0}, streams{0};
    };

    // engine.cpp
    std::uint64_t key_make(Role role);
    void event(std::uint64_t key, std::uint32_t events);
    void control_event(Role role, int fd);
    void sweep();
    void dirty_flush();
    void log(const std::string& line) const;
    void buffered_add(std::size_t n);
    void buffered_sub(std::size_t n);
    std::string stream_name(const Stream& s) const;

    // admission.cpp
    void listener_accept();
    void pending_step(std::uint64_t key);
    void pending_drop(std::uint64_t key, const std::string& why);
    void pending_challenge(std::uint64_t key, Pending& p);
    void pending_answer(std::uint64_t key, Pending& p);
    std::string admissible(const Open& o) const;
    void admit(Pending& p);
    void attach_admit(Pending& p);
    void accept_admit(Pending& p);
    void link_admit(Pending& p);
    void attach_event(std::uint64_t key, std::uint32_t events);
    void attach_drop(std::uint64_t key, const std::string& why);
    void attach_flush(std::uint64_t key);
    bool notice_send(std::uint32_t rank, const Notice& n);
    bool notice_to(std::uint64_t attach_key, const Notice& n);

    // link.cpp
    std::uint64_t link_for(const Endpoint& e);
    std::uint64_t link_dial(const Endpoint& e);
    void link_event(std::uint64_t key, std::uint32_t events);
    void link_handshake(std::uint64_t key, Link& l, std::uint32_t events);
    void link_connected(std::uint64_t key, Link& l);
    void link_challenged(std::uint64_t key, Link& l);
    void link_answered(std::uint64_t key, Link& l);
    bool link_read(std::uint64_t key, Link& l);
    bool frames_parse(std::uint64_t key, Link& l);
    bool frame_handle(std::uint64_t key, Link& l, const FrameHeader& h, std::span<const std::uint8_t> payload);
    bool frame_open(std::uint64_t key, Link& l, std::uint32_t id, std::span<const std::uint8_t> payload);
    void link_write(std::uint64_t key);
    void link_fill(Link& l);
    void link_turn(Link& l, std::uint64_t stream_key);
    void link_append(Link& l, FrameType type, std::uint32_t id, std::span<const std::uint8_t> payload);
    void link_control(std::uint64_t key, FrameType type, std::uint32_t id, std::span<const std::uint8_t> payload);
    void link_interest(Link& l);
    void link_lost(std::uint64_t key, const std::string& why);
    void links_bye();

    // splice.cpp
    void splice_dial(Pending& p, const Endpoint& to, const std::string& far);
    void splice_offer(Pending& p, std::uint64_t attach_key, std::string far);
    void splice_accept(Pending& p, std::uint64_t serial);
    std::uint64_t splice_add(Pending& p, std::string far);
    void splice_event(std::uint64_t key, std::uint32_t events);
    bool splice_read(std::uint64_t serial, int side);
    bool splice_write(std::uint64_t serial, int side);
    void splice_interest(Splice& s);
    void splice_close(std::uint64_t serial, const std::string& why);

    // hub.cpp
    std::string hub_admissible(const Open& o) const;
    void hub_admit(Pending& p);
    base::Status hub_attach();
    void hub_event(std::uint32_t events);
    void hub_accept(const Notice& n);
    void hub_dial_event(std::uint64_t key);
    bool link_via_hub(std::uint64_t key, Link& l, const std::string& why);
    void link_leg_step(std::uint64_t key, Link& l);

    // stream.cpp
    void pair_admit(Pending& p);
    void stream_offer(std::uint64_t link_key, Link& l, std::uint32_t id, const OpenPayload& ends);
    void rank_event(std::uint64_t key, std::uint32_t events);
    bool rank_read(std::uint64_t key, Stream& s);
    void rank_flush(std::uint64_t key);
    void rank_interest(Stream& s);
    void stream_ready(std::uint64_t key, Stream& s);
    void credit_grant(std::uint64_t key, Stream& s, std::size_t n);
    bool stream_data(std::uint64_t key, std::span<const std::uint8_t> payload);
    bool stream_credit(std::uint64_t key, std::uint32_t grant);
    void stream_peer_close(std::uint64_t key);
    void stream_done_check(std::uint64_t key);
    void stream_reset(std::uint64_t key, const std::string& why);
    void stream_free(std::uint64_t key);

    Options options_;
    base::UniqueFd epoll_;
    Watch listener_;
    Watch wake_;
    Watch stop_;
    Watch lifeline_;
    int port_ = 0;
    bool stopping_ = false;
    std::uint64_t serial_ = 0;
    Clock::time_point last_sweep_;
    std::vector<std::uint8_t> scratch_ = std::vector<std::uint8_t>(kChunk);

    std::unordered_map<std::uint64_t, Pending> pending_;
    std::unordered_map<std::uint64_t, Link> links_;
    // The link to use to a peer relay's endpoint (address << 16 | port): one
    // this relay dialled, or one the peer dialled naming its endpoint.
    std::unordered_map<std::uint64_t, std::uint64_t> dialled_;
    std::unordered_map<std::uint64_t, Stream> streams_;
    std::unordered_map<std::uint64_t, std::uint64_t> tokens_;  // accept token -> stream
    std::unordered_map<std::uint64_t, Splice> splices_;  // by serial (the key's low 56 bits)
    std::unordered_map<std::uint64_t, std::uint64_t> splice_tokens_;  // accept token -> splice
    std::unordered_map<std::uint64_t, Attach> attaches_;
    std::unordered_map<std::uint64_t, std::uint64_t> attached_;  // rank -> attach
    std::unordered_set<std::uint64_t> dirty_;                    // links with frames to write
    // At mpirun's hub: attached relays by endpoint. At a relay: its attach
    // connection to the hub, the Notices read so far, and the accepts
    // dialled to the hub for the links it offers.
    std::unordered_map<std::uint64_t, std::uint64_t> relays_attached_;
    Watch hub_;
    std::vector<std::uint8_t> hub_got_;
    std::unordered_map<std::uint64_t, Dialer> hub_dials_;
    Counters counters_;
};

}  // namespace strata::relay
