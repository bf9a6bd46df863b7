// The emulated links' shared state (wireup/emulation.hpp): when each link is
// next free, for every process of the job at once.
//
// A real grid's processes share their links: everything a site sends to
// another crosses one wide-area path, everything a machine sends to the other
// machines of its site one network interface. So the TCP method's emulation
// keeps, per link, the time it is next free in a POSIX shared memory segment
// that mpirun creates for the job before anything starts and unlinks when the
// job ends, or sooner: once every process has checked in, each has attached
// (the TCP method attaches before it checks in), so mpirun unlinks the name
// at the startup barrier and a job whose mpirun is killed leaves nothing in
// /dev/shm. Every process reserves the link for each packet it sends. Links are numbered by the topology's colours (so every
// process numbers them alike): site s to site t is s * sites + t, machine m's
// interface is sites * sites + m. The segment's name derives from the job key
// (a hash; the key itself stays secret), mode 0600.
//
// Each link also keeps the premium bandwidth its processes reserved
// (MPIX_QOS, mpi.h): admit() adds a reservation only while the sum stays
// within the link's premium capacity, so two processes of a site reserving
// at once cannot both take the last of it; release() gives it back.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "base/result.hpp"

namespace strata::wireup {

class SharedLinks {
public:
    static constexpr std::size_t kLinks = 4096;

    // The segment of the job with `job_key`.
    static std::string name_for(const std::string& job_key);
    // mpirun: makes the segment (all links free); the object unlinks it when destroyed.
    static base::Result<std::unique_ptr<SharedLinks>> create(const std::string& job_key);
    // A process: maps the segment mpirun made.
    static base::Result<std::unique_ptr<SharedLinks>> attach(const std::string& job_key);
    ~SharedLinks();
    // mpirun, once every process has attached: removes the name (the mapped
    // table stays); nothing is left to remove at the end.
    void unlink_name();
    SharedLinks(const SharedLinks&) = delete;
    SharedLinks& operator=(const SharedLinks&) = delete;

    // Reserves link `link` for `ns` nanoseconds from `now` or from when it is
    // next free, whichever is later; returns when the reservation ends.
    std::uint64_t reserve(std::size_t link, std::uint64_t now, std::uint64_t ns);

    // Premium reservations on `link`, in bytes per second: adds `rate` when
    // the sum stays at most `capacity` (false: nothing changes); takes it
    // back; the sum now.
    bool admit(std::size_t link, std::uint64_t rate, std::uint64_t capacity);
    void release(std::size_t link, std::uint64_t rate);
    std::uint64_t reserved(std::size_t link) const {
        return slots_[link].reserved.load(std::memory_order_relaxed);
    }

private:
    struct alignas(64) Slot {
        std::atomic<std::uint64_t> free_ns;
        std::atomic<std::uint64_t> reserved;  // bytes per second
    };
    SharedLinks(std::string name, Slot* slots, bool owner) : name_(std::move(name)), slots_(slots), owner_(owner) {}
    static base::Result<std::unique_ptr<SharedLinks>> open(const std::string& job_key, bool create);

    std::string name_;
    Slot* slots_;
    bool owner_;  // unlinks the name
};

}  // namespace strata::wireup
