// What members exchange while they build a communicator (mpi/comms/agreement.hpp),
// in its wire form (base/wire.hpp): the split contributions' exact bytes, the
// leaders' offer and result, and the checks on what another group sent.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "mpi/comms/agreement.hpp"

using namespace strata::mpi;
namespace wire = strata::base::wire;

TEST_CASE("a split contribution is its colour and key as little-endian int32", "[agreement]") {
    CHECK(wire::payload(SplitEntry{-32766, 0x0A0B}) == Bytes{0x02, 0x80, 0xFF, 0xFF, 0x0B, 0x0A, 0, 0});
    const auto back = wire::decode<SplitEntry>(wire::payload(SplitEntry{7, -1}));
    REQUIRE(back);
    CHECK(back->color == 7);
    CHECK(back->key == -1);
    // Every member's contribution has the same length, whatever its values:
    // the agreement gathers them as fixed-size blocks.
    CHECK(wire::payload(SplitEntry{}).size() == wire::payload(SplitEntry{-1, 2147483647}).size());
    const auto cut = wire::decode<SplitEntry>(Bytes{1, 0, 0, 0, 2, 0, 0});
    REQUIRE_FALSE(cut);
    CHECK(cut.error().find("'key'") != std::string::npos);
}

TEST_CASE("a group list holds at least one rank of the world and nothing else", "[agreement]") {
    const auto good = group_list_decode(wire::payload(std::vector<int>{0, 3, 1}), 4);
    REQUIRE(good);
    CHECK(*good == std::vector<int>{0, 3, 1});
    CHECK_FALSE(group_list_decode(wire::payload(std::vector<int>{0, 4}), 4));
    CHECK_FALSE(group_list_decode(wire::payload(std::vector<int>{2, -1}), 4));
    CHECK_FALSE(group_list_decode(wire::payload(std::vector<int>{2147483647}), 4));
    CHECK_FALSE(group_list_decode(wire::payload(std::vector<int>{}), 4));
    // A count of 2 with one rank behind it, and a count far beyond the bytes.
    CHECK_FALSE(group_list_decode(Bytes{2, 0, 0, 0, 1, 0, 0, 0}, 4));
    CHECK_FALSE(group_list_decode(Bytes{0xFF, 0xFF, 0xFF, 0x7F, 1, 0, 0, 0}, 4));
}

TEST_CASE("a leader's offer carries a whole context mask and its payload", "[agreement]") {
    ContextPool pool;
    pool.take(5);
    const LeaderOffer offer{ContextPool::bytes_of(pool.mask()), Bytes{9, 8, 7}};
    const auto back = wire::decode<LeaderOffer>(wire::payload(offer));
    REQUIRE(back);
    CHECK(back->payload == Bytes{9, 8, 7});
    const auto mask = ContextPool::mask_of(back->mask);
    REQUIRE(mask);
    CHECK(*mask == pool.mask());
    CHECK(ContextPool::lowest(*mask) == 2);

    LeaderOffer short_mask = offer;
    short_mask.mask.pop_back();
    const auto refused = wire::decode<LeaderOffer>(wire::payload(short_mask));
    REQUIRE_FALSE(refused);
    CHECK(refused.error().find("context mask") != std::string::npos);
}

TEST_CASE("a leader's result names a context pair or none", "[agreement]") {
    for (const std::int32_t pair : {-1, 0, ContextPool::kPairs - 1}) {
        const auto back = wire::decode<LeaderResult>(wire::payload(LeaderResult{pair, Bytes{1}}));
        REQUIRE(back);
        CHECK(back->pair == pair);
        CHECK(back->payload == Bytes{1});
    }
    CHECK_FALSE(wire::decode<LeaderResult>(wire::payload(LeaderResult{ContextPool::kPairs, {}})));
    CHECK_FALSE(wire::decode<LeaderResult>(wire::payload(LeaderResult{-2, {}})));
}

TEST_CASE("MPI_Intercomm_merge's payload is one bool", "[agreement]") {
    CHECK(wire::decode<bool>(wire::payload(true)).value() == true);
    CHECK(wire::decode<bool>(wire::payload(false)).value() == false);
    CHECK_FALSE(wire::decode<bool>(Bytes{2, 0, 0, 0}));
}
