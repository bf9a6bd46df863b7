#include "adapters/leftovers.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

#include "wireup/environment.hpp"

namespace strata::adapters {

int shm_leftovers_remove(pid_t pid, uid_t owner, const std::string& dir) {
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return 0;
    DIR* d = ::fdopendir(fd);
    if (d == nullptr) {
        ::close(fd);
        return 0;
    }
    const std::string prefix = wireup::shm_segment_prefix(pid);
    std::vector<std::string> names;
    while (const dirent* e = ::readdir(d)) {
        if (std::string(e->d_name).rfind(prefix, 0) == 0) names.emplace_back(e->d_name);
    }
    int removed = 0;
    for (const std::string& name : names) {
        struct stat st {};
        if (::fstatat(fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
        if (!S_ISREG(st.st_mode) || st.st_uid != owner) continue;
        if (::unlinkat(fd, name.c_str(), 0) == 0) ++removed;
    }
    ::closedir(d);  // closes fd too
    return removed;
}

void shm_leftovers_remove_as(pid_t pid, const RunAs& run_as, const std::string& dir) {
    const auto owner = static_cast<uid_t>(run_as.uid);
    if (::geteuid() != 0) {
        shm_leftovers_remove(pid, owner, dir);
        return;
    }
    std::vector<gid_t> groups(run_as.groups.begin(), run_as.groups.end());
    const pid_t child = ::fork();
    if (child == 0) {
        if (::setgroups(groups.size(), groups.data()) != 0 || ::setgid(run_as.gid) != 0 || ::setuid(run_as.uid) != 0)
            ::_exit(1);
        shm_leftovers_remove(pid, owner, dir);
        ::_exit(0);
    }
    if (child < 0) return;
    while (::waitpid(child, nullptr, 0) < 0 && errno == EINTR) {
    }
}

}  // namespace strata::adapters
