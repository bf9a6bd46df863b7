#include "adi/method.hpp"

#include <algorithm>
#include <cstring>

namespace strata::adi {

Landing land_copy(Upcalls& up, int peer, const Header& h, Landing landing, std::size_t& landed,
                  const std::byte* data, std::size_t n) {
    while (n > 0 && landing.dest != nullptr && landing.capacity > 0) {
        if (landed == landing.capacity) {
            landing = up.on_landing_full(peer, h, landing);
            landed = 0;
            continue;
        }
        const std::size_t take = std::min(n, landing.capacity - landed);
        std::memcpy(landing.dest + landed, data, take);
        landed += take;
        data += take;
        n -= take;
    }
    return landing;
}

void Upcalls::on_packet(int peer, const Header& h, const std::byte* payload) {
    Landing land = on_header(peer, h);
    if (!carries_payload(h.type)) return;
    std::size_t landed = 0;
    land = land_copy(*this, peer, h, land, landed, payload, wire_payload(h));
    on_payload(peer, h, land);
}

int failures_report_all(Upcalls& up, PeerFailures& pending) {
    PeerFailures now;
    now.swap(pending);  // on_peer_failed may make the device note more
    for (auto& [peer, why] : now) up.on_peer_failed(peer, why);
    return static_cast<int>(now.size());
}

}  // namespace strata::adi
