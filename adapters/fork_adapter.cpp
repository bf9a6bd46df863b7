#include "adapters/fork_adapter.hpp"

#include "adapters/leftovers.hpp"

#include "adapters/process_env.hpp"
#include "adapters/program_check.hpp"
#include "adapters/redirect.hpp"
#include "base/knob.hpp"
#include "base/lifeline.hpp"
#include "base/unique_fd.hpp"
#include "wireup/environment.hpp"

#include <boost/asio/write.hpp>

#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>


namespace strata::adapters {

namespace {

const base::KnobInt kDrainMs("STRATA_DRAIN_MS", 2000,
                             "how long mpirun keeps reading the stdout/stderr of finished processes that is held "
                             "open by programs they left running outside their process group");

using boost::asio::posix::stream_descriptor;

// Keeps the error paths of fork/exec leak-free.
using Fd = base::UniqueFd;

bool make_pipe(Fd& read_end, Fd& write_end) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return false;
    read_end.reset(fds[0]);
    write_end.reset(fds[1]);
    return true;
}

// What a child reports on its status pipe when it cannot exec: errno, and
// which step failed (0: any but a redirection; 1 + fd: redirecting that fd).
struct ChildFailure {
    int error = 0;
    int step = 0;
};

// Runs in the child between fork and exec: async-signal-safe calls only.
[[noreturn]] void child_fail(int status_fd, int step = 0) {
    const ChildFailure f{errno, step};
    [[maybe_unused]] ssize_t w = ::write(status_fd, &f, sizeof f);
    ::_exit(127);
}

// The child's standard descriptors: the pipes (or /dev/null), then the
// subjob's files where it names them (`files`, indexed by descriptor; null:
// none), the first process emptying the output files.
struct ChildStdio {
    int fds[3];
    const char* files[3];
    bool first;
};

[[noreturn]] void child_exec(pid_t parent, const ChildStdio& stdio, int status_fd, const char* dir,
                             const char* path, char* const* argv, char* const* envp, const sigset_t& mask,
                             const RunAs* run_as, const gid_t* groups, std::size_t ngroups) {
    ::setpgid(0, 0);
    // Changing credentials clears the parent-death signal, so it is armed after.
    if (run_as != nullptr) {
        if (::setgroups(ngroups, groups) != 0 || ::setgid(run_as->gid) != 0 || ::setuid(run_as->uid) != 0)
            child_fail(status_fd);
    }
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    // The parent may have died before PDEATHSIG was armed.
    if (::getppid() != parent) ::_exit(127);

    // Handlers installed by mpirun (Asio's) must not run in the child, and
    // SIGPIPE, which mpirun ignores, must be back to default for the program.
    // Signals stay blocked (inherited from the parent) until this is done.
    for (int sig = 1; sig < NSIG; ++sig) {
        struct sigaction sa;
        if (::sigaction(sig, nullptr, &sa) != 0) continue;
        const bool caught = (sa.sa_flags & SA_SIGINFO) != 0 || (sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN);
        if (caught || sig == SIGPIPE) {
            std::memset(&sa, 0, sizeof sa);
            sa.sa_handler = SIG_DFL;
            ::sigaction(sig, &sa, nullptr);
        }
    }
    ::sigprocmask(SIG_SETMASK, &mask, nullptr);

    for (int fd = 0; fd < 3; ++fd)
        if (::dup2(stdio.fds[fd], fd) < 0) child_fail(status_fd);
    // Nothing of mpirun's (control socket, other ranks' pipes) may leak into
    // the program; the status pipe is already close-on-exec.
    if (::close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) != 0) {
        struct rlimit rl;
        int limit = 65536;
        if (::getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < 65536)
            limit = static_cast<int>(rl.rlim_cur);
        for (int fd = 3; fd < limit; ++fd) ::fcntl(fd, F_SETFD, FD_CLOEXEC);
    }
    if (dir != nullptr && ::chdir(dir) != 0) child_fail(status_fd);
    for (int fd = 0; fd < 3; ++fd)
        if (stdio.files[fd] != nullptr && !redirect(fd, stdio.files[fd], stdio.first)) child_fail(status_fd, 1 + fd);
    ::execve(path, argv, envp);
    child_fail(status_fd);
}

}  // namespace

// Copies mpirun's stdin to rank 0's stdin pipe, closing the pipe at EOF so
// the program sees end of input. Restores the stdin file flags that Asio's
// non-blocking mode changes, because a terminal's flags are shared with the
// user's shell.
class StdinPump {
public:
    StdinPump(boost::asio::io_context& io, int source_fd, int sink_fd) : source_(io), sink_(io) {
        saved_flags_ = ::fcntl(source_fd, F_GETFL);
        boost::system::error_code ec;
        source_.assign(source_fd, ec);
        if (ec) ::close(source_fd);
        sink_.assign(sink_fd, ec);
        if (ec) ::close(sink_fd);
        pump();
    }
    StdinPump(const StdinPump&) = delete;
    StdinPump& operator=(const StdinPump&) = delete;
    ~StdinPump() { stop(); }

    void stop() {
        if (source_.is_open()) {
            boost::system::error_code ec;
            source_.cancel(ec);
            if (saved_flags_ >= 0) ::fcntl(source_.native_handle(), F_SETFL, saved_flags_);
            source_.close(ec);
        }
        if (sink_.is_open()) {
            boost::system::error_code ec;
            sink_.close(ec);
        }
    }

private:
    void pump() {
        if (!source_.is_open() || !sink_.is_open()) {
            stop();
            return;
        }
        source_.async_read_some(boost::asio::buffer(buf_), [this, alive = lifeline_.token()](
                                                               const boost::system::error_code& ec, std::size_t n) {
            if (alive.expired() || ec == boost::asio::error::operation_aborted) return;
            if (ec || n == 0) {
                stop();
                return;
            }
            boost::asio::async_write(sink_, boost::asio::buffer(buf_.data(), n),
                                     [this, alive = lifeline_.token()](const boost::system::error_code& wec,
                                                                       std::size_t) {
                                         if (alive.expired() || wec == boost::asio::error::operation_aborted)
                                             return;
                                         // EPIPE: rank 0 closed its stdin or exited; stop reading ours.
                                         if (wec) {
                                             stop();
                                             return;
                                         }
                                         pump();
                                     });
        });
    }

    stream_descriptor source_;
    stream_descriptor sink_;
    int saved_flags_ = -1;
    std::array<char, 65536> buf_{};
    base::Lifeline lifeline_;
};

ForkAdapter::ForkAdapter(boost::asio::io_context& io)
    : io_(io), sigchld_(io, SIGCHLD), drain_timer_(io), wall_timer_(io) {}

void ForkAdapter::leftovers_remove(pid_t pid) const {
    if (run_as_) {
        shm_leftovers_remove_as(pid, *run_as_);
    } else {
        shm_leftovers_remove(pid, ::geteuid());
    }
}

ForkAdapter::~ForkAdapter() {
    stdin_.reset();
    // The last line of defence for "no process left behind": whatever path
    // led here (normal end, an exception in mpirun), nothing we started survives.
    for (auto& p : procs_) {
        if (p->reaped) continue;
        ::killpg(p->pid, SIGKILL);
        int status = 0;
        while (::waitpid(p->pid, &status, 0) < 0 && errno == EINTR) {
        }
        leftovers_remove(p->pid);
    }
}

base::Result<std::string> ForkAdapter::resolve_program(const std::string& program, const std::string& path_env) {
    if (program.empty()) return base::Error{std::strerror(ENOENT)};
    if (program.find('/') != std::string::npos) return program;
    const std::string path = path_env.empty() ? "/bin:/usr/bin" : path_env;
    int first_error = ENOENT;
    std::size_t begin = 0;
    for (;;) {
        const std::size_t end = path.find(':', begin);
        std::string dir = path.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
        if (dir.empty()) dir = ".";
        const std::string candidate = dir + "/" + program;
        struct stat st;
        if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
            if (::access(candidate.c_str(), X_OK) == 0) return candidate;
            // Like execvp: a file that exists but cannot be run is reported as
            // such unless a later directory has a runnable one.
            first_error = EACCES;
        }
        if (end == std::string::npos) break;
        begin = end + 1;
    }
    return base::Error{std::strerror(first_error)};
}

void ForkAdapter::start(const job::Subjob& subjob, LaunchSpec spec, ProcessEvents& events) {
    events_ = &events;
    started_ = true;
    subjob_index_ = subjob.index;
    run_as_ = spec.run_as;
    Fd stdin_source(spec.stdin_fd);
    watch_children();

    directory_ = spec.command.directory;
    files_ = {spec.command.stdin_file, spec.command.stdout_file, spec.command.stderr_file};
    // As the account (a gatekeeper runs as root): see program_check.hpp.
    base::Result<ProgramCheck> checked =
        program_check_as(run_as_, spec.command.program, directory_, env_lookup(spec.command.env, "PATH"));
    if (spec.batch.host_count > 1)  // the job readers refuse it; a hand-made request may not
        checked = base::Error{"hostCount " + std::to_string(spec.batch.host_count) +
                              ": the fork adapter runs every process on one host"};
    if (!checked) {
        start_failed(subjob.first_rank, checked.error());
        after_change();
        return;
    }
    const std::string& path = checked->path;
    std::vector<std::string> argv;
    argv.push_back(spec.command.program);
    argv.insert(argv.end(), spec.command.args.begin(), spec.command.args.end());

    for (int i = 0; i < subjob.count; ++i) {
        const int rank = subjob.first_rank + i;
        auto env = spec.command.env;
        env.emplace_back(wireup::env::kRank, std::to_string(rank));
        env.emplace_back(wireup::env::kSubjob, std::to_string(subjob.index));
        const bool with_stdin = rank == 0 && stdin_source.get() >= 0 && files_[0].empty();
        int stdin_sink = -1;
        if (!start_one(rank, path, argv, environment_merge(env, {}, spec.inherit_environment), with_stdin, i == 0,
                       stdin_sink))
            break;
        if (with_stdin) stdin_ = std::make_unique<StdinPump>(io_, stdin_source.release(), stdin_sink);
    }
    report(JobState::active, "");
    if (spec.batch.max_wall_time_min > 0) wall_time_arm(spec.batch.max_wall_time_min);
    after_change();
}

void ForkAdapter::wall_time_arm(int minutes) {
    wall_timer_.expires_after(std::chrono::minutes(minutes));
    wall_timer_.async_wait([this, minutes, alive = lifeline_.token()](const boost::system::error_code& ec) {
        if (alive.expired() || ec == boost::asio::error::operation_aborted || all_reaped()) return;
        // The reason first: what follows (the kills, the exits) does not replace it.
        report(JobState::failed, "its wall time of " + std::to_string(minutes) + " minute(s) ran out");
        cancel(CancelMode::kill);
    });
}

void ForkAdapter::start_failed(int rank, const std::string& reason) {
    events_->on_start_failed(rank, reason);
    report(JobState::failed, "rank " + std::to_string(rank) + " could not start: " + reason);
}

void ForkAdapter::report(JobState state, const std::string& detail) {
    // Once a subjob failed or ended, nothing more is said about it.
    if (reported_ && (*reported_ == JobState::failed || *reported_ == JobState::done)) return;
    reported_ = state;
    events_->on_subjob_state(subjob_index_, state, detail);
}

bool ForkAdapter::start_one(int rank, const std::string& path, const std::vector<std::string>& argv_in,
                            const std::vector<std::string>& env_in, bool with_stdin, bool first, int& stdin_sink) {
    auto fail = [&](const char* what) {
        start_failed(rank, std::string(what) + ": " + std::strerror(errno));
        return false;
    };
    Fd out_r, out_w, err_r, err_w, in_r, in_w, status_r, status_w;
    if (!make_pipe(out_r, out_w) || !make_pipe(err_r, err_w) || !make_pipe(status_r, status_w)) return fail("pipe");
    if (with_stdin) {
        if (!make_pipe(in_r, in_w)) return fail("pipe");
    } else {
        in_r.reset(::open("/dev/null", O_RDONLY | O_CLOEXEC));
        if (in_r.get() < 0) return fail("/dev/null");
    }

    std::vector<std::string> argv_strings = argv_in;
    std::vector<std::string> env_strings = env_in;
    std::vector<char*> argv = c_array(argv_strings);
    std::vector<char*> envp = c_array(env_strings);

    std::vector<gid_t> groups;
    if (run_as_)
        for (unsigned g : run_as_->groups) groups.push_back(static_cast<gid_t>(g));

    ChildStdio stdio{{in_r.get(), out_w.get(), err_w.get()}, {}, first};
    for (int fd = 0; fd < 3; ++fd) stdio.files[fd] = files_[fd].empty() ? nullptr : files_[fd].c_str();

    // Block every signal across fork so no handler of mpirun's runs in the
    // child before the child has reset them.
    sigset_t all;
    sigset_t old;
    sigfillset(&all);
    ::sigprocmask(SIG_SETMASK, &all, &old);
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid == 0)
        child_exec(parent, stdio, status_w.get(), directory_.empty() ? nullptr : directory_.c_str(), path.c_str(),
                   argv.data(), envp.data(), old, run_as_ ? &*run_as_ : nullptr, groups.data(), groups.size());
    const int fork_errno = errno;
    ::sigprocmask(SIG_SETMASK, &old, nullptr);
    if (pid < 0) {
        errno = fork_errno;
        return fail("fork");
    }
    // Also from this side, so a cancel() can never race the child's own setpgid.
    ::setpgid(pid, pid);
    status_w.reset();
    in_r.reset();
    out_w.reset();
    err_w.reset();

    // The status pipe closes on a successful exec; a ChildFailure arrives otherwise.
    ChildFailure failure;
    ssize_t n = 0;
    do {
        n = ::read(status_r.get(), &failure, sizeof failure);
    } while (n < 0 && errno == EINTR);
    if (n > 0) {
        int status = 0;
        while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        const int fd = failure.step - 1;
        start_failed(rank, fd >= 0 && fd < 3 ? "cannot open its " + std::string(kRedirectNames[fd]) + " file '" +
                                                    files_[static_cast<std::size_t>(fd)] + "': " +
                                                    std::strerror(failure.error)
                                              : std::string(std::strerror(failure.error)));
        return false;
    }

    auto p = std::make_unique<Process>();
    p->rank = rank;
    p->pid = pid;
    p->out = std::make_unique<stream_descriptor>(io_, out_r.release());
    p->err = std::make_unique<stream_descriptor>(io_, err_r.release());
    boost::system::error_code ec;
    p->out->non_blocking(true, ec);
    p->err->non_blocking(true, ec);
    Process& ref = *p;
    procs_.push_back(std::move(p));
    if (with_stdin) stdin_sink = in_w.release();
    events_->on_started(rank, pid);
    read_output(ref, Stream::out);
    read_output(ref, Stream::err);
    return true;
}

void ForkAdapter::watch_children() {
    sigchld_.async_wait([this, alive = lifeline_.token()](const boost::system::error_code& ec, int) {
        if (alive.expired() || ec == boost::asio::error::operation_aborted) return;
        reap_exited();
        watch_children();
    });
}

void ForkAdapter::reap_exited() {
    for (auto& p : procs_) {
        if (p->reaped) continue;
        siginfo_t info;
        std::memset(&info, 0, sizeof info);
        // WNOWAIT: look without reaping, so the zombie still owns the process
        // group id while we kill whatever the process left in its group.
        if (::waitid(P_PID, static_cast<id_t>(p->pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0) continue;
        if (info.si_pid != p->pid) continue;
        ::killpg(p->pid, SIGKILL);
        int status = 0;
        pid_t r = 0;
        do {
            r = ::waitpid(p->pid, &status, 0);
        } while (r < 0 && errno == EINTR);
        p->reaped = true;
        leftovers_remove(p->pid);
        ProcessExit how;
        if (WIFSIGNALED(status)) {
            how.signaled = true;
            how.value = WTERMSIG(status);
        } else {
            how.value = WEXITSTATUS(status);
        }
        events_->on_exited(p->rank, p->pid, how);
    }
    after_change();
}

void ForkAdapter::read_output(Process& p, Stream s) {
    auto& d = s == Stream::out ? p.out : p.err;
    if (!d) return;
    Process* pp = &p;
    d->async_wait(stream_descriptor::wait_read, [this, pp, s, alive = lifeline_.token()](const boost::system::error_code& ec) {
        if (alive.expired() || ec == boost::asio::error::operation_aborted) return;
        auto& desc = s == Stream::out ? pp->out : pp->err;
        if (!desc) return;
        boost::system::error_code rec;
        const std::size_t n = ec ? 0 : desc->read_some(boost::asio::buffer(buf_), rec);
        if (!ec && rec == boost::asio::error::would_block) {
            read_output(*pp, s);
            return;
        }
        if (ec || rec || n == 0) {
            close_output(*pp, s);
            after_change();
            return;
        }
        events_->on_output(pp->rank, s, std::string_view(buf_.data(), n));
        read_output(*pp, s);
    });
}

void ForkAdapter::close_output(Process& p, Stream s) {
    auto& d = s == Stream::out ? p.out : p.err;
    if (!d) return;
    boost::system::error_code ec;
    d->close(ec);
    d.reset();
    events_->on_output_closed(p.rank, s);
}

void ForkAdapter::cancel(CancelMode mode) {
    const int sig = mode == CancelMode::kill ? SIGKILL : SIGTERM;
    // Only unreaped leaders: their (possibly zombie) pid still names the group.
    for (auto& p : procs_)
        if (!p->reaped) ::killpg(p->pid, sig);
    if (stdin_) stdin_->stop();
}

bool ForkAdapter::all_reaped() const {
    for (const auto& p : procs_)
        if (!p->reaped) return false;
    return true;
}

bool ForkAdapter::all_output_closed() const {
    for (const auto& p : procs_)
        if (p->out || p->err) return false;
    return true;
}

void ForkAdapter::after_change() {
    if (!started_ || !all_reaped()) return;
    if (stdin_) stdin_->stop();
    if (all_output_closed()) {
        report(JobState::done, "");
        return;
    }
    if (drain_timer_armed_) return;
    // Every process is gone but something still holds a pipe open.
    drain_timer_armed_ = true;
    drain_timer_.expires_after(std::chrono::milliseconds(kDrainMs.get()));
    drain_timer_.async_wait([this, alive = lifeline_.token()](const boost::system::error_code& ec) {
        if (alive.expired() || ec == boost::asio::error::operation_aborted) return;
        for (auto& p : procs_) {
            close_output(*p, Stream::out);
            close_output(*p, Stream::err);
        }
        after_change();
    });
}

SubjobState ForkAdapter::state() const {
    if (!started_) return SubjobState::idle;
    return all_reaped() && all_output_closed() ? SubjobState::done : SubjobState::running;
}

}  // namespace strata::adapters
