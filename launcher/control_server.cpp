#include "launcher/control_server.hpp"

#include "base/keepalive.hpp"

#include <boost/asio/ip/v6_only.hpp>
#include <boost/asio/write.hpp>

#include <fcntl.h>
#include <netinet/tcp.h>

namespace strata::launcher {

namespace asio = boost::asio;
using asio::ip::tcp;

ControlServer::ControlServer(asio::io_context& io, Listener& listener) : listener_(listener), acceptor_(io) {}

ControlServer::~ControlServer() { stop(); }

bool ControlServer::listen(bool all_interfaces, std::string& error) {
    boost::system::error_code ec;
    auto open_on = [&](const tcp::endpoint& ep, bool dual_stack) {
        ec.clear();
        acceptor_.open(ep.protocol(), ec);
        if (!ec && dual_stack) acceptor_.set_option(asio::ip::v6_only(false), ec);
        if (!ec) acceptor_.bind(ep, ec);
        if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
        if (!ec) port_ = acceptor_.local_endpoint(ec).port();
        if (ec && acceptor_.is_open()) {
            boost::system::error_code ignored;
            acceptor_.close(ignored);
        }
    };
    std::string where = "127.0.0.1";
    if (all_interfaces) {
        // Both families on one port when the host has IPv6; IPv4 alone otherwise.
        where = "all interfaces";
        open_on(tcp::endpoint(asio::ip::address_v6::any(), 0), true);
        if (ec) open_on(tcp::endpoint(asio::ip::address_v4::any(), 0), false);
    } else {
        open_on(tcp::endpoint(asio::ip::make_address_v4("127.0.0.1"), 0), false);
    }
    if (ec) {
        error = "cannot open the control listener on " + where + ": " + ec.message();
        return false;
    }
    // The programs mpirun starts must not inherit the listener.
    ::fcntl(acceptor_.native_handle(), F_SETFD, FD_CLOEXEC);
    accept_next();
    return true;
}

void ControlServer::accept_next() {
    acceptor_.async_accept([this](const boost::system::error_code& ec, tcp::socket socket) {
        if (ec == asio::error::operation_aborted) return;
        if (!ec) {
            ::fcntl(socket.native_handle(), F_SETFD, FD_CLOEXEC);
            boost::system::error_code ignored;
            socket.set_option(tcp::no_delay(true), ignored);
            base::socket_keepalive(socket.native_handle());
            socket.non_blocking(true, ignored);
            const ConnectionId id = next_id_++;
            conns_.emplace(id, std::make_unique<Connection>(std::move(socket)));
            wait_readable(id);
        }
        // Transient accept errors (EMFILE, ECONNABORTED) must not stop the listener.
        if (acceptor_.is_open()) accept_next();
    });
}

void ControlServer::wait_readable(ConnectionId id) {
    auto it = conns_.find(id);
    if (it == conns_.end()) return;
    it->second->socket.async_wait(tcp::socket::wait_read, [this, id](const boost::system::error_code& ec) {
        if (ec == asio::error::operation_aborted) return;
        if (ec) {
            fail(id, ec.message());
            return;
        }
        if (read_available(id) != ReadResult::gone) wait_readable(id);
    });
}

ControlServer::ReadResult ControlServer::read_available(ConnectionId id) {
    auto it = conns_.find(id);
    if (it == conns_.end()) return ReadResult::gone;
    boost::system::error_code ec;
    const std::size_t n = it->second->socket.read_some(asio::buffer(buf_), ec);
    if (ec == asio::error::would_block || ec == asio::error::try_again) return ReadResult::empty;
    if (ec == asio::error::eof) {
        fail(id, "closed by the peer");
        return ReadResult::gone;
    }
    if (ec) {
        fail(id, ec.message());
        return ReadResult::gone;
    }
    it->second->reader.feed(buf_.data(), n);
    for (;;) {
        // The listener may close this connection (or others) while handling a frame.
        it = conns_.find(id);
        if (it == conns_.end()) return ReadResult::gone;
        bool bad = false;
        std::optional<wireup::Frame> f = it->second->reader.next(bad);
        if (bad) {
            fail(id, "a malformed frame (unknown type or longer than the protocol allows)", true);
            return ReadResult::gone;
        }
        if (!f) return ReadResult::data;
        listener_.on_frame(id, *f);
    }
}

void ControlServer::drain(ConnectionId id) {
    // A dead peer's data is all queued already: read until there is no more.
    while (read_available(id) == ReadResult::data) {
    }
}

void ControlServer::drain_all() {
    std::vector<ConnectionId> ids;
    for (const auto& [id, c] : conns_) ids.push_back(id);
    for (ConnectionId id : ids) drain(id);
}

void ControlServer::send(ConnectionId id, std::shared_ptr<const std::vector<std::uint8_t>> frame) {
    auto it = conns_.find(id);
    if (it == conns_.end()) return;
    it->second->out.push_back(std::move(frame));
    if (!it->second->writing) write_next(id);
}

void ControlServer::write_next(ConnectionId id) {
    auto it = conns_.find(id);
    if (it == conns_.end()) return;
    Connection& c = *it->second;
    if (c.out.empty()) {
        c.writing = false;
        return;
    }
    c.writing = true;
    auto frame = c.out.front();
    asio::async_write(c.socket, asio::buffer(*frame),
                      [this, id, frame](const boost::system::error_code& ec, std::size_t) {
                          if (ec == asio::error::operation_aborted) return;
                          auto it2 = conns_.find(id);
                          if (it2 == conns_.end()) return;
                          if (ec) {
                              fail(id, ec.message());
                              return;
                          }
                          it2->second->out.pop_front();
                          write_next(id);
                      });
}

void ControlServer::fail(ConnectionId id, const std::string& why, bool malformed) {
    auto it = conns_.find(id);
    if (it == conns_.end()) return;
    boost::system::error_code ignored;
    it->second->socket.close(ignored);
    conns_.erase(it);
    listener_.on_closed(id, why, malformed);
}

void ControlServer::close(ConnectionId id) {
    auto it = conns_.find(id);
    if (it == conns_.end()) return;
    boost::system::error_code ignored;
    it->second->socket.close(ignored);
    conns_.erase(it);
}

void ControlServer::stop() {
    boost::system::error_code ignored;
    acceptor_.close(ignored);
    for (auto& [id, c] : conns_) c->socket.close(ignored);
    conns_.clear();
}

}  // namespace strata::launcher
