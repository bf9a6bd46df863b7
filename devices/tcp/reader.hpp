// The receiving side of a link's stream 0: turns the bytes of the stream
// into packets handed to adi::Upcalls (a header, then its payload written
// into the landings the engine returns, in order; adi/method.hpp).
//
// Arriving payloads are read with readv() straight into the landing buffer
// (the posted receive for rendezvous data, or the engine's unpacking buffer
// for non-contiguous receives), with the connection's small staging buffer
// as the second iovec to pick up the following headers in the same system
// call: read_iov() gives those buffers, direct_landed() accounts for what
// went into the landing, parse() takes what is staged. Otherwise one recv()
// into the staging buffer picks up headers and small payloads together, and
// a packet that arrived whole is delivered in one step (on_packet).
//
// The premium lane's connection has a Reader of its own; both readers stop at
// the lanes' fence and wait records (stripes.hpp) for their owner.
//
// A striped packet (stripes.hpp) arrives on stream 0 as its plan record and
// header; parse() hands the header to the engine and stops: the payload's
// stripes come from several connections, which the striping reads
// (striping.hpp) into this reader's landing (land(), room(), landed(),
// payload_end()).
//
// The reader knows nothing of sockets: its owner reads, into the buffers it
// names, and tests feed it bytes in any chunking. It stops as soon as the
// connection is no longer connected (an upcall may send, and a send may find
// the link broken).
#pragma once

#include <sys/uio.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "adi/method.hpp"
#include "devices/tcp/connection.hpp"
#include "devices/tcp/stripes.hpp"

namespace strata::dev::tcp {

class Reader {
public:
    // What parse() met: nothing more it can take, the start of a striped
    // packet (its plan is plan(), its header given to on_header), a plan
    // it refuses (the link must fail), or a lane's fence or wait record
    // (stripes.hpp; its number is mark()), taken: the owner decides whether
    // parsing goes on.
    enum class Parsed { done, plan, bad_plan, fence, wait };

    // The packet whose payload is arriving (in_payload), and whether its
    // bytes come as stripes.
    bool in_payload() const { return in_payload_; }
    bool striped() const { return striped_; }
    const adi::Header& header() const { return cur_; }
    const StripeRecord& plan() const { return plan_; }
    std::uint64_t mark() const { return mark_; }

    // The buffers of the next read on `rx`'s connection (`iov`, `n_iov` of
    // them): the rest of the payload straight into its landing when nothing
    // is staged (returns how many bytes go there), then the staging buffer.
    std::size_t read_iov(Staging& rx, iovec* iov, int& n_iov);
    // `into` payload bytes were read straight into the landing.
    void direct_landed(int peer, std::size_t into, adi::Upcalls& up);
    // Takes what `c` has staged: packets, headers and payload bytes, while
    // `c` stays connected; keeps a partial header at the front.
    Parsed parse(Connection& c, int peer, adi::Upcalls& up);

    // A striped payload's stripes: `n` payload bytes at `src`, in order, into
    // the landings (what no landing takes is discarded); where the next ones
    // can go straight, at most `most` (nothing: iov_len 0); `n` went there;
    // the payload is complete (on_payload).
    void land(int peer, adi::Upcalls& up, const std::byte* src, std::size_t n);
    iovec room(std::uint64_t most) const;
    void landed(int peer, std::size_t n, adi::Upcalls& up);
    void payload_end(int peer, adi::Upcalls& up);
    // The link failed: no stripe of the payload will come.
    void stripes_drop() { striped_ = false; }

private:
    // Payload bytes that belong in the current landing went in: move to the
    // next landing when it is full and the payload goes on.
    void landing_advance(int peer, adi::Upcalls& up);
    Parsed plan_take(Staging& rx, int peer, adi::Upcalls& up);

    bool in_payload_ = false;
    bool striped_ = false;
    adi::Header cur_{};
    adi::Landing land_;
    std::size_t land_at_ = 0;     // bytes written into `land_`
    std::uint64_t pay_done_ = 0;  // payload bytes consumed
    StripeRecord plan_{};
    std::uint64_t mark_ = 0;
};

[[gnu::always_inline]] inline std::size_t Reader::read_iov(Staging& rx, iovec* iov, int& n_iov) {
    std::size_t direct = 0;
    // In the middle of a payload with an empty staging buffer: read the rest
    // straight into the landing buffer, and what follows into staging.
    if (in_payload_ && rx.begin == rx.end && land_at_ < land_.capacity && land_.dest != nullptr) {
        rx.begin = rx.end = 0;
        const std::uint64_t left = cur_.length - pay_done_;
        direct = static_cast<std::size_t>(std::min<std::uint64_t>(left, land_.capacity - land_at_));
        iov[n_iov++] = iovec{land_.dest + land_at_, direct};
    }
    if (rx.begin == rx.end) rx.begin = rx.end = 0;
    iov[n_iov++] = iovec{rx.buf.data() + rx.end, rx.buf.size() - rx.end};
    return direct;
}

[[gnu::always_inline]] inline void Reader::direct_landed(int peer, std::size_t into, adi::Upcalls& up) {
    pay_done_ += into;
    land_at_ += into;
    if (pay_done_ == cur_.length) {
        in_payload_ = false;
        up.on_payload(peer, cur_, land_);
    } else {
        landing_advance(peer, up);
    }
}

}  // namespace strata::dev::tcp
