#include "wireup/topology.hpp"

#include <algorithm>
#include <map>
#include <numeric>
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

const char* level_name(int level) {
    switch (level) {
        case kWan: return "wide area";
        case kLan: return "local area";
        case kSystem: return "system area";
        case kVendor: return "vendor";
        case kPackage: return "package";
        case kNuma: return "NUMA node";
        default: return "unknown";
    }
}

Topology Topology::build(const std::vector<BusinessCard>& cards, const FastLink& fast) {
    const std::size_t n = cards.size();
    Topology t;
    t.depths_.assign(n, kVendor);
    t.colors_.assign(n, std::vector<int>(kLevels, -1));
    t.sites_.reserve(n);
    Numbering<std::string> lan;
    Numbering<std::pair<int, std::string>> system;
    for (std::size_t r = 0; r < n; ++r) {
        const BusinessCard& c = cards[r];
        t.sites_.push_back(c.site);
        auto& col = t.colors_[r];
        col[kWan] = 0;
        col[kLan] = lan(c.site);
        col[kSystem] = system({col[kLan], c.machine.empty() ? "host " + c.host : "machine " + c.machine});
    }
    // Vendor level: the groups of one machine linked by fast methods. A
    // process linked to nobody has no vendor level.
    std::map<int, std::vector<std::size_t>> by_machine;
    for (std::size_t r = 0; r < n; ++r) by_machine[t.colors_[r][kSystem]].push_back(r);
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
    // Packages are numbered per host: package 0 of two hosts that one vendor
    // fabric links are two packages.
    Numbering<std::tuple<int, std::string, int>> package;
    Numbering<std::tuple<int, int>> numa;
    for (std::size_t r = 0; r < n; ++r) {
        if (linked[r] == 0) continue;
        auto& col = t.colors_[r];
        col[kVendor] = vendor(groups.find(r));
        t.depths_[r] = kVendor + 1;
        // The hwloc levels, where the process's binding lies inside one object.
        if (cards[r].package < 0) continue;
        col[kPackage] = package({col[kVendor], cards[r].host, cards[r].package});
        t.depths_[r] = kPackage + 1;
        if (cards[r].numa < 0) continue;
        col[kNuma] = numa({col[kPackage], cards[r].numa});
        t.depths_[r] = kNuma + 1;
    }
    return t;
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
