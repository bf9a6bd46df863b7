// The embedded local scheduler adapter: starts a subjob's processes on this
// machine with fork/exec, needing no daemon.
//
// Each process runs in its own process group (so a signal reaches anything it
// started) with PR_SET_PDEATHSIG=SIGKILL (so it cannot outlive mpirun even if
// mpirun is SIGKILLed). stdout and stderr come back through pipes; stdin is
// /dev/null except for rank 0, which reads mpirun's stdin through a pipe.
// When a process exits, whatever it left in its process group is killed
// before the process is reaped (the zombie keeps the group id from being
// reused, so the kill cannot hit a stranger).
#pragma once

#include <unistd.h>

#include "base/result.hpp"
#include "adapters/scheduler_adapter.hpp"
#include "base/lifeline.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>

#include <sys/types.h>

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace strata::adapters {

class StdinPump;

class ForkAdapter final : public SchedulerAdapter {
public:
    explicit ForkAdapter(boost::asio::io_context& io);
    ~ForkAdapter() override;
    ForkAdapter(const ForkAdapter&) = delete;
    ForkAdapter& operator=(const ForkAdapter&) = delete;

    const char* name() const override { return "fork"; }
    void start(const job::Subjob& subjob, LaunchSpec spec, ProcessEvents& events) override;
    void cancel(CancelMode mode) override;
    SubjobState state() const override;

    // execvp's search, done before fork so a missing program is reported
    // before anything starts. The path to exec; fails with the strerror of
    // the errno execvp would report.
    static base::Result<std::string> resolve_program(const std::string& program, const std::string& path_env);

private:
    struct Process {
        int rank = 0;
        pid_t pid = -1;
        bool reaped = false;
        std::unique_ptr<boost::asio::posix::stream_descriptor> out;
        std::unique_ptr<boost::asio::posix::stream_descriptor> err;
    };

    bool start_one(int rank, const std::string& path, const std::vector<std::string>& argv,
                   const std::vector<std::string>& envs, bool with_stdin, bool first, int& stdin_sink);
    void watch_children();
    void wall_time_arm(int minutes);  // the subjob's maxWallTime: then FAILED, and killed
    void reap_exited();
    void read_output(Process& p, Stream s);
    void close_output(Process& p, Stream s);
    void after_change();
    void start_failed(int rank, const std::string& reason);
    void report(JobState state, const std::string& detail);
    bool all_reaped() const;
    bool all_output_closed() const;

    boost::asio::io_context& io_;
    boost::asio::signal_set sigchld_;
    boost::asio::steady_timer drain_timer_;
    boost::asio::steady_timer wall_timer_;
    bool drain_timer_armed_ = false;
    std::vector<std::unique_ptr<Process>> procs_;  // stable addresses for pending handlers
    std::unique_ptr<StdinPump> stdin_;
    ProcessEvents* events_ = nullptr;
    std::string directory_;  // the subjob's, for the children to chdir to
    std::array<std::string, 3> files_;  // its stdin, stdout and stderr files (adapters/redirect.hpp); empty: pipes
    int subjob_index_ = 0;
    std::optional<RunAs> run_as_;
    // What a reaped process left behind (adapters/leftovers.hpp), removed as
    // the account it ran as.
    void leftovers_remove(pid_t pid) const;
    std::optional<JobState> reported_;  // the last state told to events_
    bool started_ = false;
    std::array<char, 65536> buf_{};  // shared by all reads: one read completes at a time
    base::Lifeline lifeline_;        // a gatekeeper destroys adapters while its io_context runs on
};

}  // namespace strata::adapters
