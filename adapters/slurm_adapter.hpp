// A scheduler adapter that runs a subjob as one job of a local Slurm cluster,
// for a site gatekeeper to use (mpirun does not pick it by itself).
//
// How it works. start() checks the program and the directory as the account
// that will run them, exactly as the fork adapter does (program_check.hpp; a
// missing program is reported without submitting anything), makes a fresh
// work directory under the scratch directory (base::DirFd) and submits a
// batch script with sbatch, which reads it from its stdin (a memfd: no
// script file lies where the account could replace it):
//
//   srun --ntasks=<count> --kill-on-bad-exit=0 strata-slurm-task <work> ...
//
// strata-slurm-task (adapters/slurm_task.cpp) is the task wrapper, one per
// Slurm task: it sets STRATA_RANK = first_rank + SLURM_PROCID and
// STRATA_SUBJOB, changes to the subjob's directory, runs the program with
// stdout and stderr going to task<N>.out / task<N>.err in the work
// directory, and writes task<N>.pid once the program runs and task<N>.status
// ("exit 3", "signal 15", or "error <errno>" if it could not be executed)
// when it ends, each by write-then-rename so the adapter never reads half a
// file. It forwards the signals Slurm sends it to the program and is a
// compiled program rather than a shell script because a shell cannot tell
// "exit 143" from "killed by SIGTERM".
//
// The adapter then polls, every STRATA_SLURM_POLL_MS on an Asio timer: it
// reads the new bytes of each task's output files (so output arrives while
// the task runs; only regular files the account owns are read, never through
// a link, and a refused one is said once on the rank's stderr), reports on_started when a pid file appears, and once a
// status file exists reads the output to its end before it reports the
// output closed and the exit, so nothing printed right before exit is
// lost. The job's state comes from `squeue -t all -j <id>` (PENDING ->
// pending, RUNNING -> active, a final state -> done or failed).
//
// Why files and a wrapper: without Slurm accounting (sacct) nothing else
// tells a task's pid and exact exit status, and srun's own per-task output
// files (--output=%t) would arrive only through srun; files in the work
// directory work the same on any cluster with a shared filesystem. Only one
// squeue runs at a time; if the controller is slow, polls simply skip it.
// The batch script exits 0 after srun, so Slurm's FAILED/COMPLETED never
// depends on the programs' exit codes (those come from the status files).
//
// Events, compared with the fork adapter:
// - on_subjob_state: pending "slurm job <id>" once sbatch accepted the
//   batch script; active when Slurm runs it (or a task started); done when
//   the job ended and every task's exit and output were delivered; failed
//   with the reason otherwise (sbatch's message, "slurm job 7 ended:
//   TIMEOUT", ...).
// - on_start_failed: for the first rank when the program or directory is
//   unusable (strerror text, as the fork adapter), when sbatch refuses the
//   job, or when the job ends before that rank's task started (unless
//   cancel() ended it); for a rank whose program could not be executed on
//   the node. Only the first start failure is reported.
// - cancel(terminate) of a job still queued removes it: the subjob is then
//   failed ("slurm job 7 ended: CANCELLED before rank 0 started").
// - on_started(rank, pid): pid of the program on its node.
// - on_exited: the program's real exit code or signal. A task that left no
//   status (Slurm killed the wrapper too, e.g. cancel(kill), a time limit or
//   a node failure) is reported as killed by SIGKILL.
//
// Limits.
// - stdin: tasks read /dev/null; spec.stdin_fd is closed at start(). Rank 0
//   does not get mpirun's stdin through Slurm.
// - The scratch directory, the program and strata-slurm-task must be at the
//   same path on the compute nodes (a shared filesystem); on one machine
//   they are. The work directory is removed when the adapter is destroyed.
// - Slurm commands are found on PATH; SLURM_CONF in the environment selects
//   the cluster. Extra sbatch options (partition, account, --overcommit to
//   run more tasks than cores) come from STRATA_SLURM_SBATCH_ARGS.
// - With spec.run_as (a gatekeeper running as root) the work directory is
//   given to that account and the job is submitted with sbatch --uid/--gid.
// - A job Slurm forgot before it was polled (MinJobAge very small) is
//   judged by the tasks' status files alone.
//
// Threading and blocking: everything runs on the io_context thread. sbatch,
// squeue and scancel run as child processes whose output is read
// asynchronously; the only waits are waitpid() on a child that already
// closed its output (it is exiting), and the destructor's scancel, which
// runs synchronously so that no Slurm job outlives the adapter.
#pragma once

#include "adapters/scheduler_adapter.hpp"
#include "base/dir_fd.hpp"
#include "base/lifeline.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <sys/types.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace strata::adapters {

// The job id in sbatch's answer ("Submitted batch job 42", or "42" /
// "42;cluster" with --parsable); nullopt if there is none.
std::optional<long> slurm_job_id_parse(std::string_view sbatch_output);

// A Slurm job state as squeue's %T or sacct's State print it ("RUNNING",
// "CANCELLED by 0", "TIMEOUT"), reduced to what the adapter acts on.
struct SlurmJobState {
    enum class Kind {
        unknown,  // not a state name (empty, an error message)
        waiting,  // PENDING, CONFIGURING, REQUEUED, ...: not running yet
        running,  // RUNNING, COMPLETING, SUSPENDED, ...
        ended,    // COMPLETED or FAILED: the batch script ran to its end
        killed,   // CANCELLED, TIMEOUT, NODE_FAIL, PREEMPTED, OUT_OF_MEMORY, ...
    };
    Kind kind = Kind::unknown;
    std::string name;  // the state's first word, e.g. "CANCELLED"
};
SlurmJobState slurm_job_state_parse(std::string_view text);

// What a task wrapper wrote into task<N>.status.
struct SlurmTaskStatus {
    bool exec_failed = false;  // the program could not be executed; `error` says why
    int error = 0;             // an errno value
    ProcessExit exit;
};
std::optional<SlurmTaskStatus> slurm_task_status_parse(std::string_view text);

class SlurmAdapter final : public SchedulerAdapter {
public:
    struct Options {
        std::string scratch_dir;   // where work directories go; empty: $TMPDIR, else /tmp
        std::string task_program;  // the task wrapper; empty: STRATA_SLURM_TASK, else
                                   // strata-slurm-task beside the running program, else on PATH
    };

    SlurmAdapter(boost::asio::io_context& io, Options options);
    ~SlurmAdapter() override;  // scancels a job that still runs, removes the work directory
    SlurmAdapter(const SlurmAdapter&) = delete;
    SlurmAdapter& operator=(const SlurmAdapter&) = delete;

    const char* name() const override { return "slurm"; }
    void start(const job::Subjob& subjob, LaunchSpec spec, ProcessEvents& events) override;
    // terminate: `scancel --signal=TERM` (the programs get SIGTERM and may
    // clean up; the job ends when they do). kill: `scancel --signal=KILL`,
    // then `scancel`.
    void cancel(CancelMode mode) override;
    SubjobState state() const override;

    long job_id() const { return job_id_; }  // -1 until sbatch accepted the job
    const std::string& work_dir() const { return work_dir_; }

    // Ends Slurm job `job_id` (scancel KILL, then scancel) and waits, within
    // 10 s, for Slurm to report it over: what the destructor does, also for a
    // gatekeeper reclaiming the job of an adapter that died with it.
    static void job_end_sync(long job_id);
    // Removes a work directory, retrying while the last task files land.
    static base::Status work_remove(base::DirFd& work);

private:
    struct Command;
    struct Task {
        int rank = 0;
        long pid = -1;
        bool started = false;
        bool finished = false;  // exit or start failure reported, output closed
        std::optional<SlurmTaskStatus> status;
        off_t offset[2] = {0, 0};  // bytes of .out / .err delivered
        bool refusal_said = false;  // a task file was not read (a symlink, another owner's)
    };
    using CommandDone = std::function<void(int status, const std::string& output)>;

    void command_run(std::vector<std::string> argv, const std::vector<std::string>& env, CommandDone done,
                     int stdin_fd = -1);
    void command_read(Command& c);
    void command_finished(Command& c);
    void submit(const std::vector<std::string>& env, int script_fd);
    void poll_schedule();
    void poll();
    void squeue_answer(int status, const std::string& output);
    void tasks_read();
    void task_output_read(Task& t, Stream s);
    void task_file_refused(Task& t, const std::string& name, const std::string& why);
    void job_ended(const SlurmJobState& state);
    void start_failed(int rank, const std::string& reason);
    void report(JobState state, const std::string& detail);
    void scancel(const std::vector<std::string>& options);
    static std::string task_file(std::size_t task, const char* suffix);
    std::string batch_error_tail() const;

    boost::asio::io_context& io_;
    Options options_;
    boost::asio::steady_timer poll_timer_;
    std::vector<std::unique_ptr<Command>> commands_;  // children running now
    ProcessEvents* events_ = nullptr;
    std::vector<Task> tasks_;
    base::DirFd work_;     // the work directory, reached only through its descriptor
    std::string work_dir_;  // its path, for Slurm and the task wrapper
    uid_t tasks_owner_ = 0;  // who writes the task files; nothing else is read
    std::optional<RunAs> run_as_;  // sbatch --uid/--gid (the adapter runs as root)
    job::Batch batch_;             // sbatch --partition, --account, --time
    int subjob_index_ = 0;
    long job_id_ = -1;
    bool started_ = false;
    bool submitting_ = false;
    bool squeue_running_ = false;
    bool ended_ = false;  // the Slurm job is over (or was never submitted)
    bool start_failure_reported_ = false;
    std::optional<CancelMode> cancelled_;
    std::optional<JobState> reported_;
    base::Lifeline lifeline_;  // a gatekeeper destroys adapters while its io_context runs on
};

}  // namespace strata::adapters
