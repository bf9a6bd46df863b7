#include "base/file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace strata::base {

std::optional<std::string> file_read(const std::string& path, const std::string& what, std::string& error) {
    auto fail = [&](int err) {
        error = "cannot read " + what + " '" + path + "': " + std::strerror(err);
        return std::nullopt;
    };
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return fail(errno);
    std::string text;
    char buf[8192];
    for (;;) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            const int err = errno;  // e.g. EISDIR
            ::close(fd);
            return fail(err);
        }
        if (n == 0) break;
        text.append(buf, static_cast<std::size_t>(n));
    }
    ::close(fd);
    return text;
}

}  // namespace strata::base
