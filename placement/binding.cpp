#include "placement/binding.hpp"

#include <algorithm>
#include <map>
#include <string>

namespace strata::placement {

namespace {

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

namespace {

// Card `r`'s Place, or why its entry is not one.
base::Result<Place> place_read(const BusinessCard& card, std::size_t r) {
    base::Result<Place> p = wireup::entry_message<Place>(card, kPlacementEntry);
    if (!p) return base::Error{"rank " + std::to_string(r) + "'s card: " + p.error()};
    return p;
}

}  // namespace

base::Result<std::vector<wireup::CpuPlace>> cards_bind(std::vector<BusinessCard>& cards) {
    std::map<std::string, int> on_host;
    for (const BusinessCard& c : cards) ++on_host[c.hostname];
    std::map<std::string, int> seen;
    std::vector<wireup::CpuPlace> out;
    for (std::size_t r = 0; r < cards.size(); ++r) {
        BusinessCard& c = cards[r];
        const int local = seen[c.hostname]++;
        base::Result<Place> p = place_read(c, r);
        if (!p) return p.failure();
        if (!p->bind_slots.empty() && binding_fits(on_host[c.hostname], p->bind_cores)) {
            const auto& [package, numa] = p->bind_slots[static_cast<std::size_t>(local) % p->bind_slots.size()];
            p->package = package;
            p->numa = package < 0 ? -1 : numa;
            wireup::publish_message(c, kPlacementEntry, *p);
        }
        out.push_back(wireup::CpuPlace{p->package, p->numa});
    }
    return out;
}

base::Result<std::vector<wireup::CpuPlace>> places_of(const std::vector<BusinessCard>& cards) {
    std::vector<wireup::CpuPlace> out;
    for (std::size_t r = 0; r < cards.size(); ++r) {
        const base::Result<Place> p = place_read(cards[r], r);
        if (!p) return p.failure();
        out.push_back(wireup::CpuPlace{p->package, p->numa});
    }
    return out;
}

}  // namespace strata::placement
