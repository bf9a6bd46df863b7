// The relay's socket plumbing: a socket's place in the epoll set, the bytes
// that wait in order, and reading a fixed-size handshake message; the
// socket helpers are the ranks' side's too (dial.cpp).
#pragma once

#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "base/unique_fd.hpp"

namespace strata::relay {

// A socket and what the level-triggered epoll set waits for on it. A socket
// is in the set only while something is wanted from it: one that hung up
// while nothing is wanted would otherwise be reported at every wait.
struct Watch {
    base::UniqueFd fd;
    std::uint64_t key = 0;
    std::uint32_t events = 0;  // as registered; 0: not in the set
};
void watch_set(int epfd, Watch& w, std::uint32_t events);
// Takes the socket of `from` (leaving the set) under a new key.
Watch watch_take(int epfd, Watch& from, std::uint64_t key);
void watch_close(int epfd, Watch& w);

// Bytes waiting to leave, in order, kept as the chunks they came in (a chunk
// read from a rank becomes one DATA frame). size() counts bytes, and the
// chunks hold no spare capacity, so size() is what the queue costs.
class ByteQueue {
public:
    void push(const std::uint8_t* data, std::size_t n);
    std::size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    // The first chunk, whole (none of it may have left).
    std::vector<std::uint8_t> pop_chunk();
    // Up to `max` iovecs over the waiting bytes; how many.
    std::size_t iovecs(iovec* out, std::size_t max);
    // The first n bytes left.
    void drop(std::size_t n);

private:
    std::deque<std::vector<std::uint8_t>> chunks_;
    std::size_t head_ = 0;  // bytes of the first chunk that already left
    std::size_t size_ = 0;
};

enum class Got { again, closed, whole };
// Reads towards `need` bytes in `got` without reading past them.
Got read_toward(int fd, std::vector<std::uint8_t>& got, std::size_t need);
// A few bytes on a socket whose buffer is empty (a handshake message): a
// short write means the connection is broken.
bool send_small(int fd, const void* data, std::size_t n);
// A non-blocking IPv4 stream socket without Nagle's delay, or -1.
int socket_open();
void socket_tune(int fd);
std::string errno_text(int e);
// The pending error of a socket (SO_ERROR).
int socket_error(int fd);

}  // namespace strata::relay
