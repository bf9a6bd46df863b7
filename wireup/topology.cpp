#include "wireup/topology.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <set>
#include <tuple>

namespace strata::wireup {

namespace {

// Numbers keys by first appearance: the same key, the same small integer.
template <typename Key>
class Numbering {
public:
    int operator()(const Key& k) {
        const auto [it, fresh] = seen_.try_emplace(k, static_cast<int>(seen_.size()));
        return it->second;
    }

private:
    std::map<Key, int> seen_;
};

// Union-find over ranks, for the groups of processes linked by fast methods.
class Components {
public:
    explicit Components(std::size_t n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), std::size_t{0}); }
    std::size_t find(std::size_t x) {
        while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
        return x;
    }
    void join(std::size_t a, std::size_t b) { parent_[find(a)] = find(b); }

private:
    std::vector<std::size_t> parent_;
};

}  // namespace

const char* level_name(int kind) {
    switch (kind) {
        case kWan: return "wide area";
        case kLan: return "local area";
        case kSystem: return "system area";
        case kVendor: return "vendor";
        case kNode: return "node";
        case kPackage: return "package";
        case kNuma: return "NUMA node";
        default: return "unknown";
    }
}

Topology Topology::build(const std::vector<BusinessCard>& cards, const FastLink& fast,
                         const std::vector<CpuPlace>& places) {
    const std::size_t n = cards.size();
    Topology t;
    t.depths_.assign(n, 0);
    t.colors_.assign(n, std::vector<int>(kLevels, -1));
    t.kinds_.assign(n, std::vector<int>(kLevels, -1));
    t.sites_.reserve(n);
    Numbering<std::string> lan;
    // A machine is its label, else its subjob (the flag keeps a label apart from a subjob).
    Numbering<std::tuple<int, bool, std::string, std::uint32_t>> system;
    for (std::size_t r = 0; r < n; ++r) {
        const BusinessCard& c = cards[r];
        t.sites_.push_back(c.site);
        const int site = lan(c.site);
        const bool labelled = !c.machine.empty();
        t.add_level(r, kWan, 0);
        t.add_level(r, kLan, site);
        t.add_level(r, kSystem, system({site, labelled, c.machine, labelled ? 0 : c.subjob}));
    }
    t.vendor_levels(cards, fast);
    t.lower_levels(cards, places);
    return t;
}

void Topology::add_level(std::size_t rank, int kind, int color) {
    const auto at = static_cast<std::size_t>(depths_[rank]++);
    colors_[rank][at] = color;
    kinds_[rank][at] = kind;
}

void Topology::vendor_levels(const std::vector<BusinessCard>& cards, const FastLink& fast) {
    // The groups of one machine linked by fast methods. A process linked to
    // nobody has no vendor level.
    const std::size_t n = cards.size();
    std::map<int, std::vector<std::size_t>> by_machine;
    for (std::size_t r = 0; r < n; ++r) by_machine[colors_[r][kSystem]].push_back(r);
    Components groups(n);
    std::vector<int> linked(n, 0);
    for (const auto& [machine, members] : by_machine) {
        for (std::size_t i = 0; i < members.size(); ++i) {
            for (std::size_t j = i + 1; j < members.size(); ++j) {
                const std::size_t a = members[i];
                const std::size_t b = members[j];
                if (!fast(cards[a], cards[b])) continue;
                groups.join(a, b);
                linked[a] = linked[b] = 1;
            }
        }
    }
    Numbering<std::size_t> vendor;
    for (std::size_t r = 0; r < n; ++r) {
        if (linked[r] != 0) add_level(r, kVendor, vendor(groups.find(r)));
    }
}

void Topology::lower_levels(const std::vector<BusinessCard>& cards, const std::vector<CpuPlace>& places) {
    // The vendor groups with a node level: spread over hosts, two on one somewhere.
    std::map<int, std::map<std::string, int>> hosts;  // vendor colour -> host -> its processes
    for (std::size_t r = 0; r < cards.size(); ++r) {
        if (depths_[r] > kVendor) ++hosts[colors_[r][kVendor]][cards[r].host];
    }
    std::set<int> noded;
    for (const auto& [group, on] : hosts) {
        const bool shared = std::any_of(on.begin(), on.end(), [](const auto& h) { return h.second > 1; });
        if (on.size() > 1 && shared) noded.insert(group);
    }
    // Colours per level, keyed by the kind, the colour above, the host and the
    // object's index: package 0 of two hosts one fabric links are two packages.
    std::vector<Numbering<std::tuple<int, int, std::string, int>>> numbering(kLevels);
    const auto below = [&](std::size_t r, int kind, int index) {
        const auto level = static_cast<std::size_t>(depths_[r]);
        add_level(r, kind, numbering[level]({kind, colors_[r][level - 1], cards[r].host, index}));
    };
    for (std::size_t r = 0; r < cards.size(); ++r) {
        if (depths_[r] <= kVendor) continue;
        if (noded.count(colors_[r][kVendor]) != 0) below(r, kNode, 0);
        // The package and NUMA node levels, where the process's binding lies inside one.
        if (r >= places.size() || places[r].package < 0) continue;
        below(r, kPackage, places[r].package);
        if (places[r].numa >= 0) below(r, kNuma, places[r].numa);
    }
}

int Topology::level_of(int rank, int kind) const {
    for (int l = 0; l < depth(rank); ++l) {
        if (this->kind(rank, l) == kind) return l;
    }
    return -1;
}

std::string Topology::level_text(int level) const {
    if (level <= kVendor) return level_name(level);
    std::set<int> kinds;
    for (int r = 0; r < size(); ++r) {
        if (level < depth(r)) kinds.insert(kind(r, level));
    }
    std::string out;
    for (int k : kinds) {
        if (!out.empty()) out += " or ";
        out += level_name(k);
    }
    return out;
}

int Topology::link_level(int a, int b) const {
    const auto& ca = colors_[static_cast<std::size_t>(a)];
    const auto& cb = colors_[static_cast<std::size_t>(b)];
    int level = 0;
    while (level + 1 < kLevels && ca[static_cast<std::size_t>(level) + 1] >= 0 &&
           ca[static_cast<std::size_t>(level) + 1] == cb[static_cast<std::size_t>(level) + 1]) {
        ++level;
    }
    return level;
}

int Topology::max_depth() const {
    int d = 0;
    for (int x : depths_) d = std::max(d, x);
    return d;
}

std::string Topology::text() const {
    std::string out;
    for (int r = 0; r < size(); ++r) {
        out += "rank " + std::to_string(r) + ": depth " + std::to_string(depth(r)) + ", colours";
        // ' ' appended alone: GCC 12 at -O3 warns -Wrestrict inside libstdc++ on a
        // one-character literal + std::string&& (GCC bug 105329).
        for (int l = 0; l < depth(r); ++l) {
            out += ' ';
            out += std::to_string(color(r, l));
        }
        out += " (site " + site(r) + ")\n";
    }
    return out;
}

}  // namespace strata::wireup
