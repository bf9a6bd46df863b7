#include "base/file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>

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

bool lines_of_words(const std::string& text, const std::string& where, const LineFn& each, std::string& error) {
    std::istringstream in(text);
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
        std::istringstream split(line.substr(0, line.find('#')));
        std::vector<std::string> words;
        for (std::string w; split >> w;) words.push_back(w);
        if (words.empty()) continue;
        std::string why;
        if (!each(n, words, why)) {
            error = where + ":" + std::to_string(n) + ": " + why;
            return false;
        }
    }
    return true;
}

}  // namespace strata::base
