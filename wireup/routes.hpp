// How each pair of processes connects over TCP, from their cards alone, so
// that both ends (and mpirun, which prints it) decide alike.
//
// A process whose card names a relay sits at a private site: no process of
// another site can connect to it. Processes of one site always connect
// directly (a site's own network reaches its nodes). Between sites:
//   both public      direct: either end connects (the lower rank's
//                    connection wins when both do at once);
//   a private end    dial: the private end connects to the public one; the
//                    public end, to start the link itself, asks the private
//                    end's relay to have it dial (dial_back);
//   both private     relayed: each end connects through its own site's relay,
//                    which forwards to the other site's relay and on to the
//                    peer; the bytes between the two ranks (their handshake,
//                    TLS, data) pass the relays unread.
#pragma once

#include <string>
#include <vector>

#include "wireup/protocol.hpp"

namespace strata::wireup {

enum class Route {
    direct,     // either end connects
    dial,       // only this end can connect
    dial_back,  // only the other end can: this one asks it through its relay
    relayed,    // neither can: through both sites' relays
};

// Whether a process is at a private site (its card names a relay).
inline bool is_private(const BusinessCard& c) { return !c.relay.empty(); }

// The route from `me` to `them`.
inline Route route_between(const BusinessCard& me, const BusinessCard& them) {
    if (me.site == them.site) return Route::direct;
    const bool mine = is_private(me);
    const bool theirs = is_private(them);
    if (mine && theirs) return Route::relayed;
    if (mine) return Route::dial;
    if (theirs) return Route::dial_back;
    return Route::direct;
}

const char* route_name(Route r);

// One line per pair of sites that is not direct, for mpirun -v:
// "routes: s1 <-> s2 relayed (relays 10.0.0.1:4000, 10.0.0.2:4001)".
// Empty when every pair connects directly.
std::string routes_text(const std::vector<BusinessCard>& cards);

}  // namespace strata::wireup
