// The ofi device: which peers a provider and vendor domain reach, and what
// happens without a provider. What every method does (ofi on libfabric's shm
// and tcp;ofi_rxm providers) is in test_conformance.cpp.
#include <catch2/catch.hpp>

#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "conformance.hpp"
#include "devices/ofi/ofi_method.hpp"

using namespace strata;
using namespace strata::dev::ofi;

namespace {

wireup::BusinessCard card_make(const std::string& host, const std::string& vendor) {
    wireup::BusinessCard c;
    c.hostname = host;
    c.host = host;
    c.vendor = vendor;
    return c;
}

// One method per card, on providers[i], published and connected.
std::vector<std::unique_ptr<OfiMethod>> connected(const std::vector<std::string>& providers,
                                                  std::vector<wireup::BusinessCard>& cards) {
    std::vector<std::unique_ptr<OfiMethod>> m;
    const int n = static_cast<int>(providers.size());
    for (int i = 0; i < n; ++i) {
        m.push_back(
            std::make_unique<OfiMethod>(adi::MethodContext{i, n, "k", "h"}, providers[static_cast<std::size_t>(i)]));
        REQUIRE(m.back()->publish(cards[static_cast<std::size_t>(i)]).ok());
        CHECK(m.back()->provider() == providers[static_cast<std::size_t>(i)]);
    }
    for (int i = 0; i < n; ++i) REQUIRE(m[static_cast<std::size_t>(i)]->connect_world(adi::World{cards, {}, i}).ok());
    return m;
}

// Whether this machine lacks one of `providers` (reported as skipped).
bool any_missing(std::initializer_list<const char*> providers) {
    for (const char* provider : providers) {
        if (std::optional<std::string> why = dev::testing::ofi_missing(provider)) {
            WARN("SKIPPED: " << *why);
            return true;
        }
    }
    return false;
}

}  // namespace

TEST_CASE("ofi: peers are reached only with the same provider and vendor domain") {
    if (any_missing({"shm", "tcp;ofi_rxm"})) return;
    std::vector<wireup::BusinessCard> cards = {card_make("h", "v"), card_make("h", "v"), card_make("h", "other"),
                                               card_make("h2", "v"), card_make("h", "v")};
    const std::vector<std::string> providers = {"shm", "shm", "shm", "shm", "tcp;ofi_rxm"};
    const auto m = connected(providers, cards);
    CHECK(m[0]->reaches(1));
    CHECK_FALSE(m[0]->reaches(0));  // itself: the self method's
    CHECK_FALSE(m[0]->reaches(2));  // another vendor domain
    CHECK_FALSE(m[0]->reaches(3));  // shm: another host
    CHECK_FALSE(m[0]->reaches(4));  // another provider
    CHECK_FALSE(m[4]->reaches(0));
    CHECK_FALSE(m[2]->reaches(0));
}

TEST_CASE("ofi: peers of another data representation are left to other methods") {
    if (any_missing({"shm", "tcp;ofi_rxm"})) return;
    // Ranks 2 and 3 store data otherwise (another byte order, as a process
    // under qemu-user would): the fabric would cross records in host byte
    // order, so neither side reaches the other, on either provider.
    std::vector<wireup::BusinessCard> cards = {card_make("h", "v"), card_make("h", "v"), card_make("h", "v"),
                                               card_make("h", "v"), card_make("h", "v")};
    for (auto& c : cards) c.publish(adi::kRepresentationEntry, std::string("L-little"));
    cards[2].publish(adi::kRepresentationEntry, std::string("B-big"));
    cards[4].publish(adi::kRepresentationEntry, std::string("B-big"));
    const std::vector<std::string> providers = {"shm", "shm", "shm", "tcp;ofi_rxm", "tcp;ofi_rxm"};
    const auto m = connected(providers, cards);
    CHECK(m[0]->reaches(1));
    CHECK(m[1]->reaches(0));
    for (int r : {0, 1}) CHECK_FALSE(m[static_cast<std::size_t>(r)]->reaches(2));
    for (int r : {0, 1}) CHECK_FALSE(m[2]->reaches(r));
    CHECK_FALSE(m[3]->reaches(4));
    CHECK_FALSE(m[4]->reaches(3));
}

TEST_CASE("ofi: no provider means no address and no peer; a bad one is named") {
    wireup::BusinessCard card = card_make("h", "v");
    OfiMethod off(adi::MethodContext{0, 2, "k", "h"}, "");
    REQUIRE(off.publish(card).ok());
    CHECK(card.entry("ofi").empty());
    REQUIRE(off.connect_world(adi::World{{card, card}, {}, 0}).ok());
    CHECK_FALSE(off.reaches(1));

    OfiMethod bad(adi::MethodContext{0, 2, "k", "h"}, "no_such_provider");
    const base::Status published = bad.publish(card);
    CHECK_FALSE(published);
    CHECK(published.error().find("no_such_provider") != std::string::npos);
    CHECK(published.error().find("fi_info") != std::string::npos);
}
