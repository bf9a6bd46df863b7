// A byte stream made of two pipes, one read and one written, for
// FramedConnection (wireup/framed_connection.hpp): mpirun's end of an ssh
// client's stdin and stdout, and a gatekeeper's own stdin and stdout when
// ssh started it (`strata-gatekeeper --stdio`).
//
// As a socket: lowest_layer().close() closes both pipes; shutting down the
// sending side closes the written pipe, so the peer reads the end of its
// stream while this end still reads.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/socket_base.hpp>

#include <utility>

namespace strata::codec {

class PipeStream {
public:
    using executor_type = boost::asio::any_io_executor;
    using lowest_layer_type = PipeStream;

    // Takes both descriptors (each is closed with the stream).
    PipeStream(boost::asio::io_context& io, int read_fd, int write_fd) : in_(io, read_fd), out_(io, write_fd) {}

    executor_type get_executor() { return in_.get_executor(); }
    PipeStream& lowest_layer() { return *this; }

    template <class Buffers, class Handler>
    auto async_read_some(const Buffers& buffers, Handler&& handler) {
        return in_.async_read_some(buffers, std::forward<Handler>(handler));
    }
    template <class Buffers, class Handler>
    auto async_write_some(const Buffers& buffers, Handler&& handler) {
        return out_.async_write_some(buffers, std::forward<Handler>(handler));
    }

    void close(boost::system::error_code& ec) {
        boost::system::error_code ignored;
        in_.close(ec);
        out_.close(ec ? ignored : ec);
    }
    void shutdown(boost::asio::socket_base::shutdown_type what, boost::system::error_code& ec) {
        if (what != boost::asio::socket_base::shutdown_receive) out_.close(ec);
    }

private:
    boost::asio::posix::stream_descriptor in_;
    boost::asio::posix::stream_descriptor out_;
};

}  // namespace strata::codec
