#include "wireup/shared_links.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace strata::wireup {

namespace {

constexpr std::size_t kBytes = SharedLinks::kLinks * 64;

}  // namespace

std::string SharedLinks::name_for(const std::string& job_key) {
    std::uint64_t h = 14695981039346656037ull;  // FNV-1a
    for (unsigned char c : job_key) h = (h ^ c) * 1099511628211ull;
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
    return std::string("/strata-links-") + text;
}

base::Result<std::unique_ptr<SharedLinks>> SharedLinks::open(const std::string& job_key, bool create) {
    const std::string name = name_for(job_key);
    const int fd = ::shm_open(name.c_str(), O_RDWR | O_CLOEXEC | (create ? O_CREAT | O_EXCL : 0), 0600);
    if (fd < 0) {
        return base::Error{"cannot " + std::string(create ? "create" : "open") + " the emulated links' shared table " +
                           name + ": " + std::strerror(errno) +
                           (create ? "" : " (mpirun makes it for a job with emulation)")};
    }
    if (create && ::ftruncate(fd, static_cast<off_t>(kBytes)) != 0) {
        base::Error failed{"cannot size the emulated links' shared table " + name + ": " + std::strerror(errno)};
        ::close(fd);
        ::shm_unlink(name.c_str());
        return failed;
    }
    void* at = ::mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    const int mmap_errno = errno;
    ::close(fd);
    if (at == MAP_FAILED) {
        base::Error failed{"cannot map the emulated links' shared table " + name + ": " + std::strerror(mmap_errno)};
        if (create) ::shm_unlink(name.c_str());
        return failed;
    }
    // A new segment is zeros: every link free since the clock's origin.
    return std::unique_ptr<SharedLinks>(new SharedLinks(name, static_cast<Slot*>(at), create));
}

base::Result<std::unique_ptr<SharedLinks>> SharedLinks::create(const std::string& job_key) {
    return open(job_key, true);
}

base::Result<std::unique_ptr<SharedLinks>> SharedLinks::attach(const std::string& job_key) {
    return open(job_key, false);
}

SharedLinks::~SharedLinks() {
    ::munmap(slots_, kBytes);
    unlink_name();
}

void SharedLinks::unlink_name() {
    if (owner_) ::shm_unlink(name_.c_str());
    owner_ = false;
}

std::uint64_t SharedLinks::reserve(std::size_t link, std::uint64_t now, std::uint64_t ns) {
    std::atomic<std::uint64_t>& free = slots_[link].free_ns;
    std::uint64_t seen = free.load(std::memory_order_relaxed);
    for (;;) {
        const std::uint64_t end = std::max(seen, now) + ns;
        if (free.compare_exchange_weak(seen, end, std::memory_order_relaxed)) return end;
    }
}

bool SharedLinks::admit(std::size_t link, std::uint64_t rate, std::uint64_t capacity) {
    std::atomic<std::uint64_t>& sum = slots_[link].reserved;
    std::uint64_t seen = sum.load(std::memory_order_relaxed);
    for (;;) {
        if (rate > capacity || seen > capacity - rate) return false;
        if (sum.compare_exchange_weak(seen, seen + rate, std::memory_order_relaxed)) return true;
    }
}

void SharedLinks::release(std::size_t link, std::uint64_t rate) {
    std::atomic<std::uint64_t>& sum = slots_[link].reserved;
    std::uint64_t seen = sum.load(std::memory_order_relaxed);
    while (!sum.compare_exchange_weak(seen, seen >= rate ? seen - rate : 0, std::memory_order_relaxed)) {
    }
}

}  // namespace strata::wireup
