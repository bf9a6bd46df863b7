// The grid's extensions: per-level and per-method traffic counters (the
// topology attributes are in attr.cpp).
#include <string_view>
#include <algorithm>
#include <cstdio>

#include "base/knob.hpp"
#include "collectives/registry.hpp"
#include "mpi/errors.hpp"
#include "mpi/comms/grid.hpp"
#include "mpi/entry.hpp"
#include "mpi/runtime.hpp"

namespace strata::mpi {

namespace {

const base::KnobInt stats{
    "STRATA_STATS", 0,
    "1: every rank counts from MPI_Init and prints at MPI_Finalize the messages and bytes it sent per topology level "
    "and per method, what its methods report (TCP: the streams of its links), and how many "
    "calls of each collective chose each algorithm (and where a forced one did not fit)"};

void counts_out(const adi::Engine::Traffic& t, long long& messages, long long& bytes) {
    messages = static_cast<long long>(t.messages);
    bytes = static_cast<long long>(t.bytes);
}

}  // namespace

void traffic_setup(Runtime& r) {
    if (stats.get() != 0) r.engine->traffic_count_on();
}

void traffic_report(const Runtime& r) {
    if (stats.get() == 0) return;
    std::fprintf(stderr, "strata: rank %d: sent: %s\n", r.world_rank, r.engine->traffic_text().c_str());
    for (const std::string& line : r.engine->methods_report())
        std::fprintf(stderr, "strata: rank %d: %s\n", r.world_rank, line.c_str());
    for (const std::string& line : coll::RegistryBase::choices_text())
        std::fprintf(stderr, "strata: rank %d: collectives: %s\n", r.world_rank, line.c_str());
}

void topology_report(const wireup::Topology& t) {
    std::string out = "strata: topology (levels:";
    for (int l = 0; l < std::max(t.max_depth(), wireup::kVendor + 1); ++l)
        out += std::string(l == 0 ? " " : ", ") + std::to_string(l) + " " + t.level_text(l);
    out += "):\n";
    const std::string text = t.text();
    for (std::size_t at = 0; at < text.size();) {
        const std::size_t nl = text.find('\n', at);
        out += "strata:   " + text.substr(at, nl - at + 1);
        at = nl + 1;
    }
    std::fputs(out.c_str(), stderr);
}

static_assert(MPIX_TOPOLOGY_MAX_LEVELS == wireup::kLevels, "mpi.h's level count is the topology's");

namespace body {

int MPIX_Traffic_level(const Call& call, int level, long long& messages, long long& bytes) {
    if (level < 0 || level >= wireup::kLevels)
        return call.raise(MPI_ERR_ARG, "level " + std::to_string(level) + " is not a topology level (0 to " +
                                           std::to_string(wireup::kLevels - 1) + ")");
    rt().engine->traffic_count_on();
    counts_out(rt().engine->traffic_by_level()[static_cast<std::size_t>(level)], messages, bytes);
    return MPI_SUCCESS;
}

int MPIX_Traffic_method(const Call& call, const char* method, long long& messages, long long& bytes) {
    // "relay": what passed a private site's relay (part of tcp's counts).
    if (std::string_view(method) == "relay") {
        rt().engine->traffic_count_on();
        counts_out(rt().engine->traffic_relayed(), messages, bytes);
        return MPI_SUCCESS;
    }
    const int i = rt().engine->method_index(method);
    if (i < 0) return call.raise(MPI_ERR_ARG, std::string("this process uses no method called '") + method + "'");
    rt().engine->traffic_count_on();
    counts_out(rt().engine->traffic_by_method()[static_cast<std::size_t>(i)], messages, bytes);
    return MPI_SUCCESS;
}

}  // namespace body
}  // namespace strata::mpi

#include "grid.inc"
