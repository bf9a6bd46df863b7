// Wide-area emulation on the TCP method's links (wireup/emulation.hpp).
//
// The sender stamps every packet on a shaped link with the time the emulated
// link would deliver it: the packet starts when the link is free, occupies it
// for bytes/bandwidth, and arrives one latency after it has left. Links are
// shared as on a real grid (wireup/shared_links.hpp): every process of a site
// sending to another site uses one wide-area link (per ordered pair of
// sites), every process of a machine sending to the other machines of its
// site that machine's local-area interface. The stamp travels as 8 bytes
// before the packet's header (only on shaped links; both ends decide alike
// from the cards). The receiver reads packets as they come, holds each whole
// until its stamp, and only then hands it to the engine, in order per peer.
//
// Stamps are CLOCK_MONOTONIC times, which every process of one machine shares:
// emulation is for grids laid out on one machine, and configure() refuses a
// shaped link to a process on another.
//
// The model: links are shared by their senders; a receiver takes from several
// links at once at each one's rate (a site receiving from two sites gets both
// links' bandwidth), and there is no loss, jitter or window.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "adi/method.hpp"
#include "wireup/emulation.hpp"
#include "wireup/shared_links.hpp"

namespace strata::dev::tcp {

class Emulator {
public:
    Emulator() = default;
    ~Emulator();
    Emulator(const Emulator&) = delete;
    Emulator& operator=(const Emulator&) = delete;

    // Shapes the links STRATA_EMULATION (`text`) covers; false with `error`
    // when the text is malformed or a shaped peer is on another machine.
    // `job_key` names the job's shared link table (mpirun made it).
    bool configure(const adi::World& world, const std::string& text, const std::string& job_key, std::string& error);
    bool active() const { return timer_fd_ >= 0; }
    bool shaped(int peer) const { return active() && links_[static_cast<std::size_t>(peer)].shared >= 0; }
    // The timer descriptor, readable when the earliest held packet is due
    // (after arm()); -1 when nothing is shaped.
    int timer_fd() const { return timer_fd_; }

    // Sender: the stamp for a packet of `bytes` (header and payload) to `peer`.
    std::uint64_t stamp(int peer, std::size_t bytes);

    // Receiver: bytes that arrived from `peer`, in order.
    void feed(int peer, const std::byte* data, std::size_t n);
    // Hands every held packet that is due to `up` (Upcalls::on_packet), in
    // order per peer; returns how many.
    int deliver(adi::Upcalls& up);
    // Nanoseconds until the earliest held packet is due (0: due now), or -1
    // when none is held.
    std::int64_t next_due_in() const;
    // Arms the timer for the earliest held packet, `early_ns` before it is due.
    void arm(std::int64_t early_ns);
    // Reads the timer's expiry after it fired.
    void timer_clear();

    static std::uint64_t now_ns();

private:
    struct Held {
        std::uint64_t due = 0;
        adi::Header header{};
        std::vector<std::byte> payload;
    };
    struct Link {
        int shared = -1;  // the link in the shared table; -1: not shaped
        double latency_ns = 0;
        double ns_per_byte = 0;  // 0: unlimited
        // Receive side: the packet being assembled, then those held.
        std::vector<std::byte> head;  // stamp and header, until complete
        std::optional<Held> partial;  // header complete, payload arriving
        std::size_t payload_need = 0;
        std::deque<Held> held;
    };
    std::vector<Link> links_;
    std::unique_ptr<wireup::SharedLinks> table_;
    std::vector<int> holding_;            // peers with held packets
    int timer_fd_ = -1;
};

}  // namespace strata::dev::tcp
