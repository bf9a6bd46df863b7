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
                out += "through both relays (" + a->second->relay + ", " + b->second->relay + ")";
            } else {
                const BusinessCard& priv = is_private(*a->second) ? *a->second : *b->second;
                out += "through " + priv.site + "'s relay (" + priv.relay + ")";
            }
        }
    }
    return out;
}

}  // namespace strata::wireup
