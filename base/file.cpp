#include "base/file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>

namespace strata::base {

Result<std::string> file_read(const std::string& path, const std::string& what) {
    auto fail = [&](int err) { return Error{"cannot read " + what + " '" + path + "': " + std::strerror(err)}; };
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

Status lines_of_words(const std::string& text, const std::string& where, const LineFn& each) {
    std::istringstream in(text);
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
        std::istringstream split(line.substr(0, line.find('#')));
        std::vector<std::string> words;
        for (std::string w; split >> w;) words.push_back(w);
        if (words.empty()) continue;
        if (Status s = each(n, words); !s.ok()) {
            std::string prefix = where;
            prefix += ':';
            prefix += std::to_string(n);
            prefix += ": ";
            return std::move(s).failure().prefixed(prefix);
        }
    }
    return {};
}

}  // namespace strata::base
