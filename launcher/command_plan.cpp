#include "launcher/command_plan.hpp"

#include <algorithm>
#include <cstdlib>

#include "job/slurm_allocation.hpp"
#include "wireup/emulation.hpp"
#include "wireup/settings.hpp"

namespace strata::launcher {

namespace {

base::Result<job::SlurmAllocation> allocation_here() {
    return job::slurm_allocation([](const char* n) { return std::getenv(n); });
}

// One subjob per node of the Slurm allocation, each reached by `remote`; the
// nodes are machines (and host identities) of one site, the cluster.
base::Result<job::JobPlan> allocation_plan(const Options& options, const job::LocalHost& local, job::Transport remote) {
    base::Result<job::SlurmAllocation> allocation = allocation_here();
    if (!allocation) return allocation.failure();
    const int np = options.np > 0 ? options.np : allocation->tasks();
    job::JobRequest request = job::job_request_from_machine_file(allocation->machine_file(), np, options.program,
                                                                 options.args, local, remote);
    const std::string site = allocation->cluster.empty() ? "slurm" : allocation->cluster;
    for (job::SubjobRequest& s : request.subjobs) {
        s.site = site;
        s.machine = s.host = s.contact.host;
    }
    return job::JobPlan::from_request(request, local);
}

// A plain host line of another machine, where -launcher fork allows none.
base::Status only_this_machine(const job::MachineFile& file, const job::LocalHost& local) {
    for (const job::MachineEntry& e : file.entries()) {
        if (!e.contact && !local.is_local(e.host)) {
            return base::Error{file.path() + ":" + std::to_string(e.line) + ": host '" + e.host +
                               "' is not this machine, and -launcher fork starts processes only here"};
        }
    }
    return {};
}

}  // namespace

base::Result<job::JobPlan> plan_build(const Options& options, const job::LocalHost& local) {
    const char* slurm_job = std::getenv("SLURM_JOB_ID");
    const bool in_allocation = slurm_job != nullptr && *slurm_job != '\0';
    const std::string launcher = !options.launcher.empty() ? options.launcher : in_allocation ? "srun" : "ssh";
    if (launcher == "srun" && !in_allocation)
        return base::Error{"-launcher srun starts ranks on the nodes of a Slurm allocation, and SLURM_JOB_ID is not "
                           "set (run mpirun inside salloc or sbatch)"};
    const job::Transport remote = launcher == "srun" ? job::Transport::srun : job::Transport::ssh;
    if (options.machinefile.empty()) {
        if (in_allocation && launcher != "fork") return allocation_plan(options, local, remote);
        // One subjob here, named after this machine; as many ranks as the allocation has tasks, if any.
        int np = options.np > 0 ? options.np : 1;
        if (in_allocation && options.np == 0) {
            base::Result<job::SlurmAllocation> allocation = allocation_here();
            if (!allocation) return allocation.failure();
            np = allocation->tasks();
        }
        job::JobRequest request = job::job_request_local(np, options.program, options.args);
        request.subjobs[0].site = request.subjobs[0].machine = local.short_name().empty() ? "localhost" : local.short_name();
        return job::JobPlan::from_request(request, local);
    }
    base::Result<job::MachineFile> file = job::MachineFile::load(options.machinefile);
    if (!file) return file.failure();
    if (launcher == "fork") {
        if (base::Status s = only_this_machine(*file, local); !s) return s.failure();
    }
    const int np = options.np > 0 ? options.np : file->slots_total();
    return job::JobPlan::from_request(
        job::job_request_from_machine_file(*file, np, options.program, options.args, local, remote), local);
}

namespace {

constexpr const char* kEmulation = wireup::kEmulation.variable;

// Every STRATA_EMULATION text the job's processes may get: mpirun's own, -x's, the subjobs'.
std::vector<std::string> emulation_texts(const job::JobPlan& plan, const Options& options) {
    std::vector<std::string> texts;
    if (!wireup::emulation_setting().empty()) texts.push_back(wireup::emulation_setting());
    for (const auto& [name, value] : options.exports) {
        if (name == kEmulation && value && !value->empty()) texts.push_back(*value);
    }
    for (const job::Subjob& s : plan.subjobs) {
        for (const auto& [name, value] : s.command.env) {
            if (name == kEmulation && !value.empty()) texts.push_back(value);
        }
    }
    return texts;
}

}  // namespace

bool plan_emulated(const job::JobPlan& plan, const Options& options) { return !emulation_texts(plan, options).empty(); }

base::Status plan_emulation_check(const job::JobPlan& plan, const Options& options) {
    constexpr const char* kName = kEmulation;
    for (const std::string& text : emulation_texts(plan, options)) {
        const base::Result<wireup::Emulation> e = wireup::emulation_parse(text);
        if (!e) return base::Error{wireup::setting_fault(wireup::kEmulation, text)};
        for (const auto& pair : e->pairs) {
            for (const std::string& site : {pair.a, pair.b}) {
                const bool known = std::any_of(plan.subjobs.begin(), plan.subjobs.end(), [&](const job::Subjob& s) { return s.site == site; });
                if (!known)
                    return base::Error{std::string(kName) + "='" + text + "' names site '" + site +
                                       "', which no subjob is at"};
            }
        }
    }
    return {};
}

base::Status plan_relay_check(const job::JobPlan& plan) {
    for (const job::Subjob& s : plan.subjobs) {
        const std::string which = "subjob " + std::to_string(s.index) + " (site " + s.site + ")";
        if (s.network_private && s.contact == job::kLocalContact) {
            return base::Error{which + " is private (network: private), but mpirun starts it itself: a private "
                               "site needs a gatekeeper on its gateway to run its relay; give the subjob a "
                               "gatekeeper contact (host:port, or host/ssh)"};
        }
        for (const job::Subjob& t : plan.subjobs) {
            if (t.site == s.site && t.network_private != s.network_private) {
                return base::Error{"site " + s.site + ": subjob " + std::to_string(s.index) + " is " +
                                   (s.network_private ? "private" : "public") + " but subjob " +
                                   std::to_string(t.index) + " is not; say network: private for all of them or "
                                   "none"};
            }
        }
    }
    return {};
}

}  // namespace strata::launcher
