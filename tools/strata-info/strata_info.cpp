// strata-info: what this Strata build is and every run-time setting it reads.
//
//   strata-info [--knobs] [--settings] [--parsable]
//
// Everything printed comes from the tables the library itself uses (the knob
// registry, the settings mpirun passes, the method table, the collective
// registries), never from a copy.
// The knob registry is only complete because meson.build links every library
// that declares knobs whole; test_strata_info.py checks that against the source.
#include <algorithm>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "devices/methods.hpp"
#include "base/knob.hpp"
#include "build_config.hpp"
#include "collectives/registry.hpp"
#include "wireup/settings.hpp"
#include "wireup/topology.hpp"

namespace base = strata::base;
namespace coll = strata::coll;

namespace {

constexpr const char* kUsage =
    "usage: strata-info [--knobs] [--settings] [--parsable] [--collectives] [--rules]\n"
    "\n"
    "Prints the version and build of this Strata, its communication methods, every\n"
    "run-time setting (knob: an environment variable read by mpirun, strata-gatekeeper\n"
    "or the MPI library) with its type, default, current value and meaning, and the\n"
    "collective algorithms that STRATA_<OP>_ALGORITHM can name.\n"
    "\n"
    "  --knobs     the settings only\n"
    "  --settings  which mpirun option and job file key set each variable every\n"
    "              process receives\n"
    "  --collectives  the collective algorithms and rules only, as the Markdown\n"
    "              table README.md shows\n"
    "  --rules     the collective rules in STRATA_COLL_RULES's format (a file to\n"
    "              start from)\n"
    "  --parsable  one KEY:VALUE line per item, for scripts; KEY is a path such as\n"
    "              knob:STRATA_SKIP_POLL:default, VALUE is the rest of the line\n"
    "  -h, --help  this text\n";

int usage_error(const std::string& text) {
    std::cerr << "strata-info: " << text << "\n" << kUsage;
    return 2;
}

// Environment values may hold anything; a parsable line must stay one line.
std::string one_line(std::string text) {
    for (std::size_t at = 0; (at = text.find('\n', at)) != std::string::npos; at += 2) text.replace(at, 1, "\\n");
    return text;
}

// `text` wrapped at word boundaries to `width` columns, each line indented.
std::string wrap(const std::string& text, std::size_t indent, std::size_t width = 100) {
    const std::string pad(indent, ' ');
    std::string out;
    std::string line;
    std::size_t at = 0;
    while (at < text.size()) {
        const std::size_t space = std::min(text.find(' ', at), text.size());
        const std::string word = text.substr(at, space - at);
        at = space + 1;
        if (!line.empty() && pad.size() + line.size() + 1 + word.size() > width) {
            out += pad + line + "\n";
            line.clear();
        }
        line += (line.empty() ? "" : " ") + word;
    }
    if (!line.empty()) out += pad + line + "\n";
    return out;
}

std::vector<base::KnobInfo> knobs_sorted() {
    std::vector<base::KnobInfo> knobs = base::knobs_all();
    std::sort(knobs.begin(), knobs.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    return knobs;
}

std::string ignored_why(const base::KnobInfo& k) {
    return k.type == "size" ? "not a size such as 64K" : "not an integer";
}

// A rule as people read it: "scatter_allgather from 12288 bytes, 8
// processes", "binomial on wide area links", "linear from 3 to 4 processes
// on vendor links", "linear up to 4 processes".
std::string rule_text(const coll::Rule& r) {
    std::string out = r.algorithm;
    std::string from;
    if (r.min_bytes > 0) from += std::to_string(r.min_bytes) + " bytes";
    if (r.min_procs > 1) {
        from += (from.empty() ? "" : ", ") + std::to_string(r.min_procs) +
                (r.max_procs > 0 ? " to " + std::to_string(r.max_procs) : "") + " processes";
    }
    if (!from.empty()) out += " from " + from;
    if (r.max_procs > 0 && r.min_procs <= 1) out += " up to " + std::to_string(r.max_procs) + " processes";
    if (r.level >= 0) out += std::string(" on ") + strata::wireup::level_name(r.level) + " links";
    return out;
}

struct BuildItem {
    const char* key;
    std::string value;  // for --parsable
    const char* label;
    std::string shown;  // for people
};

std::vector<BuildItem> build_items() {
    const std::string ofi = STRATA_INFO_OFI;
    const bool sanitize = STRATA_INFO_SANITIZE;
    return {
        {"buildtype", STRATA_INFO_BUILDTYPE, "build type", STRATA_INFO_BUILDTYPE},
        {"sanitize", sanitize ? "yes" : "no", "sanitizers", sanitize ? "address, undefined behaviour" : "none"},
        {"ofi", ofi.empty() ? "no" : "yes", "ofi method", ofi.empty() ? "not built" : "built (" + ofi + ")"},
        {"compiler", STRATA_INFO_COMPILER, "compiler", STRATA_INFO_COMPILER},
    };
}

void parsable_print(bool knobs_only) {
    if (!knobs_only) {
        std::cout << "version:" << STRATA_INFO_VERSION << "\n";
        for (const BuildItem& b : build_items()) std::cout << "build:" << b.key << ":" << b.value << "\n";
        int preference = 0;
        for (const strata::dev::MethodEntry& m : strata::dev::method_table())
            std::cout << "method:" << ++preference << ":" << m.name << "\n";
    }
    for (const base::KnobInfo& k : knobs_sorted()) {
        const std::string key = "knob:" + k.name + ":";
        const std::optional<base::KnobSetting> set = base::knob_setting(k);
        std::cout << key << "type:" << k.type << "\n"
                  << key << "default:" << k.default_text << "\n"
                  << key << "current:" << (set ? one_line(set->text) : "(default)") << "\n";
        if (set && !set->valid) std::cout << key << "ignored:" << ignored_why(k) << "\n";
        std::cout << key << "doc:" << k.doc << "\n";
        if (const strata::wireup::Setting* s = strata::wireup::setting_find(k.name)) {
            if (s->flag != nullptr) std::cout << key << "mpirun:" << s->flag << "\n";
            if (s->job_key != nullptr) std::cout << key << "jobfile:" << s->job_key << "\n";
        }
    }
    if (knobs_only) return;
    for (const coll::RegistryBase* r : coll::RegistryBase::all()) {
        const std::string key = std::string("collective:") + r->operation() + ":";
        std::cout << key << "knob:" << r->knob() << "\n";
        for (const coll::RegistryBase::Entry& a : r->entries())
            std::cout << key << "algorithm:" << a.name << ":" << a.restriction << "\n";
        for (const coll::Rule& rule : r->rules()) std::cout << key << "rule:" << rule_text(rule) << "\n";
    }
}

// " (set by mpirun -bind-to and the job file's bind_to)" for a setting of
// wireup/settings.hpp, else "".
std::string set_by(const std::string& knob) {
    const strata::wireup::Setting* s = strata::wireup::setting_find(knob);
    if (s == nullptr) return {};
    std::string out = " (set by";
    if (s->flag != nullptr) out.append(" mpirun ").append(s->flag);
    if (s->flag != nullptr && s->job_key != nullptr) out += " and";
    if (s->job_key != nullptr) out.append(" the job file's ").append(s->job_key);
    return out + ")";
}

void knobs_print() {
    const std::vector<base::KnobInfo> knobs = knobs_sorted();
    std::cout << "Settings (" << knobs.size()
              << " environment variables read by mpirun, strata-gatekeeper or the MPI library):\n";
    const auto quoted = [](const std::string& s) { return s.empty() ? std::string("\"\"") : s; };
    for (const base::KnobInfo& k : knobs) {
        const std::optional<base::KnobSetting> set = base::knob_setting(k);
        std::string current = set ? quoted(set->text) : "(default)";
        if (set && !set->valid) current += " (ignored: " + ignored_why(k) + "; the default applies)";
        std::cout << "  " << k.name << "  " << k.type << ", default " << quoted(k.default_text) << ", current "
                  << current << "\n"
                  << wrap(k.doc + set_by(k.name), 6);
    }
}

void human_print() {
    std::cout << "Strata " << STRATA_INFO_VERSION << "\n";
    for (const BuildItem& b : build_items()) {
        const std::string label = b.label;
        std::cout << "  " << label << std::string(12 - label.size(), ' ') << b.shown << "\n";
    }
    std::cout << "\nCommunication methods, in order of preference:";
    const char* separator = " ";
    for (const strata::dev::MethodEntry& m : strata::dev::method_table()) {
        std::cout << separator << m.name;
        separator = " > ";
    }
    std::cout << "\n\n";
    knobs_print();
    std::cout << "\nSettings every process receives from mpirun or a job file:\n" << strata::wireup::settings_table("  ");
    std::cout << "\nCollective algorithms (the first rule whose algorithm's restrictions hold decides; the knob\n"
                 "forces one where its restrictions hold):\n";
    for (const coll::RegistryBase* r : coll::RegistryBase::all()) {
        std::cout << "  " << r->operation() << ": " << r->knob() << "\n";
        for (const coll::RegistryBase::Entry& a : r->entries()) {
            const std::string name = a.name;
            std::cout << "      " << name;
            if (std::string(a.restriction) != "none")
                std::cout << std::string(name.size() < 20 ? 20 - name.size() : 1, ' ') << a.restriction;
            std::cout << "\n";
        }
        std::string rules;
        for (const coll::Rule& rule : r->rules()) rules += (rules.empty() ? "" : "; ") + rule_text(rule);
        std::cout << wrap("rules: " + rules, 6);
    }
}

}  // namespace

// The collectives as a Markdown table (README.md's, which the tests compare).
void collectives_markdown() {
    std::cout << "| Operation, knob | Algorithms (restrictions) | Rules, first that applies |\n|---|---|---|\n";
    for (const coll::RegistryBase* r : coll::RegistryBase::all()) {
        std::cout << "| " << r->operation() << ", `" << r->knob() << "` |";
        const char* sep = " ";
        for (const coll::RegistryBase::Entry& a : r->entries()) {
            std::cout << sep << "`" << a.name << "`";
            if (std::string(a.restriction) != "none") std::cout << " (" << a.restriction << ")";
            sep = "; ";
        }
        std::cout << " |";
        sep = " ";
        for (const coll::Rule& rule : r->rules()) {
            std::cout << sep << rule_text(rule);
            sep = "; ";
        }
        std::cout << " |\n";
    }
}

int main(int argc, char** argv) {
    bool knobs_only = false;
    bool parsable = false;
    bool collectives = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "-h" || a == "--help") {
            std::cout << kUsage;
            return 0;
        } else if (a == "--knobs") {
            knobs_only = true;
        } else if (a == "--settings") {
            std::cout << strata::wireup::settings_table("");
            return 0;
        } else if (a == "--parsable") {
            parsable = true;
        } else if (a == "--collectives") {
            collectives = true;
        } else if (a == "--rules") {
            std::cout << coll::RegistryBase::rules_text();
            return 0;
        } else {
            return usage_error("unknown option '" + a + "'");
        }
    }
    if (collectives) {
        collectives_markdown();
    } else if (parsable) {
        parsable_print(knobs_only);
    } else if (knobs_only) {
        knobs_print();
    } else {
        human_print();
    }
    return 0;
}
