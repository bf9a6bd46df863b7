// strata-gatekeeper: a site's door for mpirun (Globus' gatekeeper and job
// manager in one process).
//
// Per connection: a TLS handshake in which both sides present certificates
// chaining to the trusted-CA directory; the user's subject is looked up in the
// grid-mapfile; the Submit (launcher/gram.hpp) names the adapter and,
// optionally, which of the user's mapped accounts to use. Running as root the
// gatekeeper starts the processes as that account (never as root); running
// as anyone else it accepts only mappings to its own account. The subjob's
// state changes, output and exits go back on the same connection; Cancel
// ends it; a dropped connection kills it. Every decision is logged with the
// subject DN.
//
// Everything runs on one io_context thread.
#pragma once

#include "gatekeeper/config.hpp"
#include "gatekeeper/gridmap.hpp"
#include "gatekeeper/subjob_record.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/ssl/context.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace strata::gatekeeper {

class Session;

class Gatekeeper {
public:
    using Log = std::function<void(const std::string&)>;

    Gatekeeper(boost::asio::io_context& io, Config config, GridMap gridmap, Log log);
    ~Gatekeeper();
    Gatekeeper(const Gatekeeper&) = delete;
    Gatekeeper& operator=(const Gatekeeper&) = delete;

    // Loads the host credential and opens the listener; false with `error`.
    bool open(std::string& error);
    std::uint16_t port() const { return port_; }
    // Stops accepting and kills every running subjob (on SIGTERM/SIGINT).
    void shutdown();

    // For sessions.
    boost::asio::io_context& io() { return io_; }
    const Config& config() const { return config_; }
    const GridMap& gridmap() const { return gridmap_; }
    const RecordStore* records() const { return records_ ? &*records_ : nullptr; }
    // The trusted CAs (and their revocation lists) that client chains verify against.
    X509_STORE* trust() const { return SSL_CTX_get_cert_store(tls_->native_handle()); }
    void log(const std::string& line) const { log_(line); }
    int subjobs_held() const;  // accepted and not over (staging or running)
    int subjobs_held_by(const std::string& subject) const;  // of those, for one grid identity
    void session_ended(std::uint64_t id);

private:
    void accept_next();

    boost::asio::io_context& io_;
    Config config_;
    GridMap gridmap_;
    Log log_;
    std::optional<RecordStore> records_;  // open once open() succeeded
    std::shared_ptr<boost::asio::ssl::context> tls_;
    boost::asio::ip::tcp::acceptor acceptor_;
    std::uint16_t port_ = 0;
    std::uint64_t next_id_ = 1;
    std::map<std::uint64_t, std::shared_ptr<Session>> sessions_;
    bool shutting_down_ = false;
};

}  // namespace strata::gatekeeper
