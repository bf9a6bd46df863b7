#include "launcher/stdio_channel.hpp"

#include "base/keepalive.hpp"
#include "base/knob.hpp"

#include <boost/asio/buffer.hpp>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <sstream>

namespace strata::launcher {

namespace {

namespace asio = boost::asio;

const base::KnobString kSsh("STRATA_SSH", "ssh",
                            "the ssh client mpirun runs for ssh sites, with any options of its own (words split at "
                            "blanks), e.g. \"ssh -F /path/ssh_config\"");

constexpr std::size_t kTailBytes = 2048;

// `text` as one word for a POSIX shell.
std::string shell_word(const std::string& text) {
    std::string out = "'";
    for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

// The last three lines of `text` that say something, joined by " | ";
// without the remote gatekeeper's own log lines when `ssh_only`.
std::string last_lines(const std::string& text, bool ssh_only) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
        if (ssh_only && line.find(" strata-gatekeeper: ") != std::string::npos) continue;
        if (!line.empty()) lines.push_back(line);
    }
    if (lines.empty()) return "no message";
    std::string out;
    for (std::size_t i = lines.size() > 3 ? lines.size() - 3 : 0; i < lines.size(); ++i)
        out += (out.empty() ? "" : " | ") + lines[i];
    return out;
}

}  // namespace

std::vector<std::string> ssh_client() {
    std::vector<std::string> words;
    std::istringstream in(kSsh.get());
    for (std::string w; in >> w;) words.push_back(w);
    if (words.empty()) words.emplace_back("ssh");
    return words;
}

std::vector<std::string> ssh_command(const std::vector<std::string>& ssh, const job::Contact& contact,
                                     const std::string& strata) {
    std::vector<std::string> argv = ssh;
    argv.insert(argv.end(), {"-o", "BatchMode=yes", "-T"});
    // A silent site (the network cut) ends the session within about STRATA_PEER_TIMEOUT_S,
    // as on every other control connection.
    const int alive_s = (base::peer_timeout_s() + 2) / 3;
    argv.insert(argv.end(), {"-o", "ServerAliveInterval=" + std::to_string(alive_s), "-o", "ServerAliveCountMax=3"});
    if (contact.port_given) argv.insert(argv.end(), {"-p", std::to_string(contact.port)});
    if (!contact.user.empty()) argv.insert(argv.end(), {"-l", contact.user});
    argv.emplace_back("--");
    argv.push_back(contact.host);
    std::string program = "strata-gatekeeper";
    if (!strata.empty()) program = shell_word((strata.back() == '/' ? strata : strata + "/") + "bin/strata-gatekeeper");
    argv.push_back("exec " + program + " --stdio");
    return argv;
}

std::vector<std::string> srun_command(const job::Contact& contact, const std::string& job_id,
                                      const std::string& gatekeeper) {
    return {"srun",       "--jobid=" + job_id, "--nodes=1",        "--ntasks=1",           "--nodelist=" + contact.host,
            "--overlap",  "--whole",           "--unbuffered",     "--kill-on-bad-exit=1", "--quiet",
            "--",         gatekeeper,          "--stdio"};
}

std::string gatekeeper_beside_mpirun() {
    std::array<char, 4096> self{};
    const ssize_t n = ::readlink("/proc/self/exe", self.data(), self.size() - 1);
    if (n <= 0) return "strata-gatekeeper";
    std::string dir(self.data(), static_cast<std::size_t>(n));
    dir = dir.substr(0, dir.rfind('/'));
    for (const std::string& candidate : {dir + "/strata-gatekeeper", dir + "/../gatekeeper/strata-gatekeeper"})
        if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    return "strata-gatekeeper";
}

std::string channel_failure(const std::string& tool, const std::string& destination, const ChannelExit& how,
                            const std::string& stderr_tail, bool gatekeeper_ran) {
    if (gatekeeper_ran) {
        // Its log is not the reason: the tool's own words, if any, and how it ended.
        const std::string tool_said = last_lines(stderr_tail, true);
        const std::string ended = how.signal != 0 ? tool + " killed by signal " + std::to_string(how.signal)
                                                  : tool + " exit status " + std::to_string(how.status);
        return "lost the " + tool + " session to " + destination + " before its gatekeeper reported the subjob's end (" +
               ended + (tool_said == "no message" ? "" : ": " + tool_said) + ")";
    }
    const std::string said = last_lines(stderr_tail, false);
    if (how.signal != 0)
        return tool + " to " + destination + " was killed by signal " + std::to_string(how.signal) + " (" + said + ")";
    const int status = how.status;
    if (status == 255 && tool == "ssh") return "ssh to " + destination + " failed: " + said;
    if (status == 126 || status == 127)
        return "no Strata at " + destination + " (" + said +
               (tool == "ssh" ? "): put strata-gatekeeper on the login's PATH there, or name Strata's prefix there "
                                "with the subjob key 'strata'"
                              : "): strata-gatekeeper must be beside mpirun on a filesystem the nodes share, or on "
                                "their PATH");
    if (tool == "srun") return "srun to " + destination + " failed (exit status " + std::to_string(status) + "): " + said;
    return "the gatekeeper at " + destination + " ended (exit status " + std::to_string(status) + "): " + said;
}

base::Result<std::unique_ptr<StdioChannel>> StdioChannel::start(asio::io_context& io, const std::vector<std::string>& argv,
                                                            int& read_fd, int& write_fd,
                                                            std::function<void(const std::string&)> line) {
    int in[2] = {-1, -1};
    int out[2] = {-1, -1};
    int err[2] = {-1, -1};
    int report[2] = {-1, -1};  // the child's exec errno, or nothing once exec succeeded
    auto fail = [&](const char* what) {
        const int e = errno;
        for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1], report[0], report[1]})
            if (fd >= 0) ::close(fd);
        return base::Error{std::string(what) + ": " + std::strerror(e)};
    };
    if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0 ||
        ::pipe2(report, O_CLOEXEC) != 0)
        return fail("pipe");
    std::vector<char*> av;
    for (const std::string& a : argv) av.push_back(const_cast<char*>(a.c_str()));
    av.push_back(nullptr);
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) return fail("fork");
    if (pid == 0) {
        ::setpgid(0, 0);
        ::prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (::getppid() != parent) ::_exit(1);
        sigset_t none;
        sigemptyset(&none);
        ::sigprocmask(SIG_SETMASK, &none, nullptr);
        for (int sig = 1; sig < NSIG; ++sig) ::signal(sig, SIG_DFL);
        ::dup2(in[0], 0);
        ::dup2(out[1], 1);
        ::dup2(err[1], 2);
        ::execvp(av[0], av.data());
        const int e = errno;
        (void)!::write(report[1], &e, sizeof e);
        ::_exit(127);
    }
    for (int fd : {in[0], out[1], err[1], report[1]}) ::close(fd);
    int e = 0;
    ssize_t n;
    while ((n = ::read(report[0], &e, sizeof e)) < 0 && errno == EINTR) {
    }
    ::close(report[0]);
    if (n > 0) {
        for (int fd : {in[1], out[0], err[0]}) ::close(fd);
        int status = 0;
        while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        return base::Error{"cannot run '" + argv.front() + "': " + std::strerror(e) +
                           " (install OpenSSH's client, or name another with STRATA_SSH)"};
    }
    const int pid_fd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
    if (pid_fd < 0) {
        const int saved = errno;
        ::kill(pid, SIGKILL);
        int status = 0;
        while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        for (int fd : {in[1], out[0], err[0]}) ::close(fd);
        return base::Error{std::string("pidfd_open: ") + std::strerror(saved)};
    }
    read_fd = out[0];
    write_fd = in[1];
    std::unique_ptr<StdioChannel> c(new StdioChannel(io, pid, err[0], pid_fd));
    c->line_ = std::move(line);
    c->read_stderr();
    c->wait_exit();
    return c;
}

StdioChannel::StdioChannel(asio::io_context& io, pid_t pid, int err_fd, int pid_fd)
    : pid_(pid), err_(io, err_fd), pidfd_(io, pid_fd) {}

StdioChannel::~StdioChannel() {
    boost::system::error_code ignored;
    if (!reaped_) reap();
    pidfd_.close(ignored);
    if (!err_done_) stderr_drain();
    err_.close(ignored);
}

// The process has ended: what it wrote on stderr and nobody read yet (the
// site gatekeeper's last log lines, when the job's end came first on the
// protocol pipe) goes to the line handler. A descendant that kept the pipe
// open cannot hold this up for more than a moment.
void StdioChannel::stderr_drain() {
    const int fd = err_.native_handle();
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(200);
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
        pollfd p{fd, POLLIN, 0};
        const int r = ::poll(&p, 1, static_cast<int>(std::max<std::int64_t>(left.count(), 0)));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        const ssize_t n = ::read(fd, buf_.data(), buf_.size());
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (n <= 0) break;
        stderr_take(static_cast<std::size_t>(n));
    }
    if (!partial_.empty() && line_) line_(partial_);
    partial_.clear();
}

// Its pipes are closed: ssh ends the session on its own, and a moment later
// it is ended. The pidfd is readable once the process has exited, so the wait
// ends then, not at the next tick of a sleep.
void StdioChannel::reap() {
    const int pid_fd = pidfd_.native_handle();
    auto exited_within = [pid_fd](int ms) {
        const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
        for (;;) {
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
            pollfd p{pid_fd, POLLIN, 0};
            const int r = ::poll(&p, 1, static_cast<int>(std::max<std::int64_t>(left.count(), 0)));
            if (r > 0) return true;
            if (r == 0 || errno != EINTR) return false;
        }
    };
    if (!exited_within(1000)) {
        ::kill(pid_, SIGTERM);
        if (!exited_within(2000)) ::kill(pid_, SIGKILL);
    }
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
}

void StdioChannel::when_exited(std::function<void(const ChannelExit&)> exited) {
    exited_ = std::move(exited);
    maybe_exited();
}

void StdioChannel::read_stderr() {
    err_.async_read_some(asio::buffer(buf_), [this](const boost::system::error_code& ec, std::size_t n) {
        if (ec == asio::error::operation_aborted) return;
        if (ec) {
            if (!partial_.empty() && line_) line_(partial_);
            partial_.clear();
            err_done_ = true;
            return maybe_exited();
        }
        stderr_take(n);
        read_stderr();
    });
}

void StdioChannel::stderr_take(std::size_t n) {
    partial_.append(buf_.data(), n);
    tail_.append(buf_.data(), n);
    if (tail_.size() > kTailBytes) {
        const std::size_t cut = tail_.find('\n', tail_.size() - kTailBytes);
        tail_.erase(0, cut == std::string::npos ? tail_.size() - kTailBytes : cut + 1);
    }
    for (std::size_t nl; (nl = partial_.find('\n')) != std::string::npos;) {
        if (line_) line_(partial_.substr(0, nl));
        partial_.erase(0, nl + 1);
    }
}

void StdioChannel::wait_exit() {
    pidfd_.async_wait(asio::posix::stream_descriptor::wait_read, [this](const boost::system::error_code& ec) {
        if (ec == asio::error::operation_aborted) return;
        int status = 0;
        pid_t r;
        while ((r = ::waitpid(pid_, &status, WNOHANG)) < 0 && errno == EINTR) {
        }
        if (r != pid_) return wait_exit();
        reaped_ = true;
        exit_ = WIFSIGNALED(status) ? ChannelExit{0, WTERMSIG(status)} : ChannelExit{WEXITSTATUS(status), 0};
        maybe_exited();
    });
}

void StdioChannel::maybe_exited() {
    if (reaped_ && err_done_ && exited_) std::exchange(exited_, nullptr)(exit_);
}

}  // namespace strata::launcher
