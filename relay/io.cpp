#include "relay/io.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace strata::relay {

void watch_set(int epfd, Watch& w, std::uint32_t events) {
    if (events == w.events || !w.fd) return;
    epoll_event ev{};
    ev.events = events;
    ev.data.u64 = w.key;
    if (events == 0) {
        epoll_ctl(epfd, EPOLL_CTL_DEL, w.fd.get(), nullptr);
    } else {
        epoll_ctl(epfd, w.events == 0 ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, w.fd.get(), &ev);
    }
    w.events = events;
}

Watch watch_take(int epfd, Watch& from, std::uint64_t key) {
    watch_set(epfd, from, 0);
    Watch w;
    w.fd = std::move(from.fd);
    w.key = key;
    return w;
}

void watch_close(int epfd, Watch& w) {
    watch_set(epfd, w, 0);
    w.fd.reset();
}

void ByteQueue::push(const std::uint8_t* data, std::size_t n) {
    if (n == 0) return;
    chunks_.emplace_back(data, data + n);
    size_ += n;
}

std::vector<std::uint8_t> ByteQueue::pop_chunk() {
    std::vector<std::uint8_t> chunk = std::move(chunks_.front());
    chunks_.pop_front();
    size_ -= chunk.size();
    head_ = 0;
    return chunk;
}

std::size_t ByteQueue::iovecs(iovec* out, std::size_t max) {
    std::size_t n = 0;
    for (auto it = chunks_.begin(); it != chunks_.end() && n < max; ++it, ++n) {
        const std::size_t skip = n == 0 ? head_ : 0;
        out[n].iov_base = it->data() + skip;
        out[n].iov_len = it->size() - skip;
    }
    return n;
}

void ByteQueue::drop(std::size_t n) {
    size_ -= n;
    while (n > 0) {
        const std::size_t left = chunks_.front().size() - head_;
        if (n < left) {
            head_ += n;
            return;
        }
        n -= left;
        chunks_.pop_front();
        head_ = 0;
    }
}

Got read_toward(int fd, std::vector<std::uint8_t>& got, std::size_t need) {
    std::uint8_t buf[128];
    while (got.size() < need) {
        const ssize_t n = ::recv(fd, buf, std::min(need - got.size(), sizeof buf), 0);
        if (n > 0) {
            got.insert(got.end(), buf, buf + n);
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return Got::again;
        return Got::closed;
    }
    return Got::whole;
}

bool send_small(int fd, const void* data, std::size_t n) {
    return ::send(fd, data, n, MSG_NOSIGNAL) == static_cast<ssize_t>(n);
}

void socket_tune(int fd) {
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

int socket_open() {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd >= 0) socket_tune(fd);
    return fd;
}

std::string errno_text(int e) { return std::strerror(e); }

int socket_error(int fd) {
    int e = 0;
    socklen_t len = sizeof e;
    if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &len) != 0) return errno;
    return e;
}

}  // namespace strata::relay
