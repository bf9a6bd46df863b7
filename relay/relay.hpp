// The relay of a private site (docs/RELAYS.md, "The relay"): the process on
// the site's gateway through which its ranks reach, and are reached from,
// other sites. relay/protocol.hpp has the wire format; this is the engine.
//
// Who calls what:
//   - open() binds the listener and returns a Relay that does nothing yet;
//   - run() serves, on the calling thread, until stop(), the stop fd or the
//     lifeline ends it, then logs one summary line and returns;
//   - stop() may be called from any thread (and from a signal handler: it
//     writes an eventfd); stats() from any thread, at any time.
// The relay is one event loop over level-triggered epoll with non-blocking
// sockets: no threads, nothing ever blocks.
//
// What it serves, by the kind of each connection's Open (after the job-key
// handshake, which it checks on every connection and, dialling a link,
// makes itself):
//   attach    kept per rank (a second one replaces the first); the relay
//             writes Notices to it;
//   pair      spliced to a new stream of the link to the relay the Open
//             names (dialled on first use: one link per peer endpoint);
//   accept    spliced to the stream the Notice's token names;
//   link      a peer relay's link, as usable as one this relay dialled;
//   control   spliced to mpirun's wire-up listener (Options::wireup);
//   egress    spliced to the public rank's listener the Open names;
//   ingress   offered to the attached rank it names (an accept Notice),
//             and spliced to the connection that takes it;
//   hub_attach, hub_link (mpirun's hub only, Options::is_hub): a relay
//             kept, and a relay's connection offered to the relay it names
//             and spliced to it (hub.cpp).
// A link that cannot be dialled directly within kLinkConnectTimeout goes
// through mpirun's hub when the relay knows one (Options::hub).
//
// Bounds: every stream buffers at most kWindow bytes each way, so the bytes
// the relay holds stay below streams * 2 * kWindow plus, per link, one
// write batch and its control frames. Connections in their handshake,
// streams, links and attached ranks are capped (kPendingMax, ...), and a
// connection that has not finished its handshake in 10 s is dropped.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "base/result.hpp"
#include "relay/protocol.hpp"

namespace strata::relay {

// Limits on what strangers and the job can make the relay hold.
inline constexpr std::size_t kPendingMax = 1024;  // connections in their handshake
inline constexpr std::size_t kStreamsMax = 65536;
inline constexpr std::size_t kLinksMax = 1024;
inline constexpr std::size_t kAttachMax = 65536;

struct Options {
    std::string job_key;               // the HMAC key, exactly as security::proof_make takes it
    std::uint32_t listen_address = 0;  // IPv4, host order; 0: every address
    int port_low = 0;                  // the listener's port range; 0: any port
    int port_high = 0;
    int lifeline_fd = -1;  // when it reads EOF or fails, the relay stops; -1: none
    // mpirun's wire-up listener: where control connections go, and nowhere
    // else (unset: they are refused).
    std::optional<Endpoint> wireup;
    int stop_fd = -1;      // when it is readable (a signalfd), the relay stops; -1: none
    // mpirun's hub: where a link this relay cannot dial directly goes
    // instead (relay/protocol.hpp, hub_link). open() attaches to it, and
    // fails if it cannot. Needs `advertise`.
    std::optional<Endpoint> hub;
    // This relay's address as its ranks publish it (IPv4, host order; 0:
    // unknown): with the port, how the hub and other relays know it.
    std::uint32_t advertise = 0;
    // This relay is mpirun's hub: it serves hub_attach, hub_link and the
    // accepts of its offers, and refuses the ranks' kinds.
    bool is_hub = false;
    // Receives each log line ("listening on port P"); empty: standard error,
    // each line after "strata-relay: ".
    std::function<void(const std::string&)> log;
    // Receives what the job cannot survive, as one line for whoever started
    // the relay ("lost its link to relay A.B.C.D:P: WHY (N streams reset)"):
    // a link lost, or never made, while streams were on it. Empty: none.
    std::function<void(const std::string&)> report;
};

struct Stats {
    // Pair streams this relay opened or accepted, and splices (control,
    // egress, ingress: Engine's Splice) it made.
    std::uint64_t streams_opened = 0;
    // Read from, and written to, the sockets of the ranks that opened them
    // (a splice counts its opener's side only).
    std::uint64_t bytes_from_ranks = 0;
    std::uint64_t bytes_to_ranks = 0;
    std::uint64_t buffered = 0;          // bytes the relay holds now
    std::uint64_t peak_buffered = 0;
    std::uint64_t links_opened = 0;  // dialled or accepted, handshake complete
    std::uint64_t links = 0;         // up now
    std::uint64_t streams = 0;       // open now
};

class Engine;

class Relay {
public:
    static base::Result<std::unique_ptr<Relay>> open(Options options);
    ~Relay();
    Relay(const Relay&) = delete;
    Relay& operator=(const Relay&) = delete;

    int port() const;
    // Serves until stopped; fails only when epoll itself does.
    base::Status run();
    void stop();
    Stats stats() const;

private:
    explicit Relay(std::unique_ptr<Engine> engine);
    std::unique_ptr<Engine> engine_;
};

}  // namespace strata::relay
