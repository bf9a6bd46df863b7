// The environment contract between mpirun (through any scheduler adapter) and
// the processes it starts: the only names both sides read or write. Declared
// once here; the launcher sets them, wireup::Client reads them.
#pragma once

#include <string>

namespace strata::wireup {

// STRATA_WIREUP's value for processes that reach mpirun at `address` (the
// address their side sees mpirun's connection come from), keeping the port
// of `listener` ("host:port").
inline std::string wireup_at(const std::string& address, const std::string& listener) {
    const std::size_t colon = listener.rfind(':');
    const std::string port = colon == std::string::npos ? listener : listener.substr(colon + 1);
    const bool v6 = address.find(':') != std::string::npos;
    return (v6 ? "[" + address + "]" : address) + ":" + port;
}

// The shared-memory segments (under /dev/shm) a process of the job makes
// (devices/shm) are named with this prefix of its pid. A process killed
// before its local peers attached leaves its segment behind: whoever reaps a
// process removes what it left under that prefix (adapters/leftovers.hpp).
inline std::string shm_segment_prefix(long pid) {
    std::string prefix = "strata-";  // appended: GCC 12 at -O3 warns falsely (-Wrestrict) on "..." + a temporary
    prefix += std::to_string(pid);
    prefix += '-';
    return prefix;
}

}  // namespace strata::wireup

namespace strata::wireup::env {

// host:port of mpirun's control listener (the co-allocator). Without it the
// MPI library runs as a singleton (size 1).
inline constexpr const char* kWireup = "STRATA_WIREUP";
// The process's rank in MPI_COMM_WORLD, and the size of MPI_COMM_WORLD.
inline constexpr const char* kRank = "STRATA_RANK";
inline constexpr const char* kSize = "STRATA_SIZE";
// The per-job key (hex), proving membership of this job (security/challenge.hpp).
inline constexpr const char* kJobKey = "STRATA_JOB_KEY";
// The index of the subjob the process belongs to.
inline constexpr const char* kSubjob = "STRATA_SUBJOB";
// Set only at a private site (a subjob with `network: private`): the
// endpoint "a.b.c.d:port" of the site's relay, which its gatekeeper started
// (relay/protocol.hpp). The process publishes it on its card.
inline constexpr const char* kRelay = "STRATA_RELAY";

}  // namespace strata::wireup::env
