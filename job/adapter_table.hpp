// The scheduler adapters a gatekeeper can offer, in one table.
//
// Everything that names an adapter reads it here: contacts ("host/slurm",
// job/contact.hpp), the Submit mpirun sends, a gatekeeper's `adapters`
// setting (gatekeeper/config.hpp) and the gatekeeper's handling of a subjob
// (gatekeeper/gatekeeper.cpp). The table is data only, so that mpirun, which
// reads names, links no adapter it does not run; adapter_make.hpp builds the
// adapters themselves.
//
// Adding an adapter: a row here, a case in adapter_make(), its folder's files.
#pragma once

#include <string>
#include <string_view>

namespace strata::job {

enum class AdapterKind { fork, slurm };

struct AdapterInfo {
    AdapterKind kind;
    // Its name in contacts, in the Submit and in the gatekeeper's
    // configuration; contacts also accept "jobmanager-<name>".
    const char* name;
    // What a bare "/jobmanager" contact means (Globus' default service).
    bool globus_default;
    // Its processes are children of the gatekeeper on the gatekeeper's
    // machine: the subjob's record keeps their pids so that a restarted
    // gatekeeper kills those still running.
    bool records_local_pids;
    // It reports PENDING itself (with a batch job id); for the others the
    // gatekeeper reports it as the subjob is accepted.
    bool reports_pending;
};

inline constexpr AdapterInfo kAdapterTable[] = {
    {AdapterKind::fork, "fork", true, true, false},
    {AdapterKind::slurm, "slurm", false, false, true},
};

const AdapterInfo& adapter_info(AdapterKind kind);
const char* adapter_name(AdapterKind kind);  // "fork", "slurm"

// The adapter named `name` ("slurm"); nullptr: none.
const AdapterInfo* adapter_find(std::string_view name);
// The adapter of a contact's service ("slurm", "jobmanager-slurm", and
// "jobmanager" for the Globus default); nullptr: none.
const AdapterInfo* adapter_find_service(std::string_view service);

// What messages list as allowed: "fork or slurm", or with `services`
// "fork, slurm, jobmanager-fork or jobmanager-slurm".
std::string adapter_names_text(bool services);

}  // namespace strata::job
