#include <catch2/catch.hpp>

#include "wireup/routes.hpp"

using strata::wireup::BusinessCard;
using strata::wireup::Route;
using strata::wireup::route_between;

namespace {

BusinessCard card(const std::string& site, const std::string& relay = "") {
    BusinessCard c;
    c.site = site;
    if (!relay.empty()) c.publish(strata::wireup::kRelayEntry, relay);
    return c;
}

}  // namespace

TEST_CASE("routes: one site direct; between sites by which ends are private", "[routes]") {
    const BusinessCard a1 = card("a", "10.0.0.1:4000");
    const BusinessCard a2 = card("a", "10.0.0.1:4000");
    const BusinessCard b = card("b", "10.0.0.2:4000");
    const BusinessCard c = card("c");
    const BusinessCard d = card("d");
    CHECK(route_between(a1, a2) == Route::direct);  // a private site's own network reaches its nodes
    CHECK(route_between(c, d) == Route::direct);
    CHECK(route_between(a1, b) == Route::relayed);
    CHECK(route_between(b, a1) == Route::relayed);
    CHECK(route_between(a1, c) == Route::out_relayed);
    CHECK(route_between(c, a1) == Route::in_relayed);
}

TEST_CASE("routes: mpirun -v's lines name the pairs of sites that are not direct", "[routes]") {
    const std::vector<BusinessCard> cards = {card("a", "10.0.0.1:4000"), card("a", "10.0.0.1:4000"),
                                             card("b", "10.0.0.2:4001"), card("c")};
    CHECK(strata::wireup::routes_text(cards) ==
          "routes: a <-> b through both relays (10.0.0.1:4000, 10.0.0.2:4001)\n"
          "routes: a <-> c through a's relay (10.0.0.1:4000)\n"
          "routes: b <-> c through b's relay (10.0.0.2:4001)");
    CHECK(strata::wireup::routes_text({card("c"), card("d")}).empty());
}

TEST_CASE("routes: a relay's report gets the sites of the relays it names", "[routes]") {
    const std::vector<BusinessCard> cards = {card("a", "10.0.0.1:4000"), card("b", "10.0.0.2:4001"),
                                             card("b", "10.0.0.2:4001"), card("c"), BusinessCard{}};
    using strata::wireup::relays_named;
    CHECK(relays_named("this site's relay (10.0.0.1:4000) lost its link to relay 10.0.0.2:4001: timed out", cards) ==
          "this site's relay (10.0.0.1:4000) lost its link to relay 10.0.0.2:4001 (site b): timed out");
    // Twice, at the end, and not an endpoint that only starts alike.
    CHECK(relays_named("relay 10.0.0.2:4001, relay 10.0.0.2:40011, relay 10.0.0.1:4000", cards) ==
          "relay 10.0.0.2:4001 (site b), relay 10.0.0.2:40011, relay 10.0.0.1:4000 (site a)");
    CHECK(relays_named("relay 10.0.0.2:4001 (site b)", cards) == "relay 10.0.0.2:4001 (site b)");
    CHECK(relays_named("no relay here", {}) == "no relay here");
}
