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

}  // namespace

std::optional<DirFd> DirFd::make(const std::string& parent, const std::string& prefix, std::string& error) {
    auto fail = [&](const std::string& why) {
        error = "cannot make a directory in '" + parent + "': " + why;
        return std::nullopt;
    };
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

std::optional<DirFd> DirFd::open(const std::string& parent, const std::string& name, std::string& error, int* err) {
    DirFd d;
    d.path_ = parent + "/" + name;
    d.name_ = name;
    if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos) {
        if (err != nullptr) *err = EINVAL;
        error = "'" + name + "' is not a directory name";
        return std::nullopt;
    }
    d.parent_.reset(::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (d.parent_)
        d.dir_.reset(::openat(d.parent_.get(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (d.dir_) return d;
    if (err != nullptr) *err = errno;
    error = "cannot open the directory '" + d.path_ + "': " + errno_text(errno);
    return std::nullopt;
}

bool DirFd::give(uid_t uid, gid_t gid, std::string& error) const {
    if (::fchown(dir_.get(), uid, gid) == 0) return true;
    error = "cannot give the directory '" + path_ + "' to uid " + std::to_string(uid) + ": " + errno_text(errno);
    return false;
}

std::optional<UniqueFd> DirFd::file_create(const std::string& name, mode_t mode, std::string& error) const {
    UniqueFd fd(::openat(dir_.get(), name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode));
    if (fd) return fd;
    error = "cannot create '" + path_ + "/" + name + "': " + errno_text(errno);
    return std::nullopt;
}

bool DirFd::file_write(const std::string& name, const std::string& content, mode_t mode, uid_t uid, gid_t gid,
                       std::string& error) const {
    std::optional<UniqueFd> fd = file_create(name, mode, error);
    if (!fd) return false;
    for (std::size_t done = 0; done < content.size();) {
        const ssize_t w = ::write(fd->get(), content.data() + done, content.size() - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            error = "cannot write '" + path_ + "/" + name + "': " + errno_text(errno);
            return false;
        }
        done += static_cast<std::size_t>(w);
    }
    if (::geteuid() == 0 && ::fchown(fd->get(), uid, gid) != 0) {
        error = "cannot give '" + path_ + "/" + name + "' to uid " + std::to_string(uid) + ": " + errno_text(errno);
        return false;
    }
    return true;
}

std::optional<UniqueFd> DirFd::file_open_owned(const std::string& name, uid_t owner, int& err) const {
    UniqueFd where(::openat(dir_.get(), name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
    if (!where) {
        err = errno;
        return std::nullopt;
    }
    struct stat st;
    if (::fstat(where.get(), &st) != 0) {
        err = errno;
        return std::nullopt;
    }
    if (S_ISLNK(st.st_mode)) {
        err = ELOOP;
        return std::nullopt;
    }
    if (!S_ISREG(st.st_mode)) {
        err = EINVAL;
        return std::nullopt;
    }
    if (st.st_uid != owner) {
        err = EPERM;
        return std::nullopt;
    }
    // The O_PATH descriptor's own inode, whatever the name now points to.
    const std::string self = "/proc/self/fd/" + std::to_string(where.get());
    UniqueFd fd(::open(self.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
    if (!fd) {
        err = errno;
        return std::nullopt;
    }
    return fd;
}

std::optional<std::string> DirFd::file_read_owned(const std::string& name, uid_t owner, int* err) const {
    int e = 0;
    std::optional<UniqueFd> fd = file_open_owned(name, owner, e);
    if (err != nullptr) *err = e;
    if (!fd) return std::nullopt;
    std::string text;
    char buf[8192];
    for (;;) {
        const ssize_t n = ::read(fd->get(), buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            if (err != nullptr) *err = errno;
            return std::nullopt;
        }
        if (n == 0) return text;
        text.append(buf, static_cast<std::size_t>(n));
    }
}

bool DirFd::remove(std::string& error) {
    if (!dir_) return true;
    if (!tree_clear(dir_.get(), 0)) {
        error = "cannot remove '" + path_ + "': " + errno_text(errno);
        return false;
    }
    // Its owner may have renamed it away (and put something else under its
    // name): emptied where it is, it is left there.
    struct stat mine;
    struct stat named;
    const bool still_here = ::fstat(dir_.get(), &mine) == 0 &&
                            ::fstatat(parent_.get(), name_.c_str(), &named, AT_SYMLINK_NOFOLLOW) == 0 &&
                            mine.st_dev == named.st_dev && mine.st_ino == named.st_ino;
    if (still_here && ::unlinkat(parent_.get(), name_.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT) {
        error = "cannot remove '" + path_ + "': " + errno_text(errno);
        return false;
    }
    dir_.reset();
    parent_.reset();
    return true;
}

}  // namespace strata::base
