#include "gatekeeper/relay_spawn.hpp"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <algorithm>
#include <cstring>
#include <vector>

#include "base/keepalive.hpp"
#include "base/numbers.hpp"
#include "base/unique_fd.hpp"
#include "wireup/environment.hpp"

namespace strata::gatekeeper {

namespace {

constexpr int kStartMs = 5000;
constexpr int kStopMs = 1000;

// In the child between fork and exec: async-signal-safe calls only.
[[noreturn]] void relay_exec(int exe, int lifeline, int port_out, const adapters::RunAs* run_as,
                             const std::vector<gid_t>& groups, char* const* argv, char* const* envp) {
    if (run_as != nullptr &&
        (::setgroups(groups.size(), groups.data()) != 0 || ::setgid(run_as->gid) != 0 || ::setuid(run_as->uid) != 0))
        ::_exit(127);
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::signal(SIGPIPE, SIG_DFL);
    if (::dup2(lifeline, 0) < 0 || ::dup2(port_out, 1) < 0) ::_exit(127);
    ::close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
    ::execveat(exe, "", argv, envp, AT_EMPTY_PATH);
    ::_exit(127);
}

// The port line the relay writes once it listens; fails with what it said instead.
base::Result<int> port_read(int fd) {
    std::string got;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kStartMs);
    while (got.find('\n') == std::string::npos && got.size() < 16) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        pollfd p{fd, POLLIN, 0};
        if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) <= 0)
            return base::Error{"the relay did not say its port within 5 s"};
        // A byte at a time: what follows the line is the relay's reports.
        char c = 0;
        const ssize_t n = ::read(fd, &c, 1);
        if (n <= 0) return base::Error{"the relay exited before it listened (its log says why)"};
        got.push_back(c);
    }
    const std::size_t nl = got.find('\n');
    const std::string line = got.substr(0, nl);
    const base::ParsedInt<int> port = base::parse_int<int>(line, 1, 65535);
    if (nl == std::string::npos || !port) return base::Error{"the relay said '" + line + "' instead of its port"};
    return *port;
}

}  // namespace

base::Result<std::unique_ptr<RelayProcess>> RelayProcess::spawn(const std::string& address, const std::string& wireup,
                                                                 const std::string& hub, const std::string& job_key,
                                                                 const std::string& peer_timeout,
                                                                 const std::optional<adapters::RunAs>& run_as) {
    // This program, by descriptor: the account need not reach its path.
    base::UniqueFd exe(::open("/proc/self/exe", O_RDONLY | O_CLOEXEC));
    int life[2];
    int port[2];
    if (exe.get() < 0 || ::pipe2(life, O_CLOEXEC) != 0) return base::Error{"cannot start the relay: " + std::string(std::strerror(errno))};
    base::UniqueFd life_r(life[0]), life_w(life[1]);
    if (::pipe2(port, O_CLOEXEC) != 0) return base::Error{"cannot start the relay: " + std::string(std::strerror(errno))};
    base::UniqueFd port_r(port[0]), port_w(port[1]);
    std::string key_env = std::string(wireup::env::kJobKey) + "=" + job_key;
    std::vector<std::string> args{"strata-relay", "--relay", "--wireup", wireup};
    if (!hub.empty()) args.insert(args.end(), {"--hub", hub, "--advertise", address});
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::string timeout_env = std::string(base::peer_timeout_knob_name()) + "=" + peer_timeout;
    char* envp[] = {key_env.data(), peer_timeout.empty() ? nullptr : timeout_env.data(), nullptr};
    std::vector<gid_t> groups;
    if (run_as)
        for (unsigned g : run_as->groups) groups.push_back(static_cast<gid_t>(g));
    const pid_t pid = ::fork();
    if (pid < 0) return base::Error{"cannot start the relay: fork: " + std::string(std::strerror(errno))};
    if (pid == 0) relay_exec(exe.get(), life_r.get(), port_w.get(), run_as ? &*run_as : nullptr, groups, argv.data(), envp);
    std::unique_ptr<RelayProcess> relay(new RelayProcess);
    relay->pid_ = pid;
    relay->pidfd_ = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
    relay->lifeline_ = life_w.release();
    port_w.reset();
    const base::Result<int> listening = port_read(port_r.get());
    if (!listening) return listening.failure();  // the destructor ends the process
    relay->endpoint_ = address + ":" + std::to_string(*listening);
    ::fcntl(port_r.get(), F_SETFL, O_NONBLOCK);
    relay->reports_ = port_r.release();
    return relay;
}

std::string RelayProcess::reap() {
    int status = 0;
    pid_t got = -1;
    while ((got = ::waitpid(pid_, &status, 0)) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    if (got < 0) return "ended";
    if (WIFSIGNALED(status)) {
        const int sig = WTERMSIG(status);
        return "was killed by signal " + std::to_string(sig) + " (" + ::strsignal(sig) + ")";
    }
    return "exited with status " + std::to_string(WEXITSTATUS(status));
}

RelayProcess::~RelayProcess() {
    if (lifeline_ >= 0) ::close(lifeline_);
    if (pid_ > 0) {
        // The lifeline's end stops the relay; SIGTERM only if it has not
        // within a moment (it is stuck, or it never read its stdin).
        pollfd exited{pidfd_, POLLIN, 0};
        if (pidfd_ < 0 || ::poll(&exited, 1, kStopMs) <= 0) ::kill(pid_, SIGTERM);
        while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
        }
    }
    if (pidfd_ >= 0) ::close(pidfd_);
    if (reports_ >= 0) ::close(reports_);
}

std::vector<std::string> RelayProcess::reports_read() { return report_lines(reports_, partial_); }

std::vector<std::string> report_lines(int& fd, std::string& partial) {
    std::vector<std::string> lines;
    char buf[512];
    ssize_t n = -1;
    // At most 16 KiB a call: a relay that keeps writing does not keep the gatekeeper here.
    for (int reads = 0; fd >= 0 && reads < 32 && (n = ::read(fd, buf, sizeof buf)) > 0; ++reads) {
        partial.append(buf, static_cast<std::size_t>(n));
        for (std::size_t end; (end = partial.find('\n')) != std::string::npos; partial.erase(0, end + 1))
            lines.push_back(partial.substr(0, std::min(end, kReportMax)));
        // A report is one short line; a relay that writes more is cut short.
        if (partial.size() > kReportMax) {
            lines.push_back(partial.substr(0, kReportMax));
            partial.clear();
        }
    }
    if (n == 0 && fd >= 0) {  // the relay is gone: nothing more will come
        ::close(fd);
        fd = -1;
    }
    return lines;
}

}  // namespace strata::gatekeeper
