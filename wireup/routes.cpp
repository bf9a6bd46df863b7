#include "wireup/routes.hpp"

#include <map>
#include <utility>

namespace strata::wireup {

std::string routes_text(const std::vector<BusinessCard>& cards) {
    // One card per site stands for it: every process of a site has its relay.
    std::map<std::string, const BusinessCard*> sites;
    for (const BusinessCard& c : cards) sites.emplace(c.site, &c);
    std::string out;
    for (auto a = sites.begin(); a != sites.end(); ++a) {
        for (auto b = std::next(a); b != sites.end(); ++b) {
            const Route r = route_between(*a->second, *b->second);
            if (r == Route::direct) continue;
            if (!out.empty()) out += '\n';
            out += "routes: " + a->first + " <-> " + b->first + " ";
            if (r == Route::relayed) {
                out += "through both relays (" + relay_of(*a->second) + ", " + relay_of(*b->second) + ")";
            } else {
                const BusinessCard& priv = is_private(*a->second) ? *a->second : *b->second;
                out += "through " + priv.site + "'s relay (" + relay_of(priv) + ")";
            }
        }
    }
    return out;
}

std::string relays_named(std::string text, const std::vector<BusinessCard>& cards) {
    std::map<std::string, std::string> sites;  // "relay ENDPOINT" -> site
    for (const BusinessCard& c : cards)
        if (is_private(c)) sites.emplace("relay " + relay_of(c), c.site);
    for (const auto& [named, site] : sites) {
        const std::string tag = " (site " + site + ")";
        for (std::size_t at = text.find(named); at != std::string::npos; at = text.find(named, at)) {
            at += named.size();
            // Not another endpoint that starts alike (port 4001 in "...:40011").
            if (at < text.size() && text[at] >= '0' && text[at] <= '9') continue;
            if (text.compare(at, tag.size(), tag) == 0) continue;
            text.insert(at, tag);
            at += tag.size();
        }
    }
    return text;
}

}  // namespace strata::wireup
