// Death tests: for conditions that end the process by design (an invariant
// of collectives/invariant.hpp), run the code in a child process and report
// how the child ended and what it printed on stderr.
#pragma once

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <functional>
#include <string>

namespace strata::test {

struct Death {
    int signal = 0;      // the signal that ended the child; 0 when it exited
    std::string output;  // what it wrote to stderr
};

// Runs `fn` in a forked child (stderr captured, no core file) and waits for it.
inline Death death_of(const std::function<void()>& fn) {
    int fds[2];
    if (::pipe(fds) != 0) return {};
    const pid_t pid = ::fork();
    if (pid == 0) {
        const rlimit no_core{0, 0};
        ::setrlimit(RLIMIT_CORE, &no_core);
        ::dup2(fds[1], STDERR_FILENO);
        ::close(fds[0]);
        ::close(fds[1]);
        fn();
        ::_exit(0);
    }
    ::close(fds[1]);
    Death d;
    char buf[512];
    for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) d.output.append(buf, static_cast<std::size_t>(n));
    ::close(fds[0]);
    int status = 0;
    if (pid > 0 && ::waitpid(pid, &status, 0) == pid && WIFSIGNALED(status)) d.signal = WTERMSIG(status);
    return d;
}

}  // namespace strata::test
