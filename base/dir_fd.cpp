#include "base/dir_fd.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace strata::base {

namespace {

// Deeper trees than this are left alone (a hostile tree could otherwise
// exhaust descriptors or the stack); remove() then reports it.
constexpr int kMaxDepth = 128;

std::string errno_text(int e) { return std::strerror(e); }

// Takes the directory open as `dir` back from the account that may write it
// (an entry it adds while the directory is emptied would keep it from being
// removed); a mode change alone suffices when the process is not root.
bool take_back(int dir) {
    if (::geteuid() == 0 && ::fchown(dir, 0, 0) != 0) return false;
    return ::fchmod(dir, 0700) == 0;
}

// Empties the directory open as `dir`; false with errno set.
bool tree_clear(int dir, int depth) {
    if (depth > kMaxDepth) {
        errno = ELOOP;
        return false;
    }
    if (!take_back(dir)) return false;
    const int listing_fd = ::dup(dir);
    if (listing_fd < 0) return false;
    DIR* listing = ::fdopendir(listing_fd);
    if (listing == nullptr) {
        ::close(listing_fd);
        return false;
    }
    std::vector<std::string> names;
    errno = 0;
    while (const dirent* e = ::readdir(listing)) {
        const std::string n = e->d_name;
        if (n != "." && n != "..") names.push_back(n);
    }
    const int read_errno = errno;
    ::closedir(listing);
    if (read_errno != 0) {
        errno = read_errno;
        return false;
    }
    bool ok = true;
    for (const std::string& n : names) {
        if (::unlinkat(dir, n.c_str(), 0) == 0 || errno == ENOENT) continue;
        if (errno != EISDIR && errno != EPERM) {
            ok = false;
            continue;
        }
        UniqueFd sub(::openat(dir, n.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        if (!sub) {
            // Replaced by a non-directory meanwhile: that is unlinked, never followed.
            if ((errno == ENOTDIR || errno == ELOOP) && ::unlinkat(dir, n.c_str(), 0) == 0) continue;
            ok = ok && errno == ENOENT;
            continue;
        }
        if (!tree_clear(sub.get(), depth + 1)) {
            ok = false;
            continue;
        }
        if (::unlinkat(dir, n.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT) ok = false;
    }
    return ok;
}

// A file that is not read: absent (ENOENT: not there yet) or refused with
// why, for messages.
template <class T>
Result<std::optional<T>> unread(int err) {
    if (err == ENOENT) return std::optional<T>();
    return Error{err == ELOOP    ? "it is a symbolic link"
                 : err == EPERM  ? "it belongs to another account"
                 : err == EINVAL ? "it is not a regular file"
                                 : std::strerror(err)};
}

}  // namespace

Result<DirFd> DirFd::make(const std::string& parent, const std::string& prefix) {
    auto fail = [&](const std::string& why) { return Error{"cannot make a directory in '" + parent + "': " + why}; };
    DirFd d;
    d.parent_.reset(::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!d.parent_) return fail(errno_text(errno));
    struct stat ps;
    if (::fstat(d.parent_.get(), &ps) != 0) return fail(errno_text(errno));
    if (ps.st_uid != 0 && ps.st_uid != ::geteuid())
        return fail("it belongs to uid " + std::to_string(ps.st_uid) + ", who could replace what is made there");
    if ((ps.st_mode & (S_IWGRP | S_IWOTH)) != 0 && (ps.st_mode & S_ISVTX) == 0)
        return fail("other accounts can write it and it is not sticky (chmod +t or 0755)");
    std::string templ = parent + "/" + prefix + "XXXXXX";
    if (::mkdtemp(templ.data()) == nullptr) return fail(errno_text(errno));
    d.path_ = templ;
    d.name_ = templ.substr(templ.rfind('/') + 1);
    d.dir_.reset(::openat(d.parent_.get(), d.name_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    struct stat ds;
    if (!d.dir_ || ::fstat(d.dir_.get(), &ds) != 0 || ds.st_uid != ::geteuid() || (ds.st_mode & 0077) != 0)
        return fail("the new directory '" + d.path_ + "' was tampered with");
    return d;
}

Result<DirFd> DirFd::open(const std::string& parent, const std::string& name) {
    DirFd d;
    d.path_ = parent + "/" + name;
    d.name_ = name;
    if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos)
        return Error{"'" + name + "' is not a directory name"};
    d.parent_.reset(::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (d.parent_)
        d.dir_.reset(::openat(d.parent_.get(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (d.dir_) return d;
    if (errno == ENOENT) return DirFd();
    return Error{"cannot open the directory '" + d.path_ + "': " + errno_text(errno)};
}

Status DirFd::give(uid_t uid, gid_t gid) const {
    if (::fchown(dir_.get(), uid, gid) == 0) return {};
    return Error{"cannot give the directory '" + path_ + "' to uid " + std::to_string(uid) + ": " + errno_text(errno)};
}

Result<UniqueFd> DirFd::file_create(const std::string& name, mode_t mode) const {
    UniqueFd fd(::openat(dir_.get(), name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode));
    if (fd) return fd;
    return Error{"cannot create '" + path_ + "/" + name + "': " + errno_text(errno)};
}

Status DirFd::file_write(const std::string& name, const std::string& content, mode_t mode, uid_t uid, gid_t gid) const {
    Result<UniqueFd> fd = file_create(name, mode);
    if (!fd) return fd.failure();
    for (std::size_t done = 0; done < content.size();) {
        const ssize_t w = ::write(fd->get(), content.data() + done, content.size() - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return Error{"cannot write '" + path_ + "/" + name + "': " + errno_text(errno)};
        done += static_cast<std::size_t>(w);
    }
    if (::geteuid() == 0 && ::fchown(fd->get(), uid, gid) != 0)
        return Error{"cannot give '" + path_ + "/" + name + "' to uid " + std::to_string(uid) + ": " +
                     errno_text(errno)};
    return {};
}

Result<std::optional<UniqueFd>> DirFd::file_open_owned(const std::string& name, uid_t owner) const {
    UniqueFd where(::openat(dir_.get(), name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
    if (!where) return unread<UniqueFd>(errno);
    struct stat st;
    if (::fstat(where.get(), &st) != 0) return unread<UniqueFd>(errno);
    if (S_ISLNK(st.st_mode)) return unread<UniqueFd>(ELOOP);
    if (!S_ISREG(st.st_mode)) return unread<UniqueFd>(EINVAL);
    if (st.st_uid != owner) return unread<UniqueFd>(EPERM);
    // The O_PATH descriptor's own inode, whatever the name now points to.
    const std::string self = "/proc/self/fd/" + std::to_string(where.get());
    UniqueFd fd(::open(self.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
    if (!fd) return unread<UniqueFd>(errno);
    return std::optional<UniqueFd>(std::move(fd));
}

Result<std::optional<std::string>> DirFd::file_read_owned(const std::string& name, uid_t owner) const {
    Result<std::optional<UniqueFd>> fd = file_open_owned(name, owner);
    if (!fd) return fd.failure();
    if (!*fd) return std::optional<std::string>();
    std::string text;
    char buf[8192];
    for (;;) {
        const ssize_t n = ::read((*fd)->get(), buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return unread<std::string>(errno);
        if (n == 0) return std::optional<std::string>(std::move(text));
        text.append(buf, static_cast<std::size_t>(n));
    }
}

Status DirFd::remove() {
    if (!dir_) return {};
    if (!tree_clear(dir_.get(), 0)) return Error{"cannot remove '" + path_ + "': " + errno_text(errno)};
    // Its owner may have renamed it away (and put something else under its
    // name): emptied where it is, it is left there.
    struct stat mine;
    struct stat named;
    const bool still_here = ::fstat(dir_.get(), &mine) == 0 &&
                            ::fstatat(parent_.get(), name_.c_str(), &named, AT_SYMLINK_NOFOLLOW) == 0 &&
                            mine.st_dev == named.st_dev && mine.st_ino == named.st_ino;
    if (still_here && ::unlinkat(parent_.get(), name_.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT)
        return Error{"cannot remove '" + path_ + "': " + errno_text(errno)};
    dir_.reset();
    parent_.reset();
    return {};
}

}  // namespace strata::base
