// The scheduler adapter for subjobs at another site: mpirun's side of the
// gatekeeper protocol (gram/gram.hpp), over TLS to a site's gatekeeper or
// over ssh to a user-level one (launcher/stdio_channel.hpp; "/ssh" contacts).
//
// start() resolves the contact, connects, runs the TLS handshake with the
// user's credential (security/tls.hpp; the gatekeeper's certificate must
// chain to a trusted CA and name the contact's host), and submits the
// subjob. From then on the gatekeeper's reports become ProcessEvents, and
// mpirun's stdin (when rank 0 is in this subjob) is forwarded to it. A
// subjob that cannot be submitted (no route, refused, not authorized) or
// whose connection is lost is reported as FAILED with the reason; the
// gatekeeper ends the subjob's processes when the connection drops, so
// nothing outlives mpirun.
//
// The processes reach mpirun's control listener at the address this end of
// the connection has (STRATA_WIREUP is rewritten to it): the address the
// site's host can route back to. Over ssh the remote gatekeeper does the
// same with the address its session came from.
//
// Over ssh, start() runs ssh at once and sends Hello and Submit into its
// pipe; the site's Hello proves the gatekeeper runs there. If ssh ends
// first, the failure is its own message and status (channel_failure()); a
// node of the Slurm allocation ("node/srun") is reached the same way with srun.
#pragma once

#include "adapters/scheduler_adapter.hpp"
#include "base/result.hpp"
#include "base/wire.hpp"
#include "wireup/framed_connection.hpp"
#include "job/contact.hpp"
#include "gram/gram.hpp"
#include "launcher/stdio_channel.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/steady_timer.hpp>

#include <array>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace strata::launcher {

// mpirun's credential for its gatekeeper connections: one TLS client context
// shared by all of them, made when the first subjob at a gatekeeper asks (a
// job on this machine alone needs no credential). Its owner (the
// co-allocator) hands it to each GatekeeperAdapter it creates.
class GatekeeperTls {
public:
    // The context; a failure names `subjob`, the subjob that needed it.
    base::Result<std::shared_ptr<boost::asio::ssl::context>> context(const job::Subjob& subjob);

private:
    std::shared_ptr<boost::asio::ssl::context> tls_;
};

class GatekeeperAdapter final : public adapters::SchedulerAdapter {
public:
    // A TLS gatekeeper, with mpirun's credential.
    GatekeeperAdapter(boost::asio::io_context& io, job::Contact contact, std::shared_ptr<boost::asio::ssl::context> tls);
    // An ssh site; `log` hears each line ssh and the remote gatekeeper write
    // to their stderr.
    GatekeeperAdapter(boost::asio::io_context& io, job::Contact contact, std::function<void(const std::string&)> log);
    ~GatekeeperAdapter() override;
    GatekeeperAdapter(const GatekeeperAdapter&) = delete;
    GatekeeperAdapter& operator=(const GatekeeperAdapter&) = delete;

    const char* name() const override { return "gatekeeper"; }
    void start(const job::Subjob& subjob, adapters::LaunchSpec spec, adapters::ProcessEvents& events) override;
    void cancel(adapters::CancelMode mode) override;
    adapters::SubjobState state() const override;

private:
    enum class Phase { idle, connecting, submitted, finished };

    void on_resolved(const boost::system::error_code& ec, boost::asio::ip::tcp::resolver::results_type results);
    void on_connected(const boost::system::error_code& ec);
    void on_handshake(const boost::system::error_code& ec);
    codec::FrameHandlers handlers();
    void ssh_start();
    // The link is up (TLS handshake done, or ssh started): Hello, Submit, staging.
    void submit();
    bool hello(const gram::Hello& m);
    void handle_frame(const base::wire::RawFrame& frame);
    std::string malformed_hint() const;
    void on_ended(const codec::FrameEnd& e);
    // Signs a proxy for the site's key (security/proxy.hpp) and sends it.
    void delegate(const gram::DelegationRequest& m);
    void pump_stdin();
    // Opens and hashes what the subjob stages.
    base::Status stage_prepare(std::vector<gram::StagedFile>& files);
    void stage_next();  // sends the next chunk of staged data, if any
    // Ends the conversation and reports FAILED with `reason`, unless the
    // gatekeeper already gave a final state.
    void finish(const std::string& reason);
    std::string where() const;  // "gatekeeper host:port", "ssh site user@host"
    std::string handshake_failure(const boost::system::error_code& ec);

    boost::asio::io_context& io_;
    job::Contact contact_;
    std::shared_ptr<boost::asio::ssl::context> tls_;
    bool delegated_ = false;
    boost::asio::ip::tcp::resolver resolver_;
    using TlsConnection = codec::FramedConnection<boost::asio::ssl::stream<boost::asio::ip::tcp::socket>>;
    std::shared_ptr<TlsConnection> tls_conn_;  // over TLS: the same connection as conn_
    std::shared_ptr<codec::FrameLink> conn_;  // set once connecting begins
    std::unique_ptr<StdioChannel> ssh_;         // over ssh
    std::function<void(const std::string&)> ssh_log_;
    boost::asio::steady_timer connect_timer_;
    bool hello_ = false;  // the site's Hello came
    Phase phase_ = Phase::idle;
    job::Subjob subjob_;
    adapters::LaunchSpec spec_;
    adapters::ProcessEvents* events_ = nullptr;
    bool cancel_sent_ = false;
    bool host_mismatch_ = false;  // its certificate chains to a trusted CA but names another host
    std::unique_ptr<boost::asio::posix::stream_descriptor> stdin_;
    std::vector<std::unique_ptr<std::ifstream>> stage_files_;  // open, at the next byte to send
    std::vector<std::uint32_t> stage_left_;                     // bytes of each still to send
    std::size_t stage_at_ = 0;                                  // the file being sent
    std::array<char, 16384> stdin_buf_{};
};

}  // namespace strata::launcher
