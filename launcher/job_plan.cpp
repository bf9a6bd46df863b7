#include "launcher/job_plan.hpp"

namespace strata::launcher {

std::optional<JobPlan> JobPlan::build(const Options& options, const LocalHost& local, std::string& error) {
    if (options.machinefile.empty()) {
        JobPlan plan;
        plan.size = options.np > 0 ? options.np : 1;
        Subjob s;
        s.contact = kLocalContact;
        s.machine = local.short_name().empty() ? "localhost" : local.short_name();
        s.count = plan.size;
        plan.subjobs.push_back(s);
        return plan;
    }
    std::optional<MachineFile> file = MachineFile::load(options.machinefile, error);
    if (!file) return std::nullopt;
    for (const MachineEntry& e : file->entries()) {
        if (!local.is_local(e.host)) {
            error = file->path() + ":" + std::to_string(e.line) + ": host '" + e.host +
                    "' is not this machine; the local fork adapter cannot start processes there (remote sites "
                    "will be reached through a gatekeeper contact)";
            return std::nullopt;
        }
    }
    return from_machine_file(*file, options.np > 0 ? options.np : file->slots_total());
}

JobPlan JobPlan::from_machine_file(const MachineFile& file, int np) {
    JobPlan plan;
    plan.size = np;
    const std::vector<MachineEntry>& entries = file.entries();
    std::size_t entry = 0;
    int used = 0;  // slots of entries[entry] already given out
    for (int rank = 0; rank < np; ++rank) {
        if (used == entries[entry].slots) {
            entry = (entry + 1) % entries.size();
            used = 0;
        }
        ++used;
        const std::string& host = entries[entry].host;
        if (plan.subjobs.empty() || plan.subjobs.back().machine != host) {
            Subjob s;
            s.index = static_cast<int>(plan.subjobs.size());
            s.contact = kLocalContact;
            s.machine = host;
            s.first_rank = rank;
            plan.subjobs.push_back(s);
        }
        ++plan.subjobs.back().count;
    }
    return plan;
}

}  // namespace strata::launcher
