#include "launcher/job_plan.hpp"

namespace strata::launcher {

namespace {

std::string gatekeeper_unavailable(const Contact& c) {
    return "submitting to gatekeepers (contact " + c.text() +
           ") is not available yet; only this machine with the fork adapter (e.g. contact 'localhost/fork') can "
           "run a job for now";
}

}  // namespace

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
        if (e.contact && (e.contact->adapter != AdapterKind::fork || !local.is_local(e.host))) {
            error = file->path() + ":" + std::to_string(e.line) + ": " + gatekeeper_unavailable(*e.contact);
            return std::nullopt;
        }
        if (!local.is_local(e.host)) {
            error = file->path() + ":" + std::to_string(e.line) + ": host '" + e.host +
                    "' is not this machine; the local fork adapter cannot start processes there (remote sites "
                    "will be reached through a gatekeeper contact)";
            return std::nullopt;
        }
    }
    return from_machine_file(*file, options.np > 0 ? options.np : file->slots_total());
}

std::optional<JobPlan> JobPlan::from_request(const JobRequest& request, const LocalHost& local,
                                            std::string& error) {
    JobPlan plan;
    for (const SubjobRequest& r : request.subjobs) {
        const int index = static_cast<int>(plan.subjobs.size());
        if (r.contact.adapter != AdapterKind::fork || !local.is_local(r.contact.host)) {
            error = "subjob " + std::to_string(index) + ": " + gatekeeper_unavailable(r.contact);
            return std::nullopt;
        }
        Subjob s;
        s.index = index;
        s.contact = kLocalContact;
        s.machine = r.machine.empty() ? r.contact.host : r.machine;
        s.count = r.count;
        s.first_rank = plan.size;
        s.program = r.executable;
        s.args = r.arguments;
        for (const std::string& nv : r.environment) {
            const std::size_t eq = nv.find('=');
            s.env.emplace_back(nv.substr(0, eq), nv.substr(eq + 1));
        }
        s.directory = r.directory;
        plan.size += r.count;
        plan.subjobs.push_back(std::move(s));
    }
    return plan;
}

JobPlan JobPlan::from_machine_file(const MachineFile& file, int np) {
    JobPlan plan;
    plan.size = np;
    const std::vector<MachineEntry>& entries = file.entries();
    int rank = 0;
    // Consecutive ranks on one host form one subjob.
    for (const auto& [entry, count] : file.distribute(np)) {
        const std::string& host = entries[entry].host;
        if (plan.subjobs.empty() || plan.subjobs.back().machine != host) {
            Subjob s;
            s.index = static_cast<int>(plan.subjobs.size());
            s.contact = kLocalContact;
            s.machine = host;
            s.first_rank = rank;
            plan.subjobs.push_back(s);
        }
        plan.subjobs.back().count += count;
        rank += count;
    }
    return plan;
}

}  // namespace strata::launcher
