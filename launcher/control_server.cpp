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

base::Status ControlServer::listen(bool all_interfaces) {
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
    if (ec) return base::Error{"cannot open the control listener on " + where + ": " + ec.message()};
    // The programs mpirun starts must not inherit the listener.
    ::fcntl(acceptor_.native_handle(), F_SETFD, FD_CLOEXEC);
    accept_next();
    return {};
}

void ControlServer::accept_next() {
    acceptor_.async_accept([this](const boost::system::error_code& ec, tcp::socket socket) {
        if (ec == asio::error::operation_aborted) return;
        if (!ec) {
            ::fcntl(socket.native_handle(), F_SETFD, FD_CLOEXEC);
            boost::system::error_code ignored;
            socket.set_option(tcp::no_delay(true), ignored);
            base::socket_keepalive(socket.native_handle());
            const ConnectionId id = next_id_++;
            Connection::Handlers handlers;
            handlers.frame = [this, id](const base::wire::RawFrame& f) {
                listener_.on_frame(id, wireup::Frame{static_cast<wireup::Type>(f.type), f.payload});
            };
            handlers.ended = [this, id](const codec::FrameEnd& e) {
                if (e.malformed)
                    fail(id, "a malformed frame (unknown type or longer than the protocol allows)", true);
                else
                    fail(id, e.error == asio::error::eof ? "closed by the peer" : e.error.message());
            };
            auto c = Connection::make(wireup::frame_splitter(), std::move(handlers), std::move(socket));
            conns_.emplace(id, c);
            c->start();
        }
        // Transient accept errors (EMFILE, ECONNABORTED) must not stop the listener.
        if (acceptor_.is_open()) accept_next();
    });
}

void ControlServer::drain(ConnectionId id) {
    auto it = conns_.find(id);
    if (it == conns_.end()) return;
    // A dead peer's data is all queued already: read until there is no more.
    const std::shared_ptr<Connection> c = it->second;
    while (c->read_available() == Connection::Read::data) {
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
    it->second->send(std::move(frame));
}

void ControlServer::fail(ConnectionId id, const std::string& why, bool malformed) {
    auto it = conns_.find(id);
    if (it == conns_.end()) return;
    it->second->close();
    conns_.erase(it);
    listener_.on_closed(id, why, malformed);
}

void ControlServer::close(ConnectionId id) {
    auto it = conns_.find(id);
    if (it == conns_.end()) return;
    it->second->close();
    conns_.erase(it);
}

void ControlServer::stop() {
    boost::system::error_code ignored;
    acceptor_.close(ignored);
    for (auto& [id, c] : conns_) c->close();
    conns_.clear();
}

}  // namespace strata::launcher
