// The wire form of the multilevel algorithms' counts (collectives/multilevel.hpp):
// 8 little-endian bytes each, whatever size_t is.
#include <catch2/catch.hpp>

#include <cstddef>
#include <vector>

#include "collectives/multilevel.hpp"

using namespace strata::coll;

TEST_CASE("counts travel as little-endian 64-bit integers", "[multilevel]") {
    STATIC_REQUIRE(kCountBytes == 8);
    const std::vector<std::size_t> counts{1, 0x0102, 0, 0x12345678};
    const Bytes wire = counts_to_wire(counts);
    const unsigned expected[] = {0x01, 0,    0,    0,    0, 0, 0, 0,  //
                                 0x02, 0x01, 0,    0,    0, 0, 0, 0,  //
                                 0,    0,    0,    0,    0, 0, 0, 0,  //
                                 0x78, 0x56, 0x34, 0x12, 0, 0, 0, 0};
    REQUIRE(wire.size() == sizeof expected / sizeof expected[0]);
    for (std::size_t i = 0; i < wire.size(); ++i) CHECK(wire[i] == static_cast<std::byte>(expected[i]));
    CHECK(counts_from_wire(wire) == counts);
    CHECK(counts_to_wire({}).empty());
    CHECK(counts_from_wire({}).empty());
}
