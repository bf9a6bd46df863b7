// mpirun's end of the wire-up protocol's transport: the control listener and
// one connection per process. It moves frames; what they mean (checkin,
// barrier, abort, finalize) is the co-allocator's business.
#pragma once

#include "base/result.hpp"
#include "wireup/framed_connection.hpp"
#include "wireup/protocol.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace strata::launcher {

class ControlServer {
public:
    using ConnectionId = std::uint64_t;

    class Listener {
    public:
        virtual ~Listener() = default;
        virtual void on_frame(ConnectionId id, const wireup::Frame& frame) = 0;
        // The peer closed the connection, or broke the framing (`why` says;
        // `malformed` then, which is a refusal to be logged). Not called for
        // connections closed by close() or stop().
        virtual void on_closed(ConnectionId id, const std::string& why, bool malformed) = 0;
    };

    ControlServer(boost::asio::io_context& io, Listener& listener);
    ~ControlServer();
    ControlServer(const ControlServer&) = delete;
    ControlServer& operator=(const ControlServer&) = delete;

    // Listens on a port the kernel picks: on 127.0.0.1, or on every
    // interface when processes at other sites must reach it.
    base::Status listen(bool all_interfaces);
    std::uint16_t port() const { return port_; }

    // Queues a frame (shared so one Release can go to every process).
    void send(ConnectionId id, std::shared_ptr<const std::vector<std::uint8_t>> frame);
    // Drops the connection at once; unsent frames are discarded.
    void close(ConnectionId id);
    // Reads and dispatches what the peer already sent, without waiting. Used
    // before judging a process's exit: whatever it sent before dying (Abort,
    // Finalize, even its Checkin) must count first.
    void drain(ConnectionId id);
    void drain_all();
    bool is_open(ConnectionId id) const { return conns_.count(id) != 0; }
    // Closes the listener and every connection.
    void stop();

private:
    using Connection = codec::FramedConnection<boost::asio::ip::tcp::socket>;

    void accept_next();
    void fail(ConnectionId id, const std::string& why, bool malformed = false);

    Listener& listener_;
    boost::asio::ip::tcp::acceptor acceptor_;
    std::uint16_t port_ = 0;
    ConnectionId next_id_ = 1;
    std::map<ConnectionId, std::shared_ptr<Connection>> conns_;
};

}  // namespace strata::launcher
