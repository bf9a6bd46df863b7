// The co-allocator: runs one job from start to exit code.
//
// It starts every subjob through its scheduler adapter, serves the wire-up
// protocol (checkin, the startup barrier, abort, finalize), forwards output,
// and decides when and why the job ends. Policy, in one place:
//   - The startup barrier opens (Release to all) when every rank checked in;
//     the Release carries the communicator file (-commfile's, as main read
//     it, or with -gencomm one written then from the cards; one that cannot
//     be written ends the job).
//   - FinalizeDone goes to all when every rank sent Finalize.
//   - The first failure ends the job: a start failure (exit 127), MPI_Abort
//     (its code & 255, or 1 if that is 0), a rank that exits or is killed
//     before MPI_Finalize (its code, 128+signal, or 1 for code 0), a rank
//     exiting 0 without MPI_Init while others have checked in (1), a signal
//     to mpirun (128+signal). Ending = SIGTERM to everything, SIGKILL after
//     STRATA_KILL_GRACE_MS, reap all, drain their output, exit.
//   - Processes that never check in and exit 0 (non-MPI programs) are fine
//     as long as nobody has checked in.
//   - A non-zero exit after MPI_Finalize is reported and becomes the exit
//     code, without ending the others.
// Everything runs on one thread, in io_context handlers.
#pragma once

#include "adapters/scheduler_adapter.hpp"
#include "launcher/control_server.hpp"
#include "launcher/gatekeeper_adapter.hpp"
#include "launcher/name_service.hpp"
#include "launcher/command_plan.hpp"
#include "launcher/options.hpp"
#include "launcher/output_forwarder.hpp"
#include "launcher/relay_hub.hpp"
#include "security/challenge.hpp"
#include "wireup/shared_links.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace strata::launcher {

// The communicator file of -commfile: what messages call it, and its text.
struct CommFileText {
    std::string where;
    std::string text;
};

class CoAllocator final : public adapters::ProcessEvents, public ControlServer::Listener {
public:
    CoAllocator(boost::asio::io_context& io, const Options& options, const job::JobPlan& plan, CommFileText comm = {});
    ~CoAllocator() override;
    CoAllocator(const CoAllocator&) = delete;
    CoAllocator& operator=(const CoAllocator&) = delete;

    // Runs the job to its end and returns mpirun's exit code. Call once.
    int run();

    void on_started(int rank, long pid) override;
    void on_start_failed(int rank, const std::string& reason) override;
    void on_output(int rank, adapters::Stream stream, std::string_view bytes) override;
    void on_output_closed(int rank, adapters::Stream stream) override;
    void on_exited(int rank, long pid, adapters::ProcessExit how) override;
    void on_subjob_state(int subjob, adapters::JobState state, const std::string& detail) override;

    void on_frame(ControlServer::ConnectionId id, const wireup::Frame& frame) override;
    void on_closed(ControlServer::ConnectionId id, const std::string& why, bool malformed) override;

private:
    struct RankState {
        long pid = -1;
        bool checked_in = false;
        bool finalized = false;
        bool exited = false;
        std::optional<ControlServer::ConnectionId> conn;
        wireup::BusinessCard card;
        std::unique_ptr<boost::asio::steady_timer> lost_timer;
    };

    std::vector<std::pair<std::string, std::string>> environment() const;
    // The adapter for `subjob`: the embedded fork adapter for this machine,
    // a gatekeeper adapter for every other contact.
    base::Result<std::unique_ptr<adapters::SchedulerAdapter>> adapter_make(const job::Subjob& subjob);
    // mpirun's hub, when two or more sites are private (their relays may
    // not reach each other).
    base::Status hub_start(bool all_interfaces);
    void handle_hello(ControlServer::ConnectionId id, const wireup::Frame& frame);
    void handle_checkin(ControlServer::ConnectionId id, const wireup::Frame& frame);
    // A process's request to the name service, on a connection of its own
    // that it proved with the job key like a Checkin.
    void handle_names(ControlServer::ConnectionId id, const wireup::Frame& frame);
    void handle_abort(int rank, ControlServer::ConnectionId id, const wireup::Frame& frame);
    void handle_finalize(int rank, ControlServer::ConnectionId id, const wireup::Frame& frame);
    void release_barrier();
    void watch_startup(const job::Subjob& subjob);
    void drop(ControlServer::ConnectionId id, const std::string& reason);
    void watch_lost_connection(int rank);
    void watch_signals();
    void end_job(int exit_code, const std::string& message);
    void kill_all();
    void check_done();
    void say(const std::string& message) const;      // "mpirun: message" on stderr
    void narrate(const std::string& message) const;  // only with -v

    boost::asio::io_context& io_;
    const Options& options_;
    const job::JobPlan& plan_;
    CommFileText comm_;
    std::string job_key_;
    ControlServer server_;
    OutputForwarder output_;
    boost::asio::signal_set signals_;
    boost::asio::steady_timer kill_timer_;
    GatekeeperTls gatekeeper_tls_;
    std::vector<std::unique_ptr<adapters::SchedulerAdapter>> adapters_;
    std::unique_ptr<RelayHub> hub_;
    std::unique_ptr<wireup::SharedLinks> links_;  // the emulated links' table (wireup/shared_links.hpp)
    std::vector<RankState> ranks_;
    std::vector<std::unique_ptr<boost::asio::steady_timer>> startup_timers_;  // per subjob, from ACTIVE
    std::map<ControlServer::ConnectionId, int> conn_rank_;
    // Connections that said Hello and got a Challenge, not yet checked in:
    // the two nonces their Checkin's proof must cover.
    struct Challenged {
        security::Nonce rank_nonce{};
        security::Nonce mpirun_nonce{};
    };
    std::map<ControlServer::ConnectionId, Challenged> challenged_;
    NameService names_;
    int checked_in_ = 0;
    // When mpirun -v's startup trace saw each phase end, as "+12.3 ms" texts
    // since mpirun began: the last rank started, the first check-in.
    std::string last_started_at_, first_checkin_at_;
    int finalized_ = 0;
    bool released_ = false;
    std::optional<int> exited_without_init_;  // a rank that exited 0 before anyone checked in
    bool ending_ = false;
    bool finished_ = false;
    bool stdout_gone_ = false;
    int exit_code_ = 0;
};

}  // namespace strata::launcher
