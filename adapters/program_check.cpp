#include "adapters/program_check.hpp"

#include "adapters/fork_adapter.hpp"

#include <fcntl.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

namespace strata::adapters {

namespace {

base::Result<ProgramCheck> program_check(const std::string& program, const std::string& dir,
                                         const std::string& path_env) {
    ProgramCheck c;
    c.directory = dir;
    if (!dir.empty()) {
        struct stat st;
        const int e = ::stat(dir.c_str(), &st) != 0       ? errno
                      : !S_ISDIR(st.st_mode)               ? ENOTDIR
                      : ::access(dir.c_str(), X_OK) != 0   ? errno
                                                           : 0;
        if (e != 0) return base::Error{"cannot change to directory '" + dir + "': " + std::strerror(e)};
    } else {
        // "Empty: mpirun's", which for a batch job must be said explicitly.
        std::error_code ec;
        c.directory = std::filesystem::current_path(ec).string();
    }
    base::Result<std::string> found = ForkAdapter::resolve_program(program, path_env);
    if (!found) return found.failure();
    c.path = std::move(*found);
    // A path with a slash is not searched, so the fork adapter learns of a
    // missing one from execve; here it must be known before submitting.
    if (program.find('/') != std::string::npos) {
        const std::string full = c.path.front() == '/' ? c.path : c.directory + "/" + c.path;
        struct stat st;
        const int e = ::stat(full.c_str(), &st) != 0      ? errno
                      : S_ISDIR(st.st_mode)               ? EACCES
                      : ::access(full.c_str(), X_OK) != 0 ? errno
                                                          : 0;
        if (e != 0) return base::Error{std::strerror(e)};
    }
    return c;
}

}  // namespace

base::Result<ProgramCheck> program_check_as(const std::optional<RunAs>& run_as, const std::string& program,
                                            const std::string& dir, const std::string& path_env) {
    if (!run_as || ::geteuid() != 0) return program_check(program, dir, path_env);
    auto fail = [](int e) {
        return base::Error{std::string("cannot check the program as the account: ") + std::strerror(e)};
    };
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return fail(errno);
    std::vector<gid_t> groups(run_as->groups.begin(), run_as->groups.end());
    const pid_t pid = ::fork();
    if (pid < 0) {
        const int e = errno;
        ::close(fds[0]);
        ::close(fds[1]);
        return fail(e);
    }
    if (pid == 0) {
        // The gatekeeper is single-threaded: the child may allocate.
        ::close(fds[0]);
        if (::setgroups(groups.size(), groups.data()) != 0 || ::setgid(run_as->gid) != 0 ||
            ::setuid(run_as->uid) != 0)
            ::_exit(1);
        const base::Result<ProgramCheck> c = program_check(program, dir, path_env);
        std::string out = c.error();
        out += '\0';
        if (c) {
            out += c->directory;
            out += '\0';
            out += c->path;
        } else {
            out += '\0';
        }
        for (std::size_t done = 0; done < out.size();) {
            const ssize_t w = ::write(fds[1], out.data() + done, out.size() - done);
            if (w <= 0) ::_exit(1);
            done += static_cast<std::size_t>(w);
        }
        ::_exit(0);
    }
    ::close(fds[1]);
    std::string out;
    std::array<char, 4096> buf{};
    for (;;) {
        const ssize_t n = ::read(fds[0], buf.data(), buf.size());
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        out.append(buf.data(), static_cast<std::size_t>(n));
    }
    ::close(fds[0]);
    const std::size_t a = out.find('\0');
    const std::size_t b = a == std::string::npos ? a : out.find('\0', a + 1);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || b == std::string::npos) return fail(ECHILD);
    if (a > 0) return base::Error{out.substr(0, a)};
    return ProgramCheck{out.substr(a + 1, b - a - 1), out.substr(b + 1)};
}

}  // namespace strata::adapters
