#include "launcher/job_plan.hpp"

#include <algorithm>

#include "wireup/emulation.hpp"

namespace strata::launcher {

std::string subjob_contact(const Contact& c, const LocalHost& local) {
    if (c.adapter == AdapterKind::fork && !c.port_given && local.is_local(c.host)) return kLocalContact;
    return c.text();
}

base::Result<JobPlan> JobPlan::build(const Options& options, const LocalHost& local) {
    if (options.machinefile.empty()) {
        // One subjob here, named after this machine.
        JobRequest request = job_request_local(options.np > 0 ? options.np : 1, options.program, options.args);
        request.subjobs[0].site = request.subjobs[0].machine = local.short_name().empty() ? "localhost" : local.short_name();
        return from_request(request, local);
    }
    base::Result<MachineFile> file = MachineFile::load(options.machinefile);
    if (!file) return file.failure();
    for (const MachineEntry& e : file->entries()) {
        if (!e.contact && !local.is_local(e.host)) {
            return base::Error{file->path() + ":" + std::to_string(e.line) + ": host '" + e.host +
                               "' is not this machine; the local fork adapter cannot start processes there (name the "
                               "site's gatekeeper instead, e.g. '" +
                               e.host + ":2119/fork " + std::to_string(e.slots) + "')"};
        }
    }
    return from_request(job_request_from_machine_file(*file, options.np > 0 ? options.np : file->slots_total(),
                                                      options.program, options.args),
                        local);
}

JobPlan JobPlan::from_request(const JobRequest& request, const LocalHost& local) {
    JobPlan plan;
    for (const SubjobRequest& r : request.subjobs) {
        const int index = static_cast<int>(plan.subjobs.size());
        Subjob s;
        s.index = index;
        s.contact = subjob_contact(r.contact, local);
        s.machine = r.machine.empty() ? r.contact.host : r.machine;
        s.machine_label = r.machine;
        s.host = r.host;
        s.processor_name = r.processor_name;
        s.site = subjob_site(r);
        s.count = r.count;
        s.first_rank = plan.size;
        s.program = r.executable;
        s.args = r.arguments;
        for (const std::string& nv : r.environment) {
            const std::size_t eq = nv.find('=');
            s.env.emplace_back(nv.substr(0, eq), nv.substr(eq + 1));
        }
        s.directory = r.directory;
        s.account = r.account;
        s.stage = r.stage || !r.stage_files.empty();
        s.stage_files = r.stage_files;
        plan.size += r.count;
        plan.subjobs.push_back(std::move(s));
    }
    return plan;
}

namespace {

constexpr const char* kEmulation = "STRATA_EMULATION";

// Every STRATA_EMULATION text the job's processes may get: mpirun's own, -x's, the subjobs'.
std::vector<std::string> emulation_texts(const JobPlan& plan, const Options& options) {
    std::vector<std::string> texts;
    if (!wireup::emulation_setting().empty()) texts.push_back(wireup::emulation_setting());
    for (const auto& [name, value] : options.exports) {
        if (name == kEmulation && value && !value->empty()) texts.push_back(*value);
    }
    for (const Subjob& s : plan.subjobs) {
        for (const auto& [name, value] : s.env) {
            if (name == kEmulation && !value.empty()) texts.push_back(value);
        }
    }
    return texts;
}

}  // namespace

bool JobPlan::emulated(const Options& options) const { return !emulation_texts(*this, options).empty(); }

base::Status JobPlan::emulation_check(const Options& options) const {
    constexpr const char* kName = kEmulation;
    for (const std::string& text : emulation_texts(*this, options)) {
        const base::Result<wireup::Emulation> e = wireup::emulation_parse(text);
        if (!e) return base::Error{std::string(kName) + "='" + text + "': " + e.error()};
        for (const auto& pair : e->pairs) {
            for (const std::string& site : {pair.a, pair.b}) {
                const bool known = std::any_of(subjobs.begin(), subjobs.end(), [&](const Subjob& s) { return s.site == site; });
                if (!known)
                    return base::Error{std::string(kName) + "='" + text + "' names site '" + site +
                                       "', which no subjob is at"};
            }
        }
    }
    return {};
}

}  // namespace strata::launcher
