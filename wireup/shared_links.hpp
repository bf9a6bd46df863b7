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

private:
    struct alignas(64) Slot {
        std::atomic<std::uint64_t> free_ns;
    };
    SharedLinks(std::string name, Slot* slots, bool owner) : name_(std::move(name)), slots_(slots), owner_(owner) {}
    static base::Result<std::unique_ptr<SharedLinks>> open(const std::string& job_key, bool create);

    std::string name_;
    Slot* slots_;
    bool owner_;  // unlinks the name
};

}  // namespace strata::wireup
