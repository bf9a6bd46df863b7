// Rank binding: which CPUs a process is bound to, chosen by the process
// itself in MPI_Init right after the startup barrier (the first moment it
// knows which ranks share its host, whatever started it: the fork adapter, a
// gatekeeper or Slurm), before any method connects.
//
// The setting is STRATA_BIND_TO (wireup/binding.hpp).
//
// The default rule (as Open MPI's for small jobs): bind each rank to a core
// when the ranks of the job on its host fit the cores this process may use
// (its allowed set: taskset, a Slurm cgroup); otherwise do not bind, since an
// oversubscribed host needs the scheduler free to move ranks. `core` and
// `socket` follow the same rule about oversubscription: more ranks on a host
// than allowed cores are never bound.
//
// Ranks take the allowed cores (or packages) round-robin by their index
// among the ranks of their host, in world-rank order; only allowed PUs are
// ever chosen. This part is pure (no hwloc): placement/placement.cpp reads the
// machine and applies the choice.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "base/result.hpp"
#include "base/wire.hpp"
#include "wireup/binding.hpp"
#include "wireup/protocol.hpp"
#include "wireup/topology.hpp"

namespace strata::placement {

using wireup::BindTo;
using wireup::BusinessCard;

// One core this process may use: its logical index, its package and NUMA node
// (hwloc logical indices, -1 when unknown or several) and its allowed PUs
// (operating-system indices, never empty).
struct CpuCore {
    int index = 0;
    int package = -1;
    int numa = -1;
    std::vector<int> pus;
};

// What binding_choose decided for one process.
struct BindChoice {
    bool bound = false;
    std::vector<int> pus;  // the PUs to bind to (OS indices), when bound
    int core = -1;         // the core's logical index, binding to a core
    int package = -1;      // the package (and NUMA node) that holds the binding, or -1
    int numa = -1;
    // For mpirun -v: "bound to core 1 (PU 1)", "bound to package 0 (PUs 0,1)",
    // "not bound: 4 ranks on 2 allowed cores", "not bound: bind-to none".
    std::string text;
    // Why binding failed (the process then runs unbound), for one warning.
    std::string failure;
};

// Whether `ranks` processes of one host are bound when each may use `cores`
// cores: the oversubscription rule above, in one place.
inline bool binding_fits(int ranks, int cores) { return cores > 0 && ranks <= cores; }

// The binding of the process with index `local` among the `ranks` processes
// of its host, with `allowed` its allowed cores in logical order.
BindChoice binding_choose(BindTo mode, const std::vector<CpuCore>& allowed, int ranks, int local);

// The places (package, NUMA node) a process would take, by its local index,
// if bound with `mode`: one per allowed core, or per allowed package with
// `socket`; none with `none`. What a card's Place publishes (bind_slots).
std::vector<std::pair<std::int32_t, std::int32_t>> binding_slots(BindTo mode, const std::vector<CpuCore>& allowed);

// This process's index among the cards of its host (same hostname), and their
// number.
struct LocalPosition {
    int index = 0;
    int count = 1;
};
LocalPosition local_position(const std::vector<BusinessCard>& cards, int rank);

// What a process publishes on its card under kPlacementEntry, with
// STRATA_TOPOLOGY_HWLOC=1 (placement/placement.hpp): the package and NUMA node
// (hwloc logical indices) that hold its CPU binding, or -1 (the binding spans
// several); and what the binding made after the startup barrier will be: how
// many cores the process may use and the (package, NUMA node) it takes by its
// index among its host's ranks, empty when it will not bind. Every process
// reads them to key the topology by the binding (cards_bind).
struct Place {
    std::int32_t package = -1;
    std::int32_t numa = -1;
    std::int32_t bind_cores = 0;
    std::vector<std::pair<std::int32_t, std::int32_t>> bind_slots;
};
constexpr auto wire_fields(std::type_identity<Place>) {
    namespace w = base::wire;
    return std::tuple{w::field("package", &Place::package), w::field("numa", &Place::numa),
                      w::field("bind_cores", &Place::bind_cores), w::field("bind_slots", &Place::bind_slots)};
}
inline constexpr std::string_view kPlacementEntry = "placement";

// After the Release: every card's package and NUMA node as its process's
// binding makes them (from its Place's bind_cores and bind_slots), so that
// every process builds the same topology from the binding without another
// exchange; cards whose process is not bound keep what they say. Then the
// places the topology keys its package and NUMA node levels by (one per card).
// Fails naming the rank of a card whose placement entry is malformed.
base::Result<std::vector<wireup::CpuPlace>> cards_bind(std::vector<BusinessCard>& cards);

// The places of cards already bound (another job's, MPI_Comm_accept's), one per card.
base::Result<std::vector<wireup::CpuPlace>> places_of(const std::vector<BusinessCard>& cards);

}  // namespace strata::placement
