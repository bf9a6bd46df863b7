// strata-slurm-task: the task wrapper of the slurm adapter (see
// adapters/slurm_adapter.hpp), one per Slurm task, started by srun.
//
//   strata-slurm-task <work dir> <first rank> <subjob> <directory> <path> <argv0> [args...]
//
// Files it writes in <work dir>, N being SLURM_PROCID: taskN.out and
// taskN.err (the program's stdout and stderr), taskN.pid once the program
// runs, taskN.status at the end ("exit <code>", "signal <number>" or
// "error <errno>"), each of the last two by write-then-rename.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "adapters/redirect.hpp"
#include "adapters/leftovers.hpp"
#include "base/numbers.hpp"
#include "wireup/environment.hpp"

namespace {

volatile sig_atomic_t g_child = 0;

// Slurm signals every process of the step, but a signal meant for the task
// (scancel --signal=USR1) must reach the program even if it only hit us.
void forward(int sig) {
    if (g_child > 0) ::kill(static_cast<pid_t>(g_child), sig);
}

constexpr int kForwarded[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGCONT};

bool file_publish(const std::string& path, const std::string& text) {
    const std::string tmp = path + ".tmp";
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return false;
    const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    ::close(fd);
    return ok && ::rename(tmp.c_str(), path.c_str()) == 0;
}

[[noreturn]] void child_fail(int status_fd) {
    const int e = errno;
    [[maybe_unused]] ssize_t w = ::write(status_fd, &e, sizeof e);
    ::_exit(127);
}

// The job's stdin, stdout and stderr files (STRATA_TASK_STDIN, ...; see
// adapters/redirect.hpp), taken out of the environment the program gets.
struct Files {
    std::string names[3];
};

Files files_take() {
    Files f;
    for (int fd = 0; fd < 3; ++fd) {
        const char* v = std::getenv(strata::adapters::kRedirectEnv[fd]);
        if (v != nullptr) f.names[fd] = v;
        ::unsetenv(strata::adapters::kRedirectEnv[fd]);
    }
    return f;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 7) {
        std::fprintf(stderr, "usage: %s <work dir> <first rank> <subjob> <directory> <path> <argv0> [args...]\n",
                     argv[0]);
        return 2;
    }
    const std::string work = argv[1];
    const char* procid = std::getenv("SLURM_PROCID");
    if (procid == nullptr) {
        std::fprintf(stderr, "strata-slurm-task: SLURM_PROCID is not set; run it through srun\n");
        return 2;
    }
    // Slurm and the adapter's batch script write these: anything but a number
    // would start the program as some other rank.
    const strata::base::ParsedInt<int> task = strata::base::parse_int<int>(procid, 0);
    if (!task) {
        std::fprintf(stderr, "strata-slurm-task: SLURM_PROCID='%s' is not a task number (0 or more)\n", procid);
        return 2;
    }
    const strata::base::ParsedInt<int> first = strata::base::parse_int<int>(argv[2], 0);
    if (!first) {
        std::fprintf(stderr, "strata-slurm-task: the first rank '%s' is not a number (0 or more)\n", argv[2]);
        return 2;
    }
    const long rank = static_cast<long>(*first) + *task;
    ::setenv(strata::wireup::env::kRank, std::to_string(rank).c_str(), 1);
    ::setenv(strata::wireup::env::kSubjob, argv[3], 1);
    const char* dir = argv[4];
    const char* path = argv[5];
    const std::string prefix = work + "/task" + std::to_string(*task);
    const Files files = files_take();

    const int in_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    const int out_fd = ::open((prefix + ".out").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    const int err_fd = ::open((prefix + ".err").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int status_pipe[2];
    if (in_fd < 0 || out_fd < 0 || err_fd < 0 || ::pipe2(status_pipe, O_CLOEXEC) != 0) {
        const int e = errno;
        std::fprintf(stderr, "strata-slurm-task: cannot set up rank %ld in %s: %s\n", rank, work.c_str(),
                     std::strerror(e));
        file_publish(prefix + ".status", "error " + std::to_string(e) + "\n");
        return 127;
    }

    // Handlers are installed with every signal blocked, and the child unblocks
    // only after exec has reset them (a caught signal reverts to default on exec).
    sigset_t all;
    sigset_t old;
    sigfillset(&all);
    ::sigprocmask(SIG_SETMASK, &all, &old);
    for (int sig : kForwarded) {
        struct sigaction sa;
        std::memset(&sa, 0, sizeof sa);
        sa.sa_handler = forward;
        sa.sa_flags = SA_RESTART;
        ::sigaction(sig, &sa, nullptr);
    }
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::close(status_pipe[0]);
        for (int sig : kForwarded) ::signal(sig, SIG_DFL);
        ::sigprocmask(SIG_SETMASK, &old, nullptr);
        if (dir[0] != '\0' && ::chdir(dir) != 0) child_fail(status_pipe[1]);
        if (::dup2(in_fd, 0) < 0 || ::dup2(out_fd, 1) < 0 || ::dup2(err_fd, 2) < 0) child_fail(status_pipe[1]);
        // The batch script emptied the output files: every task appends.
        for (int fd = 0; fd < 3; ++fd)
            if (!files.names[fd].empty() && !strata::adapters::redirect(fd, files.names[fd].c_str(), false))
                child_fail(status_pipe[1]);
        ::execv(path, argv + 6);
        child_fail(status_pipe[1]);
    }
    const int fork_errno = errno;
    if (pid > 0) g_child = pid;
    ::sigprocmask(SIG_SETMASK, &old, nullptr);
    ::close(status_pipe[1]);
    ::close(in_fd);
    ::close(out_fd);
    ::close(err_fd);
    if (pid < 0) {
        file_publish(prefix + ".status", "error " + std::to_string(fork_errno) + "\n");
        return 127;
    }

    int child_errno = 0;
    ssize_t n = 0;
    do {
        n = ::read(status_pipe[0], &child_errno, sizeof child_errno);
    } while (n < 0 && errno == EINTR);
    ::close(status_pipe[0]);
    if (n <= 0) file_publish(prefix + ".pid", std::to_string(pid) + "\n");

    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    strata::adapters::shm_leftovers_remove(pid, ::getuid());
    if (n > 0) {
        file_publish(prefix + ".status", "error " + std::to_string(child_errno) + "\n");
        return 127;
    }
    if (WIFSIGNALED(status)) {
        file_publish(prefix + ".status", "signal " + std::to_string(WTERMSIG(status)) + "\n");
        return 128 + WTERMSIG(status);
    }
    file_publish(prefix + ".status", "exit " + std::to_string(WEXITSTATUS(status)) + "\n");
    return WEXITSTATUS(status);
}
