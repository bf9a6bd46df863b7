#include "wireup/placement.hpp"

#include <hwloc.h>
#include <unistd.h>

#include <cstdio>
#include <memory>

#include "base/knob.hpp"

namespace strata::wireup {

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

base::Status hwloc_fill(BusinessCard& card) {
    hwloc_topology_t raw = nullptr;
    if (hwloc_topology_init(&raw) != 0) return base::Error{"STRATA_TOPOLOGY_HWLOC: hwloc cannot start"};
    std::unique_ptr<hwloc_topology, TopologyFree> topo(raw);
    std::unique_ptr<hwloc_bitmap_s, BitmapFree> binding(hwloc_bitmap_alloc());
    if (hwloc_topology_load(topo.get()) != 0 || binding == nullptr ||
        hwloc_get_cpubind(topo.get(), binding.get(), HWLOC_CPUBIND_PROCESS) != 0 ||
        hwloc_bitmap_iszero(binding.get()) != 0) {
        return base::Error{
            "STRATA_TOPOLOGY_HWLOC: hwloc cannot read this host's topology or the process's CPU binding"};
    }
    card.package = holder(topo.get(), HWLOC_OBJ_PACKAGE, binding.get());
    card.numa = card.package < 0 ? -1 : holder(topo.get(), HWLOC_OBJ_NUMANODE, binding.get());
    return {};
}

}  // namespace

base::Status placement_fill(BusinessCard& card, int subjob) {
    card.hostname = hostname_get();
    card.host = host_identity(card.hostname);
    card.vendor = vendor_domain.get().empty() ? "subjob-" + std::to_string(subjob) : vendor_domain.get();
    if (topology_hwloc.get() == 0) return {};
    return hwloc_fill(card);
}

}  // namespace strata::wireup
