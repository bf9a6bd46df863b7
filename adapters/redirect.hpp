// Files that stand for a process's standard input, output and error (RSL's
// stdin, stdout and stderr; job::Command's stdin_file, stdout_file,
// stderr_file). They are opened in the child, after it has taken the job's
// account and changed to its working directory, so a relative name is the
// job's and nothing is opened with more rights than the job has: the fork
// adapter's child does it, and strata-slurm-task's for a Slurm task.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace strata::adapters {

// How the slurm adapter hands them to strata-slurm-task (in the order of the
// descriptors 0, 1, 2); the task removes them before it runs the program.
inline constexpr const char* kRedirectEnv[3] = {"STRATA_TASK_STDIN", "STRATA_TASK_STDOUT", "STRATA_TASK_STDERR"};
// For messages, in the same order.
inline constexpr const char* kRedirectNames[3] = {"stdin", "stdout", "stderr"};

// Makes descriptor `fd` (0, 1 or 2) the file `path`: read from its start for
// 0; appended to for 1 and 2, made empty first when `empty` (the subjob's
// first process), created if missing. Async-signal-safe: it runs between fork
// and exec. False, with errno set, when it cannot.
inline bool redirect(int fd, const char* path, bool empty) {
    const int flags = fd == 0 ? O_RDONLY : O_WRONLY | O_CREAT | O_APPEND | (empty ? O_TRUNC : 0);
    const int file = ::open(path, flags | O_CLOEXEC | O_NOCTTY, 0666);
    if (file < 0) return false;
    if (file == fd) return ::fcntl(fd, F_SETFD, 0) == 0;
    const bool ok = ::dup2(file, fd) >= 0;
    const int e = errno;
    ::close(file);
    errno = e;
    return ok;
}

}  // namespace strata::adapters
