#include "placement/placement.hpp"

#include <hwloc.h>
#include <sched.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <utility>

#include "base/knob.hpp"

namespace strata::placement {

namespace {

const base::KnobString vendor_domain{
    "STRATA_VENDOR_DOMAIN", "",
    "name of the machine or cluster whose vendor fabric (the ofi method) this process shares; empty: its subjob"};

const base::KnobInt topology_hwloc{
    "STRATA_TOPOLOGY_HWLOC", 0,
    "1: add the processor package and NUMA node levels (read with hwloc) below the vendor level of the topology; "
    "a process whose CPU binding spans several has none"};

std::string hostname_get() {
    char buf[256] = {};
    if (gethostname(buf, sizeof buf - 1) != 0) return "localhost";
    return buf;
}

// Equal exactly for processes that can share memory and see each other as
// local: the same kernel boot and the same network namespace.
std::string host_identity(const std::string& hostname) {
    std::string boot;
    if (FILE* f = std::fopen("/proc/sys/kernel/random/boot_id", "r")) {
        char buf[64] = {};
        if (std::fgets(buf, sizeof buf, f) != nullptr) boot = buf;
        std::fclose(f);
    }
    while (!boot.empty() && (boot.back() == '\n' || boot.back() == ' ')) boot.pop_back();
    char ns[64] = {};
    const ssize_t n = readlink("/proc/self/ns/net", ns, sizeof ns - 1);
    if (boot.empty() || n <= 0) return hostname;  // no /proc: the host name is the best guess
    return boot + "/" + std::string(ns, static_cast<std::size_t>(n));
}

struct TopologyFree {
    void operator()(hwloc_topology* t) const { hwloc_topology_destroy(t); }
};
struct BitmapFree {
    void operator()(hwloc_bitmap_s* b) const { hwloc_bitmap_free(b); }
};
using TopologyPtr = std::unique_ptr<hwloc_topology, TopologyFree>;
using BitmapPtr = std::unique_ptr<hwloc_bitmap_s, BitmapFree>;

// The logical index of the object of `type` whose cpuset holds all of
// `binding`, or -1.
int holder(hwloc_topology_t topo, hwloc_obj_type_t type, hwloc_const_cpuset_t binding) {
    for (hwloc_obj_t o = hwloc_get_next_obj_by_type(topo, type, nullptr); o != nullptr;
         o = hwloc_get_next_obj_by_type(topo, type, o)) {
        if (o->cpuset != nullptr && hwloc_bitmap_isincluded(binding, o->cpuset) != 0)
            return static_cast<int>(o->logical_index);
    }
    return -1;
}

// This host as hwloc sees it, with the process's CPU binding (its affinity:
// taskset, a Slurm cgroup) as it was before MPI_Init bound anything.
struct Machine {
    TopologyPtr topo;
    BitmapPtr binding;
};

base::Result<Machine> machine_read(const char* who) {
    hwloc_topology_t raw = nullptr;
    if (hwloc_topology_init(&raw) != 0) return base::Error{std::string(who) + ": hwloc cannot start"};
    Machine m{TopologyPtr(raw), BitmapPtr(hwloc_bitmap_alloc())};
    if (hwloc_topology_load(m.topo.get()) != 0 || m.binding == nullptr ||
        hwloc_get_cpubind(m.topo.get(), m.binding.get(), HWLOC_CPUBIND_PROCESS) != 0 ||
        hwloc_bitmap_iszero(m.binding.get()) != 0) {
        return base::Error{std::string(who) +
                           ": hwloc cannot read this host's topology or the process's CPU binding"};
    }
    return m;
}

// The cores this process may use: each core (a PU where hwloc knows no cores)
// with the PUs of it that are both allowed (hwloc's allowed set) and in the
// process's affinity.
std::vector<CpuCore> cores_allowed(const Machine& m) {
    hwloc_topology_t topo = m.topo.get();
    BitmapPtr usable(hwloc_bitmap_alloc());
    BitmapPtr pus(hwloc_bitmap_alloc());
    std::vector<CpuCore> out;
    if (usable == nullptr || pus == nullptr) return out;
    hwloc_bitmap_and(usable.get(), m.binding.get(), hwloc_topology_get_allowed_cpuset(topo));
    const hwloc_obj_type_t type = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
    for (hwloc_obj_t o = hwloc_get_next_obj_by_type(topo, type, nullptr); o != nullptr;
         o = hwloc_get_next_obj_by_type(topo, type, o)) {
        if (o->cpuset == nullptr) continue;
        hwloc_bitmap_and(pus.get(), o->cpuset, usable.get());
        if (hwloc_bitmap_iszero(pus.get()) != 0) continue;
        CpuCore c;
        c.index = static_cast<int>(o->logical_index);
        c.package = holder(topo, HWLOC_OBJ_PACKAGE, pus.get());
        c.numa = holder(topo, HWLOC_OBJ_NUMANODE, pus.get());
        for (int pu = hwloc_bitmap_first(pus.get()); pu >= 0; pu = hwloc_bitmap_next(pus.get(), pu)) c.pus.push_back(pu);
        out.push_back(std::move(c));
    }
    return out;
}

base::Status hwloc_fill(BusinessCard& card, BindTo mode) {
    base::Result<Machine> m = machine_read(topology_hwloc.name());
    if (!m) return m.failure();
    Place p;
    p.package = holder(m->topo.get(), HWLOC_OBJ_PACKAGE, m->binding.get());
    p.numa = p.package < 0 ? -1 : holder(m->topo.get(), HWLOC_OBJ_NUMANODE, m->binding.get());
    const std::vector<CpuCore> cores = cores_allowed(*m);
    p.bind_cores = static_cast<std::int32_t>(cores.size());
    p.bind_slots = binding_slots(mode, cores);
    wireup::publish_message(card, kPlacementEntry, p);
    return {};
}

// Binds the process to `pus`; fails saying why.
base::Status cpus_bind(const Machine& m, const std::vector<int>& pus) {
    BitmapPtr set(hwloc_bitmap_alloc());
    if (set == nullptr) return base::Error{"out of memory"};
    for (int pu : pus) hwloc_bitmap_set(set.get(), static_cast<unsigned>(pu));
    if (hwloc_set_cpubind(m.topo.get(), set.get(), HWLOC_CPUBIND_PROCESS) != 0) return base::Error{std::strerror(errno)};
    return {};
}

}  // namespace

base::Status placement_fill(BusinessCard& card, int subjob) {
    card.hostname = hostname_get();
    card.host = host_identity(card.hostname);
    card.vendor = vendor_domain.get().empty() ? "subjob-" + std::to_string(subjob) : vendor_domain.get();
    const base::Result<BindTo> mode = wireup::bind_to_setting();
    if (!mode) return mode.failure();
    if (topology_hwloc.get() == 0) return {};
    return hwloc_fill(card, *mode);
}

int affinity_cpus() {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) return CPU_COUNT(&set);
    return static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
}

base::Result<BindChoice> placement_bind(std::vector<BusinessCard>& cards, int rank,
                                        std::vector<wireup::CpuPlace>& places) {
    const base::Result<BindTo> mode = wireup::bind_to_setting();
    if (!mode) return mode.failure();
    const LocalPosition at = local_position(cards, rank);
    base::Result<std::vector<wireup::CpuPlace>> bound = cards_bind(cards);
    if (!bound) return bound.failure();
    places = std::move(*bound);
    if (*mode == BindTo::none) return binding_choose(*mode, {}, at.count, at.index);
    // More ranks here than CPUs this process may run on: never bound, and no
    // need to read the machine with hwloc (milliseconds per process).
    if (const int cpus = affinity_cpus(); cpus > 0 && !binding_fits(at.count, cpus)) {
        BindChoice c;
        c.text = "not bound: " + std::to_string(at.count) + " ranks on " + std::to_string(cpus) + " allowed CPU" +
                 (cpus == 1 ? "" : "s");
        return c;
    }
    base::Result<Machine> m = machine_read("cannot bind");
    BindChoice choice;
    if (m) choice = binding_choose(*mode, cores_allowed(*m), at.count, at.index);
    if (!m) {
        choice.failure = m.error();
    } else if (choice.bound) {
        // "bound to core 1 (PU 1)" -> "cannot bind to core 1 (PU 1): ..."
        if (base::Status bound = cpus_bind(*m, choice.pus); !bound)
            choice.failure = "cannot bind" + choice.text.substr(std::strlen("bound")) +
                             ": hwloc_set_cpubind: " + bound.error();
    }
    if (!choice.failure.empty()) {
        choice.bound = false;
        choice.text = "not bound: " + choice.failure;
    }
    return choice;
}

}  // namespace strata::wireup
