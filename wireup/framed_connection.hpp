// One framed connection (frames as in base/wire.hpp) over an Asio stream:
// the read loop that cuts the byte stream into frames, and the write queue.
// mpirun's control connections (launcher/control_server.hpp) use it over a
// plain TCP socket; both ends of the gatekeeper protocol (gram/gram.hpp)
// over a TLS stream, or over an ssh session's pipes (wireup/pipe_stream.hpp).
// FrameLink is what a protocol's logic needs of a connection, whatever
// stream carries it.
//
// Who calls what, and when
//   - The owner makes the connection with make(), giving the splitter (which
//     frame types and sizes its protocol allows) and its handlers, then
//     connects and runs any TLS handshake itself on stream(): those differ
//     per end (client or server, which certificate checks) and stay with it.
//   - send() may be called once the stream is connected (over TLS, once the
//     handshake is done), before or after start(); start() begins reading,
//     once.
//   - Everything runs on the stream's io_context thread; nothing blocks.
//     read_available() reads without waiting.
//
// What the handlers hear (never after close(), never from inside a call
// the owner made, except read_available(), which may deliver frames)
//   - frame(f): one whole frame, in order. The handler may send(), close(),
//     or drop its reference: the connection stays alive until its pending
//     operations are done, and delivers nothing more once closed.
//   - ended(e): the read loop stopped (the peer closed: e.error is
//     asio::error::eof; a read failed: e.error says why; or the peer broke
//     the framing: e.malformed, a header the splitter refused), or a write
//     failed (e.error; the queue is then dropped). Each side reports its end
//     once. The connection stays open: the owner closes it, or, after a
//     malformed frame, may still send a refusal first. The owner writes the
//     message; this class has none.
//   - drained(): optional; the write queue just became empty after a write.
//
// Ownership: the connection owns the stream and the queued frames (a shared
// frame may be queued on many connections at once). The owner holds the
// connection by shared_ptr and must close() it before it goes away, since the
// handlers refer to it.
#pragma once

#include "base/wire.hpp"

#include <boost/asio/buffer.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/socket_base.hpp>
#include <boost/asio/write.hpp>

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

namespace strata::codec {

// Why a side of a framed connection ended on its own.
struct FrameEnd {
    boost::system::error_code error;  // eof: the peer closed the connection
    bool malformed = false;           // the peer sent a header the splitter refuses (error is empty)
    bool write = false;               // a write failed; otherwise the read loop ended
};

// A stream whose readiness is the socket's: no layer (TLS) holds bytes the
// socket no longer shows, so reading can wait for the socket and then read
// what is there without waiting (read_available()).
template <class Stream>
concept PlainSocket = requires(Stream& s) {
    s.non_blocking(true);
    s.available();
};

// What a framed connection tells its owner (see the top of this file).
struct FrameHandlers {
    std::function<void(const base::wire::RawFrame&)> frame;
    std::function<void(const FrameEnd&)> ended;
    std::function<void()> drained;  // may be empty
};

// A framed connection as the protocol logic above it sees it: the stream
// underneath (a socket, TLS, a pair of pipes) is its owner's business.
class FrameLink {
public:
    virtual ~FrameLink() = default;
    virtual void start() = 0;
    virtual void send(std::vector<std::uint8_t> frame) = 0;
    virtual bool idle() const = 0;
    virtual bool heard() const = 0;
    virtual void shutdown_after_drain() = 0;
    virtual void close() = 0;
};

template <class Stream>
class FramedConnection final : public FrameLink, public std::enable_shared_from_this<FramedConnection<Stream>> {
public:
    using Bytes = std::shared_ptr<const std::vector<std::uint8_t>>;

    using Handlers = FrameHandlers;

    // `stream_args` construct the stream (a socket, or a socket and a TLS context, ...).
    template <class... Args>
    static std::shared_ptr<FramedConnection> make(base::wire::FrameSplitter splitter, Handlers handlers, Args&&... stream_args) {
        return std::shared_ptr<FramedConnection>(
            new FramedConnection(std::move(splitter), std::move(handlers), std::forward<Args>(stream_args)...));
    }

    FramedConnection(const FramedConnection&) = delete;
    FramedConnection& operator=(const FramedConnection&) = delete;

    // For the owner's connect, handshake, options and addresses; never to read or write.
    Stream& stream() { return stream_; }

    // Begins the read loop. A plain socket is put in non-blocking mode.
    void start() override {
        if constexpr (PlainSocket<Stream>) {
            boost::system::error_code ignored;
            stream_.non_blocking(true, ignored);
            wait_readable();
        } else {
            read_more();
        }
    }

    // Queues a frame; frames go out whole and in the order sent. Ignored once closed.
    void send(Bytes frame) {
        if (closed_) return;
        out_.push_back(std::move(frame));
        if (!writing_) write_next();
    }
    void send(std::vector<std::uint8_t> frame) override {
        send(std::make_shared<const std::vector<std::uint8_t>>(std::move(frame)));
    }

    // Nothing queued and nothing being written.
    bool idle() const override { return out_.empty() && !writing_; }
    // Some bytes arrived from the peer.
    bool heard() const override { return heard_; }

    // Shuts down the sending side once the queue is written (at once when it
    // is idle): the peer reads every frame, then the end of the stream. The
    // read loop goes on until the peer closes.
    void shutdown_after_drain() override {
        shutdown_pending_ = true;
        if (idle()) shutdown_send();
    }

    // Closes the stream at once; unsent frames are dropped and no handler runs again.
    void close() override {
        if (closed_) return;
        closed_ = true;
        out_.clear();
        boost::system::error_code ignored;
        stream_.lowest_layer().close(ignored);
    }
    bool is_open() const { return !closed_; }

    enum class Read { data, empty, gone };
    // Reads once what the socket holds, without waiting, and delivers its
    // whole frames: `data` (more may follow), `empty` (nothing there), `gone`
    // (closed, or ended: the handler has heard). Lets the owner take in what
    // a peer sent before it died before judging its death.
    Read read_available()
        requires PlainSocket<Stream>
    {
        if (closed_ || read_ended_) return Read::gone;
        static thread_local std::array<std::uint8_t, 65536> buf;
        boost::system::error_code ec;
        const std::size_t n = stream_.read_some(boost::asio::buffer(buf), ec);
        if (ec == boost::asio::error::would_block || ec == boost::asio::error::try_again) return Read::empty;
        if (ec) {
            end_reading(FrameEnd{ec, false});
            return Read::gone;
        }
        heard_ = true;
        splitter_.feed(buf.data(), n);
        return deliver() ? Read::data : Read::gone;
    }

private:
    template <class... Args>
    FramedConnection(base::wire::FrameSplitter splitter, Handlers handlers, Args&&... stream_args)
        : stream_(std::forward<Args>(stream_args)...), splitter_(std::move(splitter)), handlers_(std::move(handlers)) {}

    void wait_readable() {
        stream_.async_wait(boost::asio::socket_base::wait_read,
                           [self = this->shared_from_this()](const boost::system::error_code& ec) {
                               if (self->closed_ || ec == boost::asio::error::operation_aborted) return;
                               if (ec) return self->end_reading(FrameEnd{ec, false});
                               if (self->read_available() != Read::gone) self->wait_readable();
                           });
    }

    void read_more() {
        if (!buf_) buf_ = std::make_unique<std::array<std::uint8_t, 65536>>();
        stream_.async_read_some(boost::asio::buffer(*buf_), [self = this->shared_from_this()](
                                                                const boost::system::error_code& ec, std::size_t n) {
            if (self->closed_) return;
            if (ec) return self->end_reading(FrameEnd{ec, false});
            self->heard_ = true;
            self->splitter_.feed(self->buf_->data(), n);
            if (self->deliver()) self->read_more();
        });
    }

    // Hands over every whole frame buffered; false when reading is over.
    bool deliver() {
        for (;;) {
            if (closed_) return false;
            bool bad = false;
            std::optional<base::wire::RawFrame> f = splitter_.next(bad);
            if (bad) {
                end_reading(FrameEnd{{}, true});
                return false;
            }
            if (!f) return true;
            handlers_.frame(*f);
        }
    }

    void end_reading(const FrameEnd& e) {
        read_ended_ = true;
        handlers_.ended(e);
    }

    void write_next() {
        if (closed_) return;
        if (out_.empty()) {
            writing_ = false;
            if (shutdown_pending_) shutdown_send();
            if (handlers_.drained) handlers_.drained();
            return;
        }
        writing_ = true;
        boost::asio::async_write(stream_, boost::asio::buffer(*out_.front()),
                                 [self = this->shared_from_this(), frame = out_.front()](
                                     const boost::system::error_code& ec, std::size_t) {
                                     if (self->closed_) return;
                                     if (ec) {
                                         self->out_.clear();
                                         self->writing_ = false;
                                         return self->handlers_.ended(FrameEnd{ec, false, true});
                                     }
                                     self->out_.pop_front();
                                     self->write_next();
                                 });
    }

    void shutdown_send() {
        boost::system::error_code ignored;
        stream_.lowest_layer().shutdown(boost::asio::socket_base::shutdown_send, ignored);
    }

    Stream stream_;
    base::wire::FrameSplitter splitter_;
    Handlers handlers_;
    std::unique_ptr<std::array<std::uint8_t, 65536>> buf_;  // the TLS read loop's; plain sockets share one per thread
    std::deque<Bytes> out_;
    bool writing_ = false;
    bool shutdown_pending_ = false;
    bool heard_ = false;
    bool read_ended_ = false;
    bool closed_ = false;
};

}  // namespace strata::codec
