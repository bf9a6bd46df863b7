// How each pair of processes connects over TCP, from their cards alone, so
// that both ends (and mpirun, which prints it) decide alike.
//
// A process whose card names a relay sits at a private site: it can reach,
// and be reached from, nothing outside its site but through the site's
// relay (on the site's gateway, which both sides reach). Processes of one
// site always connect directly (a site's own network reaches its nodes).
// Between sites a connection goes
//   both public      direct;
//   from private     through this end's relay, which forwards it to the
//   to public        public end's listener;
//   from public      through the other end's relay, which offers it to the
//   to private       private end (relay/protocol.hpp: egress and ingress);
//   both private     through both relays, which carry it between them.
// Either end may open the link, and the lower rank's connection wins when
// both do at once, as between direct ends. The bytes between the two ranks
// (their handshake, TLS, data) pass the relays unread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "wireup/protocol.hpp"

namespace strata::wireup {

enum class Route {
    direct,
    out_relayed,  // this end private, the other public: through this end's relay
    in_relayed,   // this end public, the other private: through the other end's relay
    relayed,      // both private: through both relays
};

// The card entry that names the relay of the process's site
// ("a.b.c.d:port", env::kRelay) when the site is private (no other site can
// connect to it); the TCP method publishes it.
inline constexpr std::string_view kRelayEntry = "relay";
inline const std::string& relay_of(const BusinessCard& c) { return c.entry(kRelayEntry); }

// Whether a process is at a private site (its card names a relay).
inline bool is_private(const BusinessCard& c) { return !relay_of(c).empty(); }

// The route from `me` to `them`.
inline Route route_between(const BusinessCard& me, const BusinessCard& them) {
    if (me.site == them.site) return Route::direct;
    const bool mine = is_private(me);
    const bool theirs = is_private(them);
    if (mine && theirs) return Route::relayed;
    if (mine) return Route::out_relayed;
    if (theirs) return Route::in_relayed;
    return Route::direct;
}

// One line per pair of sites that is not direct, for mpirun -v:
// "routes: s1 <-> s2 through both relays (10.0.0.1:4000, 10.0.0.2:4001)".
// Empty when every pair connects directly.
std::string routes_text(const std::vector<BusinessCard>& cards);

// `text` with the site added after each relay it names ("relay
// 10.0.0.2:4001" becomes "relay 10.0.0.2:4001 (site s2)"), for messages
// that come from a relay, which knows endpoints, not sites.
std::string relays_named(std::string text, const std::vector<BusinessCard>& cards);

}  // namespace strata::wireup
