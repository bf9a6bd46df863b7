// strata-gatekeeper: a site's door for mpirun (Globus' gatekeeper and job
// manager in one process).
//
// Per connection: a TLS handshake in which both sides present certificates
// chaining to the trusted-CA directory; the user's subject is looked up in the
// grid-mapfile; the Submit (gram/gram.hpp) names the adapter (one the
// configuration offers, job/adapter_table.hpp) and, optionally, which of
// the user's mapped accounts to use. Running as root the
// gatekeeper starts the processes as that account (never as root); running
// as anyone else it accepts only mappings to its own account. The subjob's
// state changes, output and exits go back on the same connection; Cancel
// ends it; a dropped connection kills it. Every decision is logged with the
// subject DN.
//
// Live reconfiguration: reload() (SIGHUP) replaces the configuration, the
// grid-mapfile and the TLS context (host credential, trusted CAs, revocation
// lists). Handshakes from then on use the new context, requests from then on
// the new grid-mapfile and limits; a subjob already running is left alone
// (its session keeps the context it was accepted with). Before accepting a
// connection the gatekeeper also compares the trusted-CA directory with what
// the current TLS context was made from, and makes a new one when a
// certificate or revocation list was added, removed or rewritten: OpenSSL
// keeps what it once read, and a second revocation rewrites the same list.
//
// Started by mpirun over ssh (`strata-gatekeeper --stdio`), it serves that
// one session on its stdin and stdout instead (serve_stdio): no listener, no
// certificate, no grid-mapfile, no records; ssh has authenticated the user
// (gatekeeper/session.hpp).
//
// Everything runs on one io_context thread.
#pragma once

#include "gatekeeper/config.hpp"
#include "gatekeeper/gridmap.hpp"
#include "gatekeeper/subjob_record.hpp"
#include "security/tls.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
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

    // Loads the host credential and opens the listener.
    base::Status open();
    // Instead of open(): serves the one session of an ssh login on `in_fd`
    // and `out_fd` (taking both); `ended` runs once it is over.
    base::Status serve_stdio(int in_fd, int out_fd, std::function<void()> ended);
    std::uint16_t port() const { return port_; }
    // Re-reads the configuration file `config_path`, the grid-mapfile it names
    // and the trusted-CA directory, for connections accepted from now on. All
    // or nothing: fails (and nothing changed) when one of them cannot be
    // loaded. The listen address and port cannot change while the
    // listener is open: they stay, and the log says so.
    base::Status reload(const std::string& config_path);
    // Stops accepting; every connected mpirun hears its subjob FAILED with
    // "site shutting down", and every subjob is killed (on SIGTERM/SIGINT).
    // `stopped` runs, later, once no session is left.
    void shutdown(std::function<void()> stopped);

    // For sessions: the current settings (references valid until the next reload).
    boost::asio::io_context& io() { return io_; }
    const Config& config() const { return config_; }
    const GridMap& gridmap() const { return gridmap_; }
    const RecordStore* records() const { return records_ ? &*records_ : nullptr; }
    // The trusted CAs (and their revocation lists) that client chains verify
    // against now.
    X509_STORE* trust() const { return tls_ ? SSL_CTX_get_cert_store(tls_->native_handle()) : nullptr; }
    void log(const std::string& line) const { log_(line); }
    // A line about a connection from `address` that has not authenticated:
    // at most 20 such lines a minute per address, the rest counted and
    // summed up (a stranger cannot flood the log).
    void log_from(const std::string& address, const std::string& line);
    int subjobs_held() const;  // accepted and not over (staging or running)
    int subjobs_held_by(const std::string& subject) const;  // of those, for one grid identity
    void session_ended(std::uint64_t id);

private:
    void accept_next();
    // A new TLS context when the trusted-CA directory changed since the current one was made.
    void trust_refresh();

    boost::asio::io_context& io_;
    Config config_;
    GridMap gridmap_;
    Log log_;
    std::optional<RecordStore> records_;  // open once open() succeeded
    // Shared with the sessions accepted under it: a new one never pulls the
    // context from under a connection that uses it.
    std::shared_ptr<boost::asio::ssl::context> tls_;
    security::CaDirStamp tls_trust_;  // the trusted-CA directory tls_ was made from
    boost::asio::ip::tcp::acceptor acceptor_;
    boost::asio::steady_timer accept_timer_;  // the next accept while out of descriptors
    std::chrono::milliseconds accept_backoff_{0};
    struct PeerLog {
        std::chrono::steady_clock::time_point window;  // when this address's minute began
        int lines = 0;
        int dropped = 0;
    };
    std::map<std::string, PeerLog> peer_logs_;
    std::uint16_t port_ = 0;
    std::uint64_t next_id_ = 1;
    std::map<std::uint64_t, std::shared_ptr<Session>> sessions_;
    bool shutting_down_ = false;
    bool stdio_ = false;  // serving an ssh session (serve_stdio)
    std::function<void()> stopped_;
};

}  // namespace strata::gatekeeper
