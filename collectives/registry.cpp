#include "collectives/registry.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <mutex>
#include <string>

#include "base/file.hpp"
#include "collectives/allgather/allgather.hpp"
#include "collectives/allgatherv/allgatherv.hpp"
#include "collectives/allreduce/allreduce.hpp"
#include "collectives/alltoall/alltoall.hpp"
#include "collectives/alltoallv/alltoallv.hpp"
#include "collectives/barrier/barrier.hpp"
#include "collectives/bcast/bcast.hpp"
#include "collectives/gather/gather.hpp"
#include "collectives/gatherv/gatherv.hpp"
#include "collectives/invariant.hpp"
#include "collectives/plogp/wide_area.hpp"
#include "collectives/reduce/reduce.hpp"
#include "collectives/reduce_scatter/reduce_scatter.hpp"
#include "collectives/scan/scan.hpp"
#include "collectives/scatter/scatter.hpp"
#include "collectives/scatterv/scatterv.hpp"
#include "wireup/topology.hpp"

namespace strata::coll {

namespace fits {

bool any(const Situation&) { return true; }
bool commutative(const Situation& s) { return s.commutative; }
bool commutative_and_long(const Situation& s) {
    return s.commutative && s.elements >= static_cast<std::size_t>(pof2_floor(s.procs));
}
bool modelled(const Situation& s) { return s.modelled; }
bool modelled_and_commutative(const Situation& s) { return s.modelled && s.commutative; }

}  // namespace fits

Situation situation_of(const Group& g, std::size_t bytes, std::size_t elements, bool commutative) {
    Situation s{g.size(), bytes, elements, commutative, g.level, {}, {}, false};
    if (g.levels != nullptr) {
        for (int i = 0; i < kShapes; ++i) {
            const Hierarchy& h = g.levels->of(static_cast<Shape>(i));
            s.spans[static_cast<std::size_t>(i)] = h.spans();
            s.ordered[static_cast<std::size_t>(i)] = h.ordered();
        }
        s.level = g.levels->of(Shape::multilevel).top_level();
    }
    // The model has link classes between sites and inside a site (between its
    // machines); the links inside a machine are no class of it.
    const plogp::WideArea* model = plogp::WideArea::get();
    if (model == nullptr || (s.level != wireup::kWan && s.level != wireup::kLan)) return s;
    if (g.levels == nullptr) {
        s.modelled = model->covers(g.world);
    } else {
        if (g.levels->covered_by != model) {
            g.levels->covered = model->covers(g.world);
            g.levels->covered_by = model;
        }
        s.modelled = g.levels->covered;
    }
    return s;
}

const char* spans_words(Shape shape, Order o) {
    static const char* const words[3][kShapes] = {
        {"more than one cluster at some level", "more than one site", "more than one machine"},
        {"more than one cluster at some level; non-commutative: clusters of consecutive ranks",
         "more than one site; non-commutative: sites of consecutive ranks",
         "more than one machine; non-commutative: machines of consecutive ranks"},
        {"more than one cluster at some level, each of consecutive ranks",
         "more than one site, each of consecutive ranks", "more than one machine, each of consecutive ranks"},
    };
    return words[static_cast<int>(o)][static_cast<int>(shape)];
}

namespace {

const base::KnobString rules_file{"STRATA_COLL_RULES", "",
                                  "a file of collective rules that replace the built-in ones of the operations it "
                                  "names (README: Collective algorithms); set it alike for every process"};

}  // namespace

RegistryBase::RegistryBase(const char* operation, const base::KnobString& knob, std::vector<Entry> entries,
                           std::initializer_list<Rule> rules)
    : operation_(operation), knob_(knob), entries_(std::move(entries)), chosen_(entries_.size(), 0) {
    // The built-in rules are the library's own: a registry that refuses them is a bug.
    const base::Status set = rules_set(rules);
    if (!set.ok()) {
        std::string what = "collective registry ";
        what += operation;
        what += ": ";
        what += set.error();
        invariant_failed(what);
    }
}

base::Status RegistryBase::rules_set(std::vector<Rule> rules) const {
    base::Result<std::vector<std::size_t>> entry = rules_check(rules);
    if (!entry.ok()) return std::move(entry).failure();
    rules_ = std::move(rules);
    rule_entry_ = std::move(*entry);
    return {};
}

base::Result<std::vector<std::size_t>> RegistryBase::rules_check(const std::vector<Rule>& rules) const {
    std::vector<std::size_t> entry;
    for (const Rule& r : rules) {
        const int i = find(r.algorithm);
        if (i < 0) {
            return base::Error{std::string("a rule names '") + r.algorithm + "', which is no algorithm of " +
                               operation_};
        }
        entry.push_back(static_cast<std::size_t>(i));
    }
    // The last rule must always apply: no thresholds, and an algorithm that
    // fits even the least favourable situation.
    Situation worst;
    worst.procs = 1000;
    worst.bytes = 1;
    worst.elements = 1;
    worst.commutative = false;
    const Rule& last = rules.empty() ? Rule{} : rules.back();
    if (rules.empty() || last.min_bytes > 0 || last.min_procs > 1 || last.max_procs > 0 || last.level >= 0 ||
        !entries_[entry.back()].fits(worst)) {
        std::string any;
        for (const Entry& e : entries_) {
            if (e.fits(worst)) any += (any.empty() ? "" : ", ") + std::string(e.name);
        }
        return base::Error{std::string("the last rule of ") + operation_ +
                           " must name an algorithm that always fits, without thresholds (" + any + ")"};
    }
    return entry;
}

namespace {

// The fields a rule of a rules file may set.
struct RuleField {
    const char* key;
    std::int64_t low, high;
    const char* takes;
    void (*set)(Rule&, std::int64_t);
};
const RuleField kRuleFields[] = {
    {"min_bytes", 0, INT64_MAX, "a size (123, 64K, 8M)",
     [](Rule& r, std::int64_t v) { r.min_bytes = static_cast<std::size_t>(v); }},
    {"min_procs", 1, INT32_MAX, "a process count from 1",
     [](Rule& r, std::int64_t v) { r.min_procs = static_cast<int>(v); }},
    {"max_procs", 1, INT32_MAX, "a process count from 1",
     [](Rule& r, std::int64_t v) { r.max_procs = static_cast<int>(v); }},
    {"level", 0, wireup::kLevels - 1, "a kind of topology level, 0 to 6",
     [](Rule& r, std::int64_t v) { r.level = static_cast<int>(v); }},
};

// Sets the field that `field` ("key=value") names in `rule`.
base::Status rule_field(const std::string& field, Rule& rule) {
    const std::size_t eq = field.find('=');
    const std::string key = field.substr(0, eq);
    const auto* f =
        std::find_if(std::begin(kRuleFields), std::end(kRuleFields), [&](const RuleField& x) { return key == x.key; });
    if (f == std::end(kRuleFields)) {
        return base::Error{"'" + field + "' is not min_bytes=SIZE, min_procs=N, max_procs=N or level=L"};
    }
    const std::optional<std::int64_t> v = base::parse_size(eq == std::string::npos ? "" : field.substr(eq + 1));
    if (!v || *v < f->low || *v > f->high) return base::Error{"'" + field + "': " + key + " takes " + f->takes};
    f->set(rule, *v);
    return {};
}

// A rule line's operation (its index in RegistryBase::all()) and rule.
struct RuleLine {
    std::size_t operation;
    Rule rule;
};

base::Result<RuleLine> rule_line(const std::vector<std::string>& words) {
    const auto all = RegistryBase::all();
    const std::string& op = words[0];
    std::size_t r = 0;
    while (r < all.size() && op != all[r]->operation()) ++r;
    if (r == all.size()) return base::Error{"unknown operation '" + op + "'"};
    const RegistryBase& reg = *all[r];
    if (words.size() < 2) return base::Error{"no algorithm after '" + op + "'"};
    const std::string& algorithm = words[1];
    const int e = reg.find(algorithm);
    if (e < 0) return base::Error{"'" + algorithm + "' is no algorithm of " + op + " (strata-info lists them)"};
    RuleLine line{r, Rule{reg.entries()[static_cast<std::size_t>(e)].name}};
    for (std::size_t i = 2; i < words.size(); ++i) {
        base::Status set = rule_field(words[i], line.rule);
        if (!set.ok()) return std::move(set).failure();
    }
    return line;
}

}  // namespace

base::Status RegistryBase::rules_parse(const std::string& text, const std::string& where) {
    std::vector<std::vector<Rule>> rules(all().size());
    std::vector<int> last_line(all().size(), 0);
    base::Status read = base::lines_of_words(text, where, [&](int n, const std::vector<std::string>& words) {
        base::Result<RuleLine> line = rule_line(words);
        if (!line.ok()) return base::Status(std::move(line).failure());
        rules[line->operation].push_back(line->rule);
        last_line[line->operation] = n;
        return base::Status();
    });
    if (!read.ok()) return read;
    // All or nothing: check every operation's rules before installing any.
    for (std::size_t r = 0; r < all().size(); ++r) {
        if (rules[r].empty()) continue;
        const base::Result<std::vector<std::size_t>> entry = all()[r]->rules_check(rules[r]);
        if (!entry.ok()) {
            std::string at = where;
            at += ":";
            at += std::to_string(last_line[r]);
            at += ": ";
            return entry.failure().prefixed(at);
        }
    }
    for (std::size_t r = 0; r < all().size(); ++r) {
        if (rules[r].empty()) continue;
        const base::Status set = all()[r]->rules_set(std::move(rules[r]));
        invariant(set.ok(), "rules_set refused rules that rules_check accepted");
    }
    return {};
}

std::string RegistryBase::rules_text() {
    std::string out = "# STRATA_COLL_RULES: OPERATION ALGORITHM [min_bytes=SIZE] [min_procs=N] [max_procs=N] [level=L];\n"
                      "# per operation the first rule that matches and whose algorithm fits decides.\n";
    for (const RegistryBase* r : all()) {
        for (const Rule& rule : r->rules()) {
            out += std::string(r->operation()) + " " + rule.algorithm;
            if (rule.min_bytes > 0) out += " min_bytes=" + std::to_string(rule.min_bytes);
            if (rule.min_procs > 1) out += " min_procs=" + std::to_string(rule.min_procs);
            if (rule.max_procs > 0) out += " max_procs=" + std::to_string(rule.max_procs);
            if (rule.level >= 0) out += " level=" + std::to_string(rule.level);
            out += "\n";
        }
    }
    return out;
}

base::Status RegistryBase::rules_configure() {
    const std::string& path = rules_file.get();
    if (path.empty()) return {};
    // An empty file is a valid one (no operation's rules change).
    const base::Result<std::string> text = base::file_read(path, "the STRATA_COLL_RULES file");
    if (!text.ok()) return text.failure();
    return rules_parse(*text, path);
}

int RegistryBase::find(std::string_view name) const {
    for (std::size_t i = 0; i < entries_.size(); ++i) {
        if (name == entries_[i].name) return static_cast<int>(i);
    }
    return -1;
}

std::size_t RegistryBase::select(const Situation& s, std::string_view forced) const {
    if (!forced.empty()) {
        const int i = find(forced);
        if (i >= 0 && entries_[static_cast<std::size_t>(i)].fits(s)) return static_cast<std::size_t>(i);
    }
    for (std::size_t i = 0; i < rules_.size(); ++i) {
        const Rule& r = rules_[i];
        if (s.bytes < r.min_bytes || s.procs < r.min_procs || (r.max_procs > 0 && s.procs > r.max_procs) ||
            (r.level >= 0 && s.level != r.level))
            continue;
        if (entries_[rule_entry_[i]].fits(s)) return rule_entry_[i];
    }
    std::string what = "collective registry ";
    what += operation_;
    what += ": no rule applies; the last rule must name an unrestricted algorithm";
    invariant_failed(what);
}

std::size_t RegistryBase::select(const Situation& s) const {
    const std::string& forced = knob_.get();
    if (!forced.empty() && find(forced) < 0) {
        // A misspelt name would silently test the default instead: say so, once.
        std::call_once(warned_, [&] {
            std::fprintf(stderr, "strata: %s=%s names no %s algorithm; choosing by the rules instead\n", knob(),
                         forced.c_str(), operation_);
        });
    }
    const std::size_t i = select(s, forced);
    ++chosen_[i];
    if (!forced.empty() && forced != entries_[i].name) ++forced_unfit_;
    return i;
}

std::vector<std::string> RegistryBase::choices_text() {
    std::vector<std::string> lines;
    for (const RegistryBase* r : all()) {
        std::string line;
        for (std::size_t i = 0; i < r->entries_.size(); ++i) {
            if (r->chosen_[i] == 0) continue;
            // Appended piece by piece: GCC 12 at -O3 warns falsely (-Wrestrict) on "literal" + std::string.
            if (line.empty()) {
                line.append(r->operation_).append(": ");
            } else {
                line.append(", ");
            }
            line.append(r->entries_[i].name).append(" ").append(std::to_string(r->chosen_[i]));
        }
        if (r->forced_unfit_ > 0) {
            line.append("; ").append(r->knob()).append("=").append(r->knob_.get()).append(" did not fit ");
            line.append(std::to_string(r->forced_unfit_)).append(" call(s)");
        }
        if (!line.empty()) lines.push_back(line);
    }
    return lines;
}

std::span<const RegistryBase* const> RegistryBase::all() {
    static const RegistryBase* const registries[] = {
        &barrier_algorithms,        &bcast_algorithms,     &gather_algorithms,    &gatherv_algorithms,
        &scatter_algorithms,        &scatterv_algorithms,  &allgather_algorithms, &allgatherv_algorithms,
        &alltoall_algorithms,       &alltoallv_algorithms, &reduce_algorithms,    &allreduce_algorithms,
        &reduce_scatter_algorithms, &scan_algorithms,
    };
    return registries;
}

}  // namespace strata::coll
