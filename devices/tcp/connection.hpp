// One TCP connection between two ranks: its socket, its handshake, what
// waits to leave and what arrived.
//
// A link between two ranks is one connection both ways (stream 0) and, for
// striping, extra connections that carry data one way (stripes.hpp); each is
// a Connection. It holds
//   - the socket (non-blocking, no Nagle delay) and its place in its owner's
//     level-triggered epoll set, under the owner's key: it waits to read
//     unless muted (want_in) and to write while packets wait (want_out);
//   - the packets waiting to leave, in their wire form and pointing into the
//     caller's data (OutPacket), and flush(), which writes them in order and
//     reports each send complete once its last packet has left;
//   - the staging buffer received bytes wait in (Staging; reader.hpp parses
//     stream 0's, striping.hpp reads the extra streams');
//   - TLS (tls_link.hpp) on the links STRATA_DATA_TLS covers;
//   - the connecting side of the job-key handshake (handshake.hpp has its
//     messages and the accepting side, Incoming):
//
//       idle -> connecting -> hello_sent -> response_sent -> [tls_handshake ->] connected
//               connect_start() hello_send() reply_read()     establish()    tls_step()
//
//     reply_read() takes the challenge (and sends the response), then the
//     answer. An answer of 1, like a connection the accepting side chose
//     (adopt()), goes on with establish(): connected at once, or through
//     tls_handshake with TLS. An answer of 0 is the owner's to act on (on
//     stream 0 the peer's own connection wins: awaiting_incoming);
//   - the reads and writes made on it, so tests can count what a message
//     costs (timing cannot).
//
// A connection decides nothing for its link: which of two simultaneous
// connections becomes the link, and what a failure does to the link's other
// connections, are its owner's (tcp_method.hpp). Each step does what the
// socket allows now, never blocks, and returns what happened: on failure,
// the text to report, naming the rank and what to check. The fields are
// public: the owner, the Reader and the striping work on them directly,
// which is what keeps a message's path free of calls it did not make before.
#pragma once

#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>

#include <array>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "adi/method.hpp"
#include "base/result.hpp"
#include "devices/tcp/stripes.hpp"
#include "devices/tcp/tls_link.hpp"
#include "relay/dial.hpp"
#include "security/challenge.hpp"

namespace strata::dev::tcp {

// The rank at the other end, as the handshake and the messages name it.
struct Remote {
    int rank = -1;  // in its set: a world rank, or a set rank (adi::PeerSet)
    std::string hostname;
    std::string address;  // where to connect: "a.b.c.d"
    int port = 0;
    std::uint64_t set = 0;  // 0: this job
};

// The packets of one send spread over several connections (a striped
// packet): the send completes when the last of them has left.
struct SendGroup {
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
    std::shared_ptr<SendGroup> group;  // set on the packets of a striped send

    // The emulation's stamp `due` (little-endian) goes first: before any
    // other buffer is added.
    void stamp(std::uint64_t due_wire) {
        due = due_wire;
        iov.push_back(iovec{&due, sizeof due});
    }
};

// A packet for a send queue: its stamp (when `due` is set: a shaped link),
// its header and the caller's data.
std::unique_ptr<OutPacket> out_packet(const adi::Header& h, std::span<const iovec> data, std::uint64_t token,
                                      const std::optional<std::uint64_t>& due);

// Drops the first `sent` bytes of a packet's buffers (the socket took them),
// and the empty buffers that leaves at the front.
void iov_consume(std::vector<iovec>& iov, std::size_t sent);

// Received bytes not consumed yet: buf[begin, end).
struct Staging {
    std::vector<std::byte> buf;
    std::size_t begin = 0;
    std::size_t end = 0;
};

// Bytes a connection that reads stream 0 or an extra stream stages (a
// stream only written to needs room for its end and TLS records only).
inline constexpr std::size_t kStaging = 64 * 1024;
inline constexpr std::size_t kStagingWriteOnly = 256;

// Every rank-to-rank socket sends small packets at once (TCP_NODELAY).
void socket_tune(int fd);
std::string errno_text(int e);

struct Connection {
    enum class State {
        idle,
        relay_handshake,  // through a relay: its handshake first (the dialer's)
        connecting,
        hello_sent,
        response_sent,
        awaiting_incoming,  // stream 0 lost to the peer's own connection, which will arrive
        tls_handshake,
        connected,
        closed,
        failed
    };
    // What reply_read() got: nothing whole yet (or the challenge, answered),
    // the acceptor's 1 (this connection is the link) or its 0.
    enum class Reply { pending, accepted, refused };
    // Why a read that returned n < 0 (or 0 where bytes were asked) stopped.
    enum class ReadEnd { retry, empty, failed };

    int fd = -1;
    State state = State::idle;
    std::uint32_t stream = 0;
    int epfd = -1;          // the epoll set it is watched in
    std::uint64_t key = 0;  // its key there
    std::deque<std::unique_ptr<OutPacket>> out;
    bool want_out = false;  // EPOLLOUT registered
    bool want_in = true;    // EPOLLIN registered (off while another stream's bytes come first)
    Staging rx;
    std::unique_ptr<TlsLink> tls;  // set on links that STRATA_DATA_TLS covers
    std::unique_ptr<relay::Dialer> dialer;  // relay_handshake: the relay's handshake, step by step
    bool established = false;      // it was connected once
    std::uint64_t reads = 0;       // recv/readv once connected
    std::uint64_t writes = 0;      // send/sendmsg once connected
    // The connecting side's handshake: our nonce, and the acceptor's
    // challenge, then its answer, as they arrive.
    security::Nonce nonce{};
    security::Nonce acceptor_nonce{};
    std::array<std::uint8_t, 64> reply{};
    std::size_t reply_got = 0;
    std::size_t reply_need = 0;

    Connection() = default;
    ~Connection() { close(); }
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;

    // The epoll set's view: read and write interest as the flags say.
    void watch(bool add);
    void set_want_out(bool on);
    void set_want_in(bool on);
    // Leaves the epoll set and closes the socket (and TLS); the state and
    // the queues are the owner's to change.
    void close();

    // Connecting side: opens the socket and starts connecting (connecting);
    // once it is writable, sends the Hello (hello_sent), then reads the
    // acceptor's replies. `me` is this process's rank, `job_key` the secret
    // the proofs are made with.
    base::Status connect_start(const Remote& r);
    // Through a relay (relay/dial.hpp): relay_handshake until the relay
    // answered, then connecting (the Hello goes).
    void relay_start(relay::Dialer d);
    base::Status hello_send(const Remote& r, std::uint32_t me);
    base::Result<Reply> reply_read(const Remote& r, const std::string& job_key, std::uint32_t me);
    // Accepting side: a proven connection (handshake.hpp) becomes this one.
    void adopt(int accepted_fd);
    // The handshake is over: connected at once, or with `tls_key` through
    // tls_handshake, which tls_step() goes on with (true: connected).
    // `server` is the accepting side. Failures name rank `rank`.
    base::Status establish(bool server, const std::optional<TlsLink::Key>& tls_key, int rank);
    base::Result<bool> tls_step(int rank);

    // One read into `iov` (TLS: the first buffer only); counted.
    ssize_t read(iovec* iov, int n_iov);
    // The same into one buffer, inline (a stripe's record is read so).
    [[gnu::always_inline]] ssize_t recv(void* buf, std::size_t n) {
        ++reads;
        return tls ? tls->read(buf, n) : ::recv(fd, buf, n, 0);
    }
    // One write of `iov` (TLS: through it); counted. A single buffer (a
    // header alone) skips the msghdr and iovec import of sendmsg().
    [[gnu::always_inline]] ssize_t write(iovec* iov, std::size_t n_iov) {
        ++writes;
        if (tls) return tls->writev(iov, static_cast<int>(n_iov));
        if (n_iov == 1) return ::send(fd, iov[0].iov_base, iov[0].iov_len, MSG_NOSIGNAL);
        msghdr m{};
        m.msg_iov = iov;
        m.msg_iovlen = n_iov;
        return ::sendmsg(fd, &m, MSG_NOSIGNAL);
    }
    [[gnu::always_inline]] static ReadEnd read_end(ssize_t n) {
        if (n == -1 && errno == EINTR) return ReadEnd::retry;
        if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK)) return ReadEnd::empty;
        return ReadEnd::failed;
    }
    // What a failed read said: the peer closed (n == 0), TLS failed, or the
    // system call did (errno).
    std::string read_failure(const Remote& r, ssize_t n) const;

    // Writes the queued packets while the socket takes them. A send whose
    // last packet left completes: through `up`, or into `later` without one
    // (inside send(), which cannot call up). Fails with why the write did.
    base::Status flush(adi::Upcalls* up, std::vector<std::uint64_t>& later);
    // The socket took `sent` bytes of a packet (fewer than all): the rest
    // waits at the end of the queue.
    void queue_rest(std::unique_ptr<OutPacket> pkt, std::size_t sent);

private:
    // hello_sent: the challenge is whole; checks it and sends the response.
    base::Status challenge_answer(const Remote& r, const std::string& job_key, std::uint32_t me);
};

}  // namespace strata::dev::tcp
