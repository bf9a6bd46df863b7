// Parallel streams: how a large payload is striped over a link's
// connections and read back in order (the wire form and its reasons are in
// stripes.hpp).
//
// Sending: stripes_queue() queues a striped packet on the connections that
// carry it (stream 0 and the sender's extra streams), every packet of it
// counted in one SendGroup so the send completes once, when the last one has
// left. Opening those connections is the owner's (tcp_method.hpp).
//
// Receiving: stream 0's Reader (reader.hpp) takes the plan and the header
// and says so (Reader::Parsed::plan); a StripeReader then reads stripe after
// stripe, each from the connection it comes on, straight into the reader's
// landing where it can, with the rest of what that read brought kept in the
// connection's staging buffer. Stripe i comes on stream i mod n, so while a
// stripe is awaited the other streams' bytes wait in their sockets: the
// owner mutes those connections (Connection::want_in) and lets the one
// stream_next() names read.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "adi/method.hpp"
#include "base/result.hpp"
#include "devices/tcp/connection.hpp"
#include "devices/tcp/emulator.hpp"
#include "devices/tcp/reader.hpp"
#include "devices/tcp/stripes.hpp"

namespace strata::dev::tcp {

// The plan of a striped payload of `total` bytes, packet `seq` of its link,
// over `streams` streams in stripes of `unit` bytes.
StripeRecord stripe_plan(int streams, std::size_t unit, std::uint64_t seq, std::uint64_t total);

// Queues the striped packet of header `h` and payload `data` as `plan` says:
// the plan and the header on conns[0], stripe i on conns[i mod n], n =
// plan.streams = conns.size(). Each packet adds one to `group`'s count.
// `shaping` stamps each one on a link emulation shapes (nullptr: not
// shaped). Returns the number of stripes.
std::uint64_t stripes_queue(std::span<Connection* const> conns, const StripeRecord& plan, const adi::Header& h,
                            std::span<const iovec> data, const std::shared_ptr<SendGroup>& group,
                            ShapedLink* shaping);

class StripeReader {
public:
    // A striped payload began (its plan is the reader's): stripe 0 is next.
    void begin() {
        stripe_ = 0;
        head_ = false;
        left_ = 0;
    }
    // The stream the next bytes of the payload come on.
    std::uint32_t stream_next(const Reader& reader) const {
        return static_cast<std::uint32_t>(stripe_ % reader.plan().streams);
    }
    // Reads the stripes of `reader`'s payload in order, from stream 0
    // (`zero`) and the peer's extra streams (`recvs`, stream k at k - 1),
    // until the payload is complete (true) or the next bytes are not there
    // yet (false). Fails (the link must) when a stream closed in the middle,
    // a stripe is out of order, or a read failed.
    base::Result<bool> read(const Remote& remote, Reader& reader, Connection& zero,
                            std::span<const std::unique_ptr<Connection>> recvs, adi::Upcalls& up);
    // Stripes taken whole so far.
    std::uint64_t received() const { return received_; }

private:
    // The connection the current stripe comes on; nullptr: wait.
    base::Result<Connection*> conn_next(const Remote& remote, const Reader& reader, Connection& zero,
                                        std::span<const std::unique_ptr<Connection>> recvs) const;
    // The stripe's record, from staging or read (`n`, `asked`).
    base::Status head_next(const Remote& remote, const Reader& reader, Connection& c, ssize_t& n, std::size_t& asked);
    // A read straight into the landing, and what follows into staging.
    ssize_t read_direct(int peer, Reader& reader, Connection& c, adi::Upcalls& up, std::size_t& asked);
    // A stripe is complete; true when the whole payload is.
    bool stripe_done(int peer, Reader& reader, Connection& zero, std::uint64_t count, adi::Upcalls& up);

    std::uint64_t stripe_ = 0;  // the stripe arriving
    bool head_ = false;         // its record was read
    std::uint64_t left_ = 0;    // its bytes still to come
    std::uint64_t received_ = 0;
};

}  // namespace strata::dev::tcp
