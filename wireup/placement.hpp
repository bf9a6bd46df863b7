// What a process knows of its own place before the startup barrier: the part
// of its business card that MPI_Init fills before the methods add addresses.
#pragma once

#include <string>

#include "base/result.hpp"
#include "wireup/protocol.hpp"

namespace strata::wireup {

// hostname, host (kernel boot and network namespace), vendor (the vendor
// domain: STRATA_VENDOR_DOMAIN, else "subjob-N"), and with
// STRATA_TOPOLOGY_HWLOC=1 the package and NUMA node of the CPU binding, read
// with hwloc. Fails when hwloc was asked for and cannot say.
base::Status placement_fill(BusinessCard& card, int subjob);

}  // namespace strata::wireup
