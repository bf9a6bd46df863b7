#include "launcher/command_plan.hpp"

#include <algorithm>

#include "wireup/emulation.hpp"

namespace strata::launcher {

base::Result<job::JobPlan> plan_build(const Options& options, const job::LocalHost& local) {
    if (options.machinefile.empty()) {
        // One subjob here, named after this machine.
        job::JobRequest request = job::job_request_local(options.np > 0 ? options.np : 1, options.program, options.args);
        request.subjobs[0].site = request.subjobs[0].machine = local.short_name().empty() ? "localhost" : local.short_name();
        return job::JobPlan::from_request(request, local);
    }
    base::Result<job::MachineFile> file = job::MachineFile::load(options.machinefile);
    if (!file) return file.failure();
    const int np = options.np > 0 ? options.np : file->slots_total();
    return job::JobPlan::from_request(
        job::job_request_from_machine_file(*file, np, options.program, options.args, local), local);
}

namespace {

constexpr const char* kEmulation = "STRATA_EMULATION";

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
        if (!e) return base::Error{std::string(kName) + "='" + text + "': " + e.error()};
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

}  // namespace strata::launcher
