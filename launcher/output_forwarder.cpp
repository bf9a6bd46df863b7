#include "launcher/output_forwarder.hpp"

#include <poll.h>
#include <unistd.h>

#include <cerrno>

namespace strata::launcher {

OutputForwarder::OutputForwarder(bool label, Sink sink) : label_(label), sink_(std::move(sink)) {}

void OutputForwarder::append_prefix(int rank, std::string& out) const {
    if (!label_) return;
    out += '[';
    out += std::to_string(rank);
    out += "] ";
}

bool OutputForwarder::write(int rank, adapters::Stream stream, std::string_view bytes) {
    Line& line = open_[{rank, stream}];
    // Collect every complete line of this chunk into one write.
    std::string out;
    std::size_t begin = 0;
    for (;;) {
        const std::size_t nl = bytes.find('\n', begin);
        if (nl == std::string_view::npos) break;
        if (!line.continued) append_prefix(rank, out);
        out += line.text;
        out.append(bytes.substr(begin, nl + 1 - begin));
        line.text.clear();
        line.continued = false;
        begin = nl + 1;
    }
    line.text.append(bytes.substr(begin));
    if (line.text.size() >= kMaxLine) {
        if (!line.continued) append_prefix(rank, out);
        out += line.text;
        line.text.clear();
        line.continued = true;
    }
    return out.empty() || sink_(stream, out);
}

bool OutputForwarder::close(int rank, adapters::Stream stream) {
    auto it = open_.find({rank, stream});
    if (it == open_.end()) return true;
    std::string out;
    if (!it->second.text.empty() || it->second.continued) {
        if (!it->second.continued) append_prefix(rank, out);
        out += it->second.text;
        out += '\n';
    }
    open_.erase(it);
    return out.empty() || sink_(stream, out);
}

bool OutputForwarder::close_all() {
    bool ok = true;
    while (!open_.empty()) {
        const auto key = open_.begin()->first;
        ok = close(key.first, key.second) && ok;
    }
    return ok;
}

OutputForwarder::Sink OutputForwarder::fd_sink() {
    return [](adapters::Stream stream, std::string_view bytes) {
        const int fd = stream == adapters::Stream::out ? 1 : 2;
        while (!bytes.empty()) {
            const ssize_t n = ::write(fd, bytes.data(), bytes.size());
            if (n < 0) {
                if (errno == EINTR) continue;
                // mpirun's stdout may be non-blocking (shared with another process).
                if (errno == EAGAIN || errno == EWOULDBLOCK) {
                    pollfd p{fd, POLLOUT, 0};
                    ::poll(&p, 1, -1);
                    continue;
                }
                return false;
            }
            bytes.remove_prefix(static_cast<std::size_t>(n));
        }
        return true;
    };
}

}  // namespace strata::launcher
