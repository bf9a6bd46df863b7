// Privileged file work in a directory that another account can write.
//
// A gatekeeper running as root keeps per-job directories that belong to the
// mapped account (the job directory, the slurm adapter's work directory).
// Any path-based call there can be redirected by that account: a symlink or
// hard link planted under the name root is about to use turns root's
// create, write, chown, read or remove into one on a file of the attacker's
// choosing. DirFd makes that impossible by construction:
// - the directory is made by this process (mkdtemp: mode 0700, owned by it)
//   in a parent that only its owner can rename entries of, and opened once
//   (O_DIRECTORY | O_NOFOLLOW); after that it is reached only through the
//   descriptor, so renaming or replacing its path changes nothing here;
// - files are created with O_CREAT | O_EXCL | O_NOFOLLOW (a planted name
//   makes the creation fail instead of being followed) and given away with
//   fchown on the new descriptor;
// - files are read only when they are regular files owned by the account
//   expected to write them: that is checked with fstat on an O_PATH,
//   O_NOFOLLOW descriptor, which is then reopened for reading through
//   /proc/self/fd, so no symlink, FIFO, device or hard link to a file of
//   another owner is ever opened;
// - removal walks the tree with openat(O_DIRECTORY | O_NOFOLLOW) and
//   unlinkat relative to descriptors it holds, so it never leaves the tree
//   (a symlink is removed, never followed); each directory is first taken
//   back (fchown to root, fchmod 0700 through its descriptor) so that the
//   account cannot keep adding entries while it is emptied.
// None of it blocks for long: the calls are local file-system calls.
#pragma once

#include "base/result.hpp"
#include "base/unique_fd.hpp"

#include <sys/types.h>

#include <optional>
#include <string>

namespace strata::base {

class DirFd {
public:
    // Makes PARENT/PREFIXxxxxxx. PARENT must be a directory in which no other
    // account can rename or remove this process's entries: owned by root or
    // by this process, and writable by others only with the sticky bit.
    // Fails with "cannot make a directory in 'PARENT': ...".
    static Result<DirFd> make(const std::string& parent, const std::string& prefix);

    // Opens PARENT/NAME, an existing directory (never through a link), to
    // remove what an earlier run made there. A DirFd that is not open when
    // it is gone already (ENOENT).
    static Result<DirFd> open(const std::string& parent, const std::string& name);

    DirFd() = default;  // not open: reads fail with EBADF, remove() does nothing
    DirFd(DirFd&&) noexcept = default;
    DirFd& operator=(DirFd&&) noexcept = default;
    ~DirFd() = default;  // closes; removing is explicit (remove())

    const std::string& path() const { return path_; }
    bool is_open() const { return static_cast<bool>(dir_); }

    // Gives the directory itself to uid:gid (fchown).
    Status give(uid_t uid, gid_t gid) const;

    // Creates NAME (mode `mode`), which must not exist; the descriptor is
    // open for writing.
    Result<UniqueFd> file_create(const std::string& name, mode_t mode) const;

    // Creates NAME with `content`, mode `mode`, owned by uid:gid when this
    // process is root.
    Status file_write(const std::string& name, const std::string& content, mode_t mode, uid_t uid, gid_t gid) const;

    // Opens NAME for reading if it is a regular file owned by `owner`;
    // nullopt when it is not there (yet). Refused with why, for messages:
    // "it is a symbolic link", "it belongs to another account", "it is not a
    // regular file", or the strerror of the failed call.
    Result<std::optional<UniqueFd>> file_open_owned(const std::string& name, uid_t owner) const;
    // The whole of such a file; nullopt and failures as above.
    Result<std::optional<std::string>> file_read_owned(const std::string& name, uid_t owner) const;

    // Removes everything in the directory and the directory itself, then
    // closes it. Fails (e.g. a file landed while it ran: call again) naming
    // the directory. A directory its owner renamed away is emptied and left
    // where it was put.
    Status remove();

private:
    UniqueFd parent_;
    UniqueFd dir_;
    std::string name_;
    std::string path_;
};

}  // namespace strata::base
