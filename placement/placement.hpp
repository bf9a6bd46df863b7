// What a process knows of its own place before the startup barrier: the part
// of its business card that MPI_Init fills before the methods add addresses;
// and, right after the barrier, its CPU binding (placement/binding.hpp).
#pragma once

#include <string>
#include <vector>

#include "base/result.hpp"
#include "placement/binding.hpp"
#include "wireup/protocol.hpp"
#include "wireup/topology.hpp"

namespace strata::placement {

// hostname, host (kernel boot and network namespace), vendor (the vendor
// domain: STRATA_VENDOR_DOMAIN, else "subjob-N"), and with
// STRATA_TOPOLOGY_HWLOC=1 the card's Place (placement/binding.hpp), read with
// hwloc. Fails when hwloc was asked for and cannot say, or on a bad
// STRATA_BIND_TO.
base::Status placement_fill(BusinessCard& card, int subjob);

// The CPUs this process may run on (its affinity: taskset, a Slurm cgroup;
// the online CPUs when it cannot be read): what decides whether its host is
// oversubscribed.
int affinity_cpus();

// After the Release, before any method connects: binds this process (world
// rank `rank`) as STRATA_BIND_TO and the default rule say, choosing with
// binding_choose among the cores it may use (hwloc's allowed set and its
// current affinity), by its index among the cards of its host; then sets
// every card's package and NUMA node from the bindings (cards_bind) into
// `places`. A binding that fails is no error: the choice says why (`failure`)
// and the process runs unbound. Fails only on a bad STRATA_BIND_TO or a
// malformed placement entry.
base::Result<BindChoice> placement_bind(std::vector<BusinessCard>& cards, int rank,
                                        std::vector<wireup::CpuPlace>& places);

}  // namespace strata::placement
