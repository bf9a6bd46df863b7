// One conversation with an mpirun (gram/gram.hpp): Hello, one Submit,
// authorization, staging and delegation, then the subjob's reports until it
// ends. One code path for both ways a session arrives; only how it
// authenticates differs:
//   - over_tls: a connection to the gatekeeper's port. The TLS handshake
//     verifies the user's certificate; the grid-mapfile maps its subject to
//     the local accounts it may run as.
//   - over_stdio: the ssh session (or srun step) that started
//     `strata-gatekeeper --stdio`, on its stdin and stdout. ssh (or Slurm) has
//     authenticated the user and chosen the account: the subjob runs as this
//     process's own account, in the login's environment, and over ssh mpirun
//     is reached at the session's client address (SSH_CONNECTION), in an srun
//     step at the address of the node srun ran on (SLURM_LAUNCH_NODE_IPADDR).
// A dropped connection kills the subjob; the session ends once the
// connection is closed and no process of the subjob is left.
#pragma once

#include "adapters/scheduler_adapter.hpp"
#include "base/dir_fd.hpp"
#include "base/result.hpp"
#include "gatekeeper/staging.hpp"
#include "gatekeeper/relay_spawn.hpp"
#include "gatekeeper/subjob_record.hpp"
#include "gram/gram.hpp"
#include "job/adapter_table.hpp"
#include "job/subjob.hpp"
#include "security/proxy.hpp"
#include "wireup/framed_connection.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/steady_timer.hpp>

#include <cstdint>
#include <deque>
#include <memory>
#include <string>

namespace strata::gatekeeper {

class Gatekeeper;
struct Account;

// What started a `--stdio` session: "ssh", "srun" or nothing (a local pipe),
// and mpirun's machine's address as that channel saw it (empty for a local
// pipe).
struct StdioOrigin {
    std::string tool;
    std::string client;
};
// This process's, from its environment (session.cpp says which variables).
StdioOrigin stdio_origin();

class Session final : public adapters::ProcessEvents, public std::enable_shared_from_this<Session> {
public:
    // `tls`: the context of when the connection came; a reload may replace the gatekeeper's meanwhile.
    static std::shared_ptr<Session> over_tls(Gatekeeper& gk, std::uint64_t id, boost::asio::ip::tcp::socket socket,
                                             std::shared_ptr<boost::asio::ssl::context> tls);
    // Takes both descriptors.
    static std::shared_ptr<Session> over_stdio(Gatekeeper& gk, std::uint64_t id, int in_fd, int out_fd);
    ~Session() override;
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;

    // Authenticates (TLS) and begins the conversation.
    void start();

    // Gatekeeper shutdown: the subjob ends now, and mpirun hears `reason` as
    // its final state rather than a connection that just breaks. A connection
    // still in its handshake (no subject yet), or past its final state, closes.
    void kill(const std::string& reason);

    bool running() const { return adapter_ && adapter_->state() == adapters::SubjobState::running; }
    // Counts against max_jobs: accepted (staging or running) and not over.
    bool holds_subjob() const { return accepted_ && !ended_; }
    // The grid identity (subject DN), or over ssh the account's name.
    const std::string& subject() const { return subject_; }

    // ProcessEvents: everything goes back to mpirun as it happens.
    void on_started(int rank, long pid) override;
    void on_start_failed(int rank, const std::string& reason) override;
    void on_output(int rank, adapters::Stream stream, std::string_view bytes) override;
    void on_output_closed(int rank, adapters::Stream stream) override;
    void on_exited(int rank, long pid, adapters::ProcessExit how) override;
    void on_subjob_state(int, adapters::JobState state, const std::string& detail) override;

private:
    using TlsConnection = codec::FramedConnection<boost::asio::ssl::stream<boost::asio::ip::tcp::socket>>;

    Session(Gatekeeper& gk, std::uint64_t id);
    codec::FrameHandlers handlers();
    void begin();  // authenticated: Hello, then read
    void record_save();
    void log(const std::string& what) const;
    void handle(const base::wire::RawFrame& f);
    void hello(const gram::Hello& m);
    base::Result<std::string> account_choose(const gram::Submit& m) const;
    void submit(const gram::Submit& m);
    void login_prepare(const gram::Submit& m, const Account& account);
    void launch();
    // A private site's subjob: its relay, before its processes, which get
    // its address. The address is this gatekeeper's as mpirun reached it.
    base::Status relay_start();
    void relay_watch();
    void relay_reports_wait();
    void relay_reported();
    void relay_ended();
    void relay_check();
    std::string own_address() const;
    base::Status job_dir_make(const Account& account);
    base::Status delegation_ask(const Account& account);
    void delegation_received(const gram::Delegation& d);
    void stage_data(const gram::StageData& d);
    void stage_check();
    void write_stdin();
    void close_stdin();
    void refuse(const std::string& reason);
    void finish_failed(const std::string& reason);
    void send(std::vector<std::uint8_t> frame);
    void connection_lost(const std::string& why);
    void drain();
    void close();
    void maybe_end();

    Gatekeeper& gk_;
    std::uint64_t id_;
    std::shared_ptr<boost::asio::ssl::context> tls_;  // outlives the TLS stream, which uses it
    std::shared_ptr<TlsConnection> tls_conn_;         // over TLS: the same connection as conn_
    std::shared_ptr<codec::FrameLink> conn_;
    bool stdio_ = false;      // arrived over_stdio
    StdioOrigin origin_;  // over_stdio: how the channel came, and mpirun's address as it saw it
    std::string peer_;
    std::string peer_address_;
    std::string subject_;
    base::Status proxy_check_;  // fails when the client's proxy chain may not start jobs
    std::string presented_;     // the subject of a certificate the handshake refused
    boost::asio::steady_timer timer_;
    bool hello_ = false;  // mpirun's Hello came, and its version is ours
    bool submitted_ = false;
    bool accepted_ = false;  // authorized and within the limits
    bool final_sent_ = false;
    bool draining_ = false;
    bool closed_ = false;
    bool ended_ = false;

    job::Subjob subjob_;
    bool relay_wanted_ = false;
    std::uint16_t hub_port_ = 0;  // mpirun's hub (gram::Submit::hub_port)
    std::unique_ptr<RelayProcess> relay_;  // ends with the session
    // Watches the relay's exit: a relay that ends before its subjob fails it.
    std::unique_ptr<boost::asio::posix::stream_descriptor> relay_exit_;
    std::unique_ptr<boost::asio::posix::stream_descriptor> relay_reports_;  // and its reports
    adapters::LaunchSpec spec_;
    base::DirFd job_fd_;   // the job directory, reached only through its descriptor
    std::string job_dir_;  // its path (staged files, the proxy); removed with the session
    Staging staging_;
    adapters::RunAs owner_;
    security::PkeyPtr delegation_key_;  // its public half went to mpirun; it never leaves
    bool awaiting_delegation_ = false;
    bool launch_ready_ = false;  // launch() came while the delegation was awaited
    const job::AdapterInfo* adapter_info_ = nullptr;  // set once accepted
    std::string record_name_;  // set once accepted, where records are kept
    SubjobRecord record_;
    bool record_written_ = false;
    std::unique_ptr<adapters::SchedulerAdapter> adapter_;
    std::unique_ptr<boost::asio::posix::stream_descriptor> stdin_;
    std::deque<std::string> stdin_queue_;
    bool stdin_eof_ = false;
};

}  // namespace strata::gatekeeper
