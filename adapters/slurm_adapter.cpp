#include "adapters/slurm_adapter.hpp"

#include "adapters/redirect.hpp"

#include "adapters/fork_adapter.hpp"
#include "adapters/process_env.hpp"
#include "adapters/program_check.hpp"
#include "base/dir_fd.hpp"
#include "base/knob.hpp"
#include "base/numbers.hpp"
#include "wireup/environment.hpp"

#include <boost/asio/posix/stream_descriptor.hpp>

#include <fcntl.h>
#include <sys/mman.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <sstream>
#include <thread>
#include <utility>

extern char** environ;

namespace strata::adapters {

namespace {

const base::KnobInt kPollMs("STRATA_SLURM_POLL_MS", 200,
                            "how often the slurm adapter asks squeue for its job's state and reads the tasks' output "
                            "files (milliseconds)");
const base::KnobString kTaskProgram("STRATA_SLURM_TASK", "",
                                    "the slurm adapter's task wrapper; empty: strata-slurm-task beside the running "
                                    "program, else on PATH");
const base::KnobString kSbatchArgs("STRATA_SLURM_SBATCH_ARGS", "",
                                   "extra sbatch options for the slurm adapter's jobs, separated by spaces (e.g. "
                                   "\"--partition=debug --overcommit\")");

using boost::asio::posix::stream_descriptor;

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())) != 0) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())) != 0) s.remove_suffix(1);
    return s;
}

std::string shell_quote(const std::string& s) {
    std::string out = "'";
    for (char c : s) {
        if (c == '\'')
            out += "'\\''";
        else
            out += c;
    }
    return out + "'";
}

std::vector<std::string> words_split(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string w; in >> w;) out.push_back(w);
    return out;
}

// The environment sbatch runs with, and hence (Slurm exports it) the tasks'.
// SLURM_* variables of our own environment are left out, except SLURM_CONF:
// if the gatekeeper itself runs inside a Slurm allocation they would make
// srun join that allocation instead of the new job's. Without `inherit`,
// SLURM_CONF is all that is kept of ours: sbatch and the batch script's srun
// need it to find the cluster.
std::vector<std::string> job_environment(EnvOverrides overrides, bool inherit) {
    if (!inherit) {
        if (const char* conf = std::getenv("SLURM_CONF"))
            overrides.insert(overrides.begin(), {"SLURM_CONF", conf});
    }
    return environment_merge(
        overrides, [](std::string_view name) { return name.rfind("SLURM_", 0) == 0 && name != "SLURM_CONF"; },
        inherit);
}

// Starts `argv` (found on PATH) with stdout and stderr into one pipe, whose
// read end is returned, and stdin from `stdin_fd` (-1: /dev/null); -1 with
// errno set on failure.
int spawn_piped(std::vector<std::string> argv, std::vector<std::string> env, pid_t& pid, int stdin_fd = -1) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return -1;
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attr);
    if (stdin_fd >= 0)
        posix_spawn_file_actions_adddup2(&actions, stdin_fd, 0);
    else
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
    // Nothing of ours (sockets, other pipes) leaks into the Slurm commands.
    posix_spawn_file_actions_addclosefrom_np(&actions, 3);
    sigset_t none;
    sigset_t all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &all);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    std::vector<char*> av = c_array(argv);
    std::vector<char*> ev = c_array(env);
    const int rc = ::posix_spawnp(&pid, av[0], &actions, &attr, av.data(), env.empty() ? environ : ev.data());
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    ::close(fds[1]);
    if (rc != 0) {
        ::close(fds[0]);
        errno = rc;
        return -1;
    }
    return fds[0];
}

int wait_status(pid_t pid) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// For the destructor, which must not return before scancel did its work:
// runs ARGV to its end and returns its exit status and output (-1 when it
// could not be started).
std::pair<int, std::string> run_sync(const std::vector<std::string>& argv) {
    pid_t pid = -1;
    const int fd = spawn_piped(argv, {}, pid);
    if (fd < 0) return {-1, {}};
    std::string output;
    std::array<char, 4096> buf{};
    for (;;) {
        const ssize_t n = ::read(fd, buf.data(), buf.size());
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        output.append(buf.data(), static_cast<std::size_t>(n));
    }
    ::close(fd);
    return {wait_status(pid), std::move(output)};
}

// STRATA_SLURM_TASK, else the wrapper beside this program, else on PATH;
// nullopt when there is none.
std::optional<std::string> task_program_find() {
    if (!kTaskProgram.get().empty()) return kTaskProgram.get();
    std::error_code ec;
    const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        const std::string beside = (self.parent_path() / "strata-slurm-task").string();
        if (::access(beside.c_str(), X_OK) == 0) return beside;
    }
    const base::Result<std::string> found = ForkAdapter::resolve_program("strata-slurm-task", env_lookup({}, "PATH"));
    if (!found) return std::nullopt;
    return *found;
}

// The wrapper to run (`configured`, else task_program_find()) as an absolute
// path, since srun runs it from the work directory.
base::Result<std::string> task_program_locate(const std::string& configured) {
    const auto missing = [](const std::string& path) {
        return base::Error{"cannot find the slurm task wrapper strata-slurm-task" +
                           (path.empty() ? std::string() : " at '" + path + "'") +
                           "; set STRATA_SLURM_TASK to its path"};
    };
    const std::optional<std::string> found = configured.empty() ? task_program_find() : configured;
    if (!found) return missing({});
    std::string path = *found;
    if (path.front() != '/') {
        std::error_code ec;
        path = std::filesystem::absolute(path, ec).string();
    }
    if (path.empty() || ::access(path.c_str(), X_OK) != 0) return missing(path);
    return path;
}

}  // namespace

std::optional<long> slurm_job_id_parse(std::string_view sbatch_output) {
    std::string_view text = trim(sbatch_output);
    constexpr std::string_view kPrefix = "Submitted batch job ";
    const std::size_t at = text.find(kPrefix);
    if (at != std::string_view::npos) {
        std::string_view rest = text.substr(at + kPrefix.size());
        const std::size_t end = rest.find_first_not_of("0123456789");
        return base::parse_int<long>(rest.substr(0, end)).as_optional();
    }
    // --parsable: "<id>" or "<id>;<cluster>", alone on its line.
    return base::parse_int<long>(text.substr(0, text.find(';'))).as_optional();
}

SlurmJobState slurm_job_state_parse(std::string_view text) {
    using Kind = SlurmJobState::Kind;
    text = trim(text);
    SlurmJobState s;
    s.name = std::string(text.substr(0, text.find_first_of(" \t\n|")));
    // Slurm's job states (slurm.h, squeue(1) "JOB STATE CODES").
    static const std::map<std::string, Kind, std::less<>> kKinds = {
        {"PENDING", Kind::waiting},        {"CONFIGURING", Kind::waiting},   {"REQUEUED", Kind::waiting},
        {"REQUEUE_FED", Kind::waiting},    {"REQUEUE_HOLD", Kind::waiting},  {"RESV_DEL_HOLD", Kind::waiting},
        {"RUNNING", Kind::running},        {"COMPLETING", Kind::running},    {"SUSPENDED", Kind::running},
        {"STOPPED", Kind::running},        {"RESIZING", Kind::running},      {"SIGNALING", Kind::running},
        {"STAGE_OUT", Kind::running},      {"COMPLETED", Kind::ended},       {"FAILED", Kind::ended},
        {"CANCELLED", Kind::killed},       {"TIMEOUT", Kind::killed},        {"NODE_FAIL", Kind::killed},
        {"PREEMPTED", Kind::killed},       {"BOOT_FAIL", Kind::killed},      {"DEADLINE", Kind::killed},
        {"OUT_OF_MEMORY", Kind::killed},   {"SPECIAL_EXIT", Kind::killed},   {"REVOKED", Kind::killed},
    };
    const auto it = kKinds.find(s.name);
    s.kind = it != kKinds.end() ? it->second : Kind::unknown;
    if (s.kind == Kind::unknown) s.name.clear();
    return s;
}

std::optional<SlurmTaskStatus> slurm_task_status_parse(std::string_view text) {
    text = trim(text);
    const std::size_t space = text.find(' ');
    if (space == std::string_view::npos) return std::nullopt;
    const std::string_view word = text.substr(0, space);
    const base::ParsedInt<int> value = base::parse_int<int>(trim(text.substr(space + 1)), 0, 4095);
    if (!value) return std::nullopt;
    SlurmTaskStatus s;
    if (word == "exit") {
        s.exit.value = *value;
    } else if (word == "signal") {
        s.exit.signaled = true;
        s.exit.value = *value;
    } else if (word == "error") {
        s.exec_failed = true;
        s.error = *value;
    } else {
        return std::nullopt;
    }
    return s;
}

struct SlurmAdapter::Command {
    pid_t pid = -1;
    bool is_sbatch = false;
    std::unique_ptr<stream_descriptor> out;
    std::string output;
    CommandDone done;
    std::array<char, 4096> buf{};
};

SlurmAdapter::SlurmAdapter(boost::asio::io_context& io, Options options)
    : io_(io), options_(std::move(options)), poll_timer_(io) {}

SlurmAdapter::~SlurmAdapter() {
    poll_timer_.cancel();
    for (auto& c : commands_) {
        if (c->is_sbatch) {
            // Its job may already exist: learn the id to cancel it.
            boost::system::error_code ec;
            c->out->non_blocking(false, ec);
            for (;;) {
                const std::size_t n = c->out->read_some(boost::asio::buffer(c->buf), ec);
                if (ec || n == 0) break;
                c->output.append(c->buf.data(), n);
            }
            if (wait_status(c->pid) == 0) {
                if (const auto id = slurm_job_id_parse(c->output)) job_id_ = *id;
            }
        } else {
            ::kill(c->pid, SIGKILL);
            wait_status(c->pid);
        }
        boost::system::error_code ec;
        c->out->close(ec);
    }
    commands_.clear();
    if (job_id_ >= 0 && !ended_) job_end_sync(job_id_);
    (void)work_remove(work_);  // best effort: a destructor has no one to tell
}

void SlurmAdapter::job_end_sync(long job_id) {
    const std::string id = std::to_string(job_id);
    run_sync({"scancel", "--signal=KILL", id});
    run_sync({"scancel", id});
    // scancel only asks: the tasks' launchers may still write their status
    // files. Removing the work directory before they are gone races with
    // those writes (it would not be empty at the end), so wait, within a
    // bound, for Slurm to report the job over.
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < give_up) {
        const auto [status, output] = run_sync({"squeue", "-h", "-t", "all", "-j", id, "-o", "%T"});
        const auto kind = slurm_job_state_parse(output).kind;
        if (status != 0 || trim(output).empty() || kind == SlurmJobState::Kind::ended ||
            kind == SlurmJobState::Kind::killed)
            break;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
}

base::Status SlurmAdapter::work_remove(base::DirFd& work) {
    // A last status file may still land while the directory is emptied.
    base::Status removed;
    for (int attempt = 0; attempt < 20; ++attempt) {
        removed = work.remove();
        if (removed) return removed;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return removed;
}

void SlurmAdapter::command_run(std::vector<std::string> argv, const std::vector<std::string>& env, CommandDone done,
                               int stdin_fd) {
    auto c = std::make_unique<Command>();
    c->is_sbatch = argv[0] == "sbatch";
    c->done = std::move(done);
    const std::string what = argv[0];
    const int fd = spawn_piped(std::move(argv), env, c->pid, stdin_fd);
    if (fd < 0) {
        // Said at once: every caller may report from where it is (start()
        // may report start failures, the others run in handlers).
        c->done(-1, "cannot run " + what + ": " + std::strerror(errno) + "; is Slurm on PATH?");
        return;
    }
    c->out = std::make_unique<stream_descriptor>(io_, fd);
    Command& ref = *c;
    commands_.push_back(std::move(c));
    command_read(ref);
}

void SlurmAdapter::command_read(Command& c) {
    Command* cp = &c;
    c.out->async_read_some(boost::asio::buffer(c.buf), [this, cp, alive = lifeline_.token()](
                                                           const boost::system::error_code& ec, std::size_t n) {
        if (alive.expired() || ec == boost::asio::error::operation_aborted) return;
        if (!ec && n > 0) {
            cp->output.append(cp->buf.data(), n);
            command_read(*cp);
            return;
        }
        command_finished(*cp);
    });
}

void SlurmAdapter::command_finished(Command& c) {
    // The child closed its output, so it is exiting: this wait is short.
    const int status = wait_status(c.pid);
    boost::system::error_code ec;
    c.out->close(ec);
    CommandDone done = std::move(c.done);
    std::string output = std::move(c.output);
    const auto it = std::find_if(commands_.begin(), commands_.end(), [&](const auto& p) { return p.get() == &c; });
    commands_.erase(it);  // the read handler that called us touches it no more
    done(status, output);
}

void SlurmAdapter::start(const job::Subjob& subjob, LaunchSpec spec, ProcessEvents& events) {
    events_ = &events;
    started_ = true;
    subjob_index_ = subjob.index;
    batch_ = spec.batch;
    if (spec.stdin_fd >= 0) ::close(spec.stdin_fd);
    for (int i = 0; i < subjob.count; ++i) {
        Task t;
        t.rank = subjob.first_rank + i;
        tasks_.push_back(t);
    }
    auto fail_early = [&](const std::string& reason) {
        ended_ = true;
        start_failed(subjob.first_rank, reason);
    };

    // A gatekeeper runs as root: what the account may reach is learnt as
    // that account, so the answers tell nothing of what only root can see.
    const base::Result<ProgramCheck> checked =
        program_check_as(spec.run_as, spec.command.program, spec.command.directory, env_lookup(spec.command.env, "PATH"));
    if (!checked) return fail_early(checked.error());
    const std::string& directory = checked->directory;
    const std::string& path = checked->path;
    if (subjob.count <= 0) {
        ended_ = true;
        report(JobState::active, "");
        report(JobState::done, "");
        return;
    }
    const base::Result<std::string> located = task_program_locate(options_.task_program);
    if (!located) return fail_early(located.error());
    const std::string& task_program = *located;

    std::string scratch = options_.scratch_dir;
    if (scratch.empty()) scratch = env_lookup({}, "TMPDIR");
    if (scratch.empty()) scratch = "/tmp";
    base::Result<base::DirFd> work = base::DirFd::make(scratch, "strata-slurm-" + std::to_string(subjob.index) + "-");
    if (!work) return fail_early(work.error());
    work_ = std::move(*work);
    work_dir_ = work_.path();
    // Another account's tasks write their files here (sbatch --uid below);
    // from now on this process reads there only what that account owns.
    tasks_owner_ = ::geteuid();
    if (spec.run_as) {
        run_as_ = spec.run_as;
        tasks_owner_ = spec.run_as->uid;
        if (base::Status s = work_.give(spec.run_as->uid, spec.run_as->gid); !s) return fail_early(s.error());
    }

    std::ostringstream script;
    script << "#!/bin/sh\n"
           << "# Subjob " << subjob.index << " (ranks " << subjob.first_rank << "-"
           << subjob.first_rank + subjob.count - 1 << "), submitted by Strata's slurm adapter.\n";
    // Output files the job names start empty; the tasks append to them. (A
    // name that cannot be made is reported by the task that opens it.)
    for (const std::string* f : {&spec.command.stdout_file, &spec.command.stderr_file})
        if (!f->empty()) script << "(cd " << shell_quote(directory) << " && : >" << shell_quote(*f) << ") 2>/dev/null\n";
    script << "srun --ntasks=" << subjob.count << " --kill-on-bad-exit=0";
    for (const std::string& a : {task_program, work_dir_, std::to_string(subjob.first_rank),
                                 std::to_string(subjob.index), directory, path, spec.command.program})
        script << ' ' << shell_quote(a);
    for (const std::string& a : spec.command.args) script << ' ' << shell_quote(a);
    // The tasks' exits are reported from their status files; a non-zero exit
    // here would only turn a normal end into Slurm's FAILED.
    script << "\nexit 0\n";
    // sbatch reads the script from its stdin: no file of it in a directory
    // the account can write, whose name it could point elsewhere.
    base::UniqueFd script_fd(::memfd_create("strata-batch", MFD_CLOEXEC));
    const std::string text = script.str();
    if (!script_fd || ::write(script_fd.get(), text.data(), text.size()) != static_cast<ssize_t>(text.size()) ||
        ::lseek(script_fd.get(), 0, SEEK_SET) != 0)
        return fail_early(std::string("cannot hold the batch script: ") + std::strerror(errno));
    auto env = spec.command.env;
    env.emplace_back(wireup::env::kSubjob, std::to_string(subjob.index));
    const std::string* files[3] = {&spec.command.stdin_file, &spec.command.stdout_file, &spec.command.stderr_file};
    for (int fd = 0; fd < 3; ++fd)
        if (!files[fd]->empty()) env.emplace_back(kRedirectEnv[fd], *files[fd]);
    submit(job_environment(env, spec.inherit_environment), script_fd.get());
}

void SlurmAdapter::submit(const std::vector<std::string>& env, int script_fd) {
    std::vector<std::string> argv = {"sbatch",
                                     "--job-name=strata-subjob" + std::to_string(subjob_index_),
                                     "--ntasks=" + std::to_string(tasks_.size()),
                                     "--chdir=" + work_dir_,
                                     "--output=" + work_dir_ + "/batch.out",
                                     "--error=" + work_dir_ + "/batch.err"};
    if (run_as_) {
        argv.push_back("--uid=" + std::to_string(run_as_->uid));
        argv.push_back("--gid=" + std::to_string(run_as_->gid));
    }
    if (!batch_.queue.empty()) argv.push_back("--partition=" + batch_.queue);
    if (!batch_.project.empty()) argv.push_back("--account=" + batch_.project);
    if (batch_.max_wall_time_min > 0) argv.push_back("--time=" + std::to_string(batch_.max_wall_time_min));
    if (batch_.host_count > 0) argv.push_back("--nodes=" + std::to_string(batch_.host_count));
    if (batch_.memory_mb > 0) argv.push_back("--mem-per-cpu=" + std::to_string(batch_.memory_mb) + "M");
    for (const std::string& w : words_split(kSbatchArgs.get())) argv.push_back(w);
    submitting_ = true;
    command_run(std::move(argv), env, [this](int status, const std::string& output) {
        submitting_ = false;
        const auto id = status == 0 ? slurm_job_id_parse(output) : std::nullopt;
        if (!id) {
            ended_ = true;
            const std::string msg(trim(output));
            start_failed(tasks_.front().rank, "sbatch refused the job: " + (msg.empty() ? "no answer" : msg));
            return;
        }
        job_id_ = *id;
        report(JobState::pending, "slurm job " + std::to_string(job_id_));
        if (cancelled_) {
            const CancelMode mode = *cancelled_;
            cancelled_.reset();
            cancel(mode);
        }
        poll_schedule();
    }, script_fd);
}

void SlurmAdapter::poll_schedule() {
    if (ended_) return;
    poll_timer_.expires_after(std::chrono::milliseconds(std::max<std::int64_t>(10, kPollMs.get())));
    poll_timer_.async_wait([this, alive = lifeline_.token()](const boost::system::error_code& ec) {
        if (alive.expired() || ec == boost::asio::error::operation_aborted) return;
        poll();
    });
}

void SlurmAdapter::poll() {
    if (ended_) return;
    tasks_read();
    if (!squeue_running_) {
        squeue_running_ = true;
        command_run({"squeue", "-h", "-t", "all", "-j", std::to_string(job_id_), "-o", "%T"}, {},
                    [this](int status, const std::string& output) {
                        squeue_running_ = false;
                        squeue_answer(status, output);
                    });
    }
    poll_schedule();
}

void SlurmAdapter::squeue_answer(int status, const std::string& output) {
    if (ended_) return;
    using Kind = SlurmJobState::Kind;
    const SlurmJobState s = slurm_job_state_parse(output);
    if (status == 0 && s.kind == Kind::running) report(JobState::active, "");
    if (status == 0 && (s.kind == Kind::ended || s.kind == Kind::killed)) return job_ended(s);
    // Slurm forgot the job (it ended longer than MinJobAge ago). Any other
    // error (controller busy, timeout) is retried at the next poll.
    if ((status == 0 && trim(output).empty()) || output.find("Invalid job id") != std::string::npos)
        job_ended(SlurmJobState{});
}

std::string SlurmAdapter::task_file(std::size_t task, const char* suffix) {
    return "task" + std::to_string(task) + suffix;
}

void SlurmAdapter::task_output_read(Task& t, Stream s) {
    const std::size_t index = static_cast<std::size_t>(&t - tasks_.data());
    const base::Result<std::optional<base::UniqueFd>> opened =
        work_.file_open_owned(task_file(index, s == Stream::out ? ".out" : ".err"), tasks_owner_);
    if (!opened) {
        task_file_refused(t, task_file(index, s == Stream::out ? ".out" : ".err"), opened.error());
        return;
    }
    const std::optional<base::UniqueFd>& fd = *opened;
    if (!fd) return;  // not there yet
    off_t& offset = t.offset[s == Stream::out ? 0 : 1];
    std::array<char, 65536> buf;
    for (;;) {
        const ssize_t n = ::pread(fd->get(), buf.data(), buf.size(), offset);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        offset += n;
        events_->on_output(t.rank, s, std::string_view(buf.data(), static_cast<std::size_t>(n)));
    }
}

void SlurmAdapter::task_file_refused(Task& t, const std::string& name, const std::string& why) {
    if (t.refusal_said) return;
    t.refusal_said = true;
    const std::string line = "strata: slurm adapter: not reading " + name + " of rank " + std::to_string(t.rank) +
                             ": " + why + "\n";
    events_->on_output(t.rank, Stream::err, line);
}

void SlurmAdapter::tasks_read() {
    for (std::size_t i = 0; i < tasks_.size(); ++i) {
        Task& t = tasks_[i];
        if (t.finished) continue;
        // The status first: it is written after the program ended, so output
        // read after it is complete.
        if (!t.status) {
            if (const auto text = work_.file_read_owned(task_file(i, ".status"), tasks_owner_); text && *text)
                t.status = slurm_task_status_parse(**text);
        }
        if (!t.started && !(t.status && t.status->exec_failed)) {
            const auto text = work_.file_read_owned(task_file(i, ".pid"), tasks_owner_);
            const auto pid = text && *text ? base::parse_int<long>(trim(**text)).as_optional() : std::nullopt;
            if (pid || t.status) {
                t.started = true;
                t.pid = pid.value_or(-1);
                report(JobState::active, "");
                events_->on_started(t.rank, t.pid);
            }
        }
        if (t.started) {
            task_output_read(t, Stream::out);
            task_output_read(t, Stream::err);
        }
        if (!t.status) continue;
        t.finished = true;
        if (t.status->exec_failed) {
            start_failed(t.rank, std::strerror(t.status->error));
            continue;
        }
        events_->on_output_closed(t.rank, Stream::out);
        events_->on_output_closed(t.rank, Stream::err);
        events_->on_exited(t.rank, t.pid, t.status->exit);
    }
}

std::string SlurmAdapter::batch_error_tail() const {
    if (!work_.is_open()) return {};
    const auto text = work_.file_read_owned("batch.err", tasks_owner_);
    if (!text || !*text) return {};
    std::string_view s = trim(**text);
    const std::size_t nl = s.rfind('\n');
    if (nl != std::string_view::npos) s = s.substr(nl + 1);
    return s.empty() ? std::string() : " (" + std::string(s) + ")";
}

void SlurmAdapter::job_ended(const SlurmJobState& state) {
    ended_ = true;
    poll_timer_.cancel();
    tasks_read();
    const std::string job = "slurm job " + std::to_string(job_id_);
    const std::string how = state.name.empty() ? "left the queue" : "ended: " + state.name;
    std::string failure;
    if (state.kind == SlurmJobState::Kind::killed && !cancelled_) failure = job + " " + how + batch_error_tail();
    for (Task& t : tasks_) {
        if (t.finished) continue;
        t.finished = true;
        if (!t.started) {
            // The first rank that never ran stands for all of them.
            if (!start_failure_reported_ && !cancelled_) {
                start_failure_reported_ = true;
                events_->on_start_failed(t.rank, job + " " + how + " before rank " + std::to_string(t.rank) +
                                                     " started" + batch_error_tail());
            }
            if (failure.empty())
                failure = job + " " + how + " before rank " + std::to_string(t.rank) + " started" + batch_error_tail();
            continue;
        }
        // Slurm killed the wrapper as well (SIGKILL), so no status was written.
        events_->on_output_closed(t.rank, Stream::out);
        events_->on_output_closed(t.rank, Stream::err);
        events_->on_exited(t.rank, t.pid, ProcessExit{true, SIGKILL});
        if (failure.empty() && !cancelled_)
            failure = job + " " + how + " but rank " + std::to_string(t.rank) + " left no exit status" +
                      batch_error_tail();
    }
    if (!failure.empty()) return report(JobState::failed, failure);
    report(JobState::active, "");
    report(JobState::done, "");
}

void SlurmAdapter::start_failed(int rank, const std::string& reason) {
    if (!start_failure_reported_) {
        start_failure_reported_ = true;
        events_->on_start_failed(rank, reason);
    }
    report(JobState::failed, "rank " + std::to_string(rank) + " could not start: " + reason);
}

void SlurmAdapter::report(JobState state, const std::string& detail) {
    // Once a subjob failed or ended, nothing more is said about it; a state
    // already told is not told again.
    if (reported_ && (*reported_ == JobState::failed || *reported_ == JobState::done)) return;
    if (reported_ && static_cast<int>(*reported_) >= static_cast<int>(state)) return;
    reported_ = state;
    events_->on_subjob_state(subjob_index_, state, detail);
}

void SlurmAdapter::scancel(const std::vector<std::string>& options) {
    std::vector<std::string> argv = {"scancel"};
    argv.insert(argv.end(), options.begin(), options.end());
    argv.push_back(std::to_string(job_id_));
    command_run(std::move(argv), {}, [](int, const std::string&) {});
}

void SlurmAdapter::cancel(CancelMode mode) {
    if (!cancelled_ || mode == CancelMode::kill) cancelled_ = mode;
    if (ended_ || job_id_ < 0) return;  // a pending sbatch cancels when it answers
    if (mode == CancelMode::kill) {
        // Plain scancel after the KILL removes the job even if it never ran.
        const std::string id = std::to_string(job_id_);
        command_run({"scancel", "--signal=KILL", id}, {}, [this](int, const std::string&) {
            if (!ended_) scancel({});
        });
        return;
    }
    // A running job keeps running until its programs end on SIGTERM (the
    // batch script then ends normally); a job still queued is removed.
    if (reported_ == JobState::active)
        scancel({"--signal=TERM"});
    else
        scancel({});
}

SubjobState SlurmAdapter::state() const {
    if (!started_) return SubjobState::idle;
    return ended_ ? SubjobState::done : SubjobState::running;
}

}  // namespace strata::adapters
