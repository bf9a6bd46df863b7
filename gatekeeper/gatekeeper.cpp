#include "gatekeeper/gatekeeper.hpp"

#include "base/keepalive.hpp"
#include "gatekeeper/session.hpp"
#include "security/tls.hpp"

#include <boost/asio/post.hpp>

#include <fcntl.h>

#include <algorithm>
#include <utility>

namespace strata::gatekeeper {

namespace asio = boost::asio;
using asio::ip::tcp;

namespace {

std::string names_text(const std::vector<std::string>& names) {
    std::string out;
    for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
    return out;
}

}  // namespace

Gatekeeper::Gatekeeper(asio::io_context& io, Config config, GridMap gridmap, Log log)
    : io_(io),
      config_(std::move(config)),
      gridmap_(std::move(gridmap)),
      log_(std::move(log)),
      acceptor_(io),
      accept_timer_(io) {}

Gatekeeper::~Gatekeeper() = default;

base::Status Gatekeeper::open() {
    base::Result<RecordStore> records = RecordStore::open(config_.state_dir);
    if (!records) return records.failure();
    records_ = std::move(*records);
    // Subjobs an earlier run left (it died without cleaning up) go first.
    records_reclaim(*records_, config_.scratch, log_);
    // Stamped before the context reads anything, so a change in between is seen later.
    security::CaDirStamp trust = security::ca_dir_stamp(config_.ca_dir);
    auto ctx = security::tls_context_make(security::TlsRole::server, {config_.cert, config_.key, config_.ca_dir});
    if (!ctx.ok()) return ctx.failure();
    tls_ = std::move(ctx.value());
    tls_trust_ = std::move(trust);
    boost::system::error_code ec;
    tcp::endpoint ep;
    if (config_.listen.empty()) {
        ep = tcp::endpoint(asio::ip::address_v4::any(), static_cast<unsigned short>(config_.port));
    } else {
        const asio::ip::address a = asio::ip::make_address(config_.listen, ec);
        if (ec) return base::Error{"'" + config_.listen + "' is not an address to listen on"};
        ep = tcp::endpoint(a, static_cast<unsigned short>(config_.port));
    }
    acceptor_.open(ep.protocol(), ec);
    if (!ec) acceptor_.set_option(tcp::acceptor::reuse_address(true), ec);
    if (!ec) acceptor_.bind(ep, ec);
    if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
    if (!ec) port_ = acceptor_.local_endpoint(ec).port();
    if (ec) {
        return base::Error{"cannot listen on " + ep.address().to_string() + ":" + std::to_string(config_.port) + ": " +
                           ec.message()};
    }
    ::fcntl(acceptor_.native_handle(), F_SETFD, FD_CLOEXEC);
    accept_next();
    return {};
}

base::Status Gatekeeper::reload(const std::string& config_path) {
    base::Result<Config> config = Config::load(config_path);
    if (!config) return config.failure();
    base::Result<GridMap> gridmap = GridMap::load(config->gridmap);
    if (!gridmap) return gridmap.failure();
    security::CaDirStamp trust = security::ca_dir_stamp(config->ca_dir);
    auto ctx = security::tls_context_make(security::TlsRole::server, {config->cert, config->key, config->ca_dir});
    if (!ctx.ok()) return ctx.failure();
    // The socket is bound: these would need a new listener, and mpiruns know the old address.
    if (config->listen != config_.listen || config->port != config_.port) {
        boost::system::error_code ec;
        const tcp::endpoint at = acceptor_.local_endpoint(ec);
        log("the new listen address or port (" + (config->listen.empty() ? "every interface" : config->listen) +
            ", port " + std::to_string(config->port) + ") takes effect only at a restart; still listening on " +
            (ec ? "port " + std::to_string(port_) : at.address().to_string() + ":" + std::to_string(at.port())));
        config->listen = config_.listen;
        config->port = config_.port;
    }
    config_ = std::move(*config);
    gridmap_ = std::move(*gridmap);
    tls_ = std::move(ctx.value());
    tls_trust_ = std::move(trust);
    return {};
}

void Gatekeeper::trust_refresh() {
    security::CaDirStamp now = security::ca_dir_stamp(config_.ca_dir);
    if (now == tls_trust_) return;
    const std::string changed = names_text(now.changed_since(tls_trust_));
    auto ctx = security::tls_context_make(security::TlsRole::server, {config_.cert, config_.key, config_.ca_dir});
    if (!ctx.ok()) {
        // Tried again at the next connection, which may find the files complete.
        log("the trusted-CA directory changed (" + changed + ") but cannot be used: " + ctx.error() +
            "; keeping the previous certificates and revocation lists");
        return;
    }
    tls_ = std::move(ctx.value());
    tls_trust_ = std::move(now);
    log("the trusted-CA directory changed (" + changed +
        "); new connections use its certificates and revocation lists");
}

void Gatekeeper::accept_next() {
    acceptor_.async_accept([this](const boost::system::error_code& ec, tcp::socket socket) {
        if (ec == asio::error::operation_aborted || shutting_down_) return;
        // Out of descriptors or memory, accepting again at once would fail
        // again at once: wait, longer each time, until a connection gets in.
        if (ec == asio::error::no_descriptors || ec.value() == ENFILE || ec == asio::error::no_buffer_space ||
            ec == asio::error::no_memory) {
            accept_backoff_ = std::min(std::chrono::milliseconds(2000),
                                       std::max(std::chrono::milliseconds(50), accept_backoff_ * 2));
            if (accept_backoff_ == std::chrono::milliseconds(50))
                log("cannot accept connections: " + ec.message() + "; retrying, less often while it lasts");
            accept_timer_.expires_after(accept_backoff_);
            accept_timer_.async_wait([this](const boost::system::error_code& tec) {
                if (!tec && acceptor_.is_open() && !shutting_down_) accept_next();
            });
            return;
        }
        if (!ec) {
            if (accept_backoff_.count() > 0) log("accepting connections again");
            accept_backoff_ = std::chrono::milliseconds(0);
            ::fcntl(socket.native_handle(), F_SETFD, FD_CLOEXEC);
            boost::system::error_code ignored;
            socket.set_option(tcp::no_delay(true), ignored);
            base::socket_keepalive(socket.native_handle());
            trust_refresh();
            const std::uint64_t id = next_id_++;
            auto s = Session::over_tls(*this, id, std::move(socket), tls_);
            sessions_.emplace(id, s);
            s->start();
        }
        if (acceptor_.is_open()) accept_next();
    });
}

base::Status Gatekeeper::serve_stdio(int in_fd, int out_fd, std::function<void()> ended) {
    stdio_ = true;
    stopped_ = std::move(ended);
    for (int fd : {in_fd, out_fd}) {
        if (::fcntl(fd, F_GETFD) < 0) return base::Error{"descriptor " + std::to_string(fd) + " is not open"};
        ::fcntl(fd, F_SETFD, FD_CLOEXEC);
    }
    const std::uint64_t id = next_id_++;
    auto s = Session::over_stdio(*this, id, in_fd, out_fd);
    sessions_.emplace(id, s);
    s->start();
    return {};
}

void Gatekeeper::log_from(const std::string& address, const std::string& line) {
    constexpr int kLines = 20;  // a minute, per address
    const auto now = std::chrono::steady_clock::now();
    if (peer_logs_.size() > 4096) {
        std::erase_if(peer_logs_, [&](const auto& e) { return now - e.second.window > std::chrono::minutes(1); });
    }
    PeerLog& p = peer_logs_[address];
    if (now - p.window > std::chrono::minutes(1)) {
        if (p.dropped > 0)
            log("dropped " + std::to_string(p.dropped) + " log line(s) about unauthenticated connections from " +
                address + " in the minute before");
        p = PeerLog{now, 0, 0};
    }
    if (++p.lines <= kLines) return log(line);
    if (p.dropped++ == 0)
        log("too many unauthenticated connections from " + address + ": their lines are dropped for the rest of "
            "this minute");
}

int Gatekeeper::subjobs_held() const {
    int n = 0;
    for (const auto& [id, s] : sessions_) n += s->holds_subjob() ? 1 : 0;
    return n;
}

int Gatekeeper::subjobs_held_by(const std::string& subject) const {
    int n = 0;
    for (const auto& [id, s] : sessions_) n += s->holds_subjob() && s->subject() == subject ? 1 : 0;
    return n;
}

void Gatekeeper::session_ended(std::uint64_t id) {
    sessions_.erase(id);
    const bool over = shutting_down_ || stdio_;
    if (over && sessions_.empty() && stopped_) std::exchange(stopped_, nullptr)();
}

void Gatekeeper::shutdown(std::function<void()> stopped) {
    shutting_down_ = true;
    stopped_ = std::move(stopped);
    boost::system::error_code ec;
    acceptor_.close(ec);
    const auto sessions = sessions_;
    for (const auto& [id, s] : sessions) s->kill("site shutting down");
    // Never from inside this call: the caller is still in its signal handler.
    if (sessions_.empty())
        asio::post(io_, [this] {
            if (stopped_) std::exchange(stopped_, nullptr)();
        });
}

}  // namespace strata::gatekeeper
