#include "wireup/binding.hpp"

#include <algorithm>
#include <map>

#include "base/knob.hpp"

namespace strata::wireup {

namespace {

const base::KnobString bind_to{kBindTo.variable, "",
                               "core, socket or none: what each rank binds to in MPI_Init; empty: a core when the "
                               "host's ranks fit its allowed cores, else no binding"};

struct ModeName {
    const char* name;
    BindTo mode;
};
constexpr ModeName kModes[] = {{"core", BindTo::core}, {"socket", BindTo::socket}, {"none", BindTo::none}};

std::string pu_list(const std::vector<int>& pus) {
    std::string out = pus.size() == 1 ? "PU " : "PUs ";
    for (std::size_t i = 0; i < pus.size(); ++i) {
        if (i > 0) out += ',';
        out += std::to_string(pus[i]);
    }
    return out;
}

// The allowed packages in order of first appearance: each as one "core"
// holding all its allowed PUs, its NUMA node when all its cores share one.
std::vector<CpuCore> packages_of(const std::vector<CpuCore>& allowed) {
    std::vector<CpuCore> out;
    for (const CpuCore& c : allowed) {
        auto it = std::find_if(out.begin(), out.end(), [&](const CpuCore& p) { return p.package == c.package; });
        if (it == out.end()) {
            out.push_back(c);
            out.back().index = c.package;
            continue;
        }
        it->pus.insert(it->pus.end(), c.pus.begin(), c.pus.end());
        if (it->numa != c.numa) it->numa = -1;
    }
    return out;
}

}  // namespace

base::Result<BindTo> bind_to_parse(const std::string& text) {
    for (const ModeName& m : kModes)
        if (text == m.name) return m.mode;
    return base::Error{"'" + text + "' is not a binding; expected " + std::string(kBindTo.expects)};
}

base::Result<BindTo> bind_to_setting() {
    if (bind_to.get().empty()) return BindTo::automatic;
    base::Result<BindTo> mode = bind_to_parse(bind_to.get());
    if (!mode) return base::Error{setting_fault(kBindTo, bind_to.get())};
    return mode;
}

BindChoice binding_choose(BindTo mode, const std::vector<CpuCore>& allowed, int ranks, int local) {
    BindChoice c;
    if (mode == BindTo::none) {
        c.text = "not bound: bind-to none";
        return c;
    }
    const int cores = static_cast<int>(allowed.size());
    if (!binding_fits(ranks, cores)) {
        c.text = "not bound: " + std::to_string(ranks) + " ranks on " + std::to_string(cores) +
                 (cores == 1 ? " allowed core" : " allowed cores");
        return c;
    }
    const bool socket = mode == BindTo::socket;
    const std::vector<CpuCore> places = socket ? packages_of(allowed) : allowed;
    const CpuCore& p = places[static_cast<std::size_t>(local) % places.size()];
    c.bound = true;
    c.pus = p.pus;
    c.core = socket ? -1 : p.index;
    c.package = p.package;
    c.numa = p.numa;
    c.text = std::string("bound to ") + (socket ? "package " : "core ") + std::to_string(p.index) + " (" +
             pu_list(p.pus) + ")";
    return c;
}

std::vector<std::pair<std::int32_t, std::int32_t>> binding_slots(BindTo mode, const std::vector<CpuCore>& allowed) {
    std::vector<std::pair<std::int32_t, std::int32_t>> out;
    if (mode == BindTo::none) return out;
    for (const CpuCore& p : mode == BindTo::socket ? packages_of(allowed) : allowed) out.emplace_back(p.package, p.numa);
    return out;
}

LocalPosition local_position(const std::vector<BusinessCard>& cards, int rank) {
    LocalPosition at{0, 0};
    const std::string& mine = cards[static_cast<std::size_t>(rank)].hostname;
    for (std::size_t r = 0; r < cards.size(); ++r) {
        if (cards[r].hostname != mine) continue;
        if (r < static_cast<std::size_t>(rank)) ++at.index;
        ++at.count;
    }
    return at;
}

void cards_bind(std::vector<BusinessCard>& cards) {
    std::map<std::string, int> on_host;
    for (const BusinessCard& c : cards) ++on_host[c.hostname];
    std::map<std::string, int> seen;
    for (BusinessCard& c : cards) {
        const int local = seen[c.hostname]++;
        if (c.bind_slots.empty() || !binding_fits(on_host[c.hostname], c.bind_cores)) continue;
        const auto& [package, numa] = c.bind_slots[static_cast<std::size_t>(local) % c.bind_slots.size()];
        c.package = package;
        c.numa = package < 0 ? -1 : numa;
    }
}

}  // namespace strata::wireup
