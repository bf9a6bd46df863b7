// The wire form of what members exchange while they build a communicator
// (mpi/agreement.hpp): ByteWriter's and ByteReader's exact bytes, the split
// contributions, and the checks on what a peer sent.
#include <catch2/catch.hpp>

#include <cstddef>
#include <initializer_list>
#include <vector>

#include "mpi/agreement.hpp"
#include "tests/unit/bytes_of.hpp"

using namespace strata::mpi;
using strata::test::bytes_of;

TEST_CASE("ByteWriter writes ints as little-endian int32", "[agreement]") {
    ByteWriter w;
    w.put_int(1);
    w.put_int(-2);
    w.put_ints({3, 0x01020304});
    w.put_ints({});
    CHECK(w.bytes == bytes_of({0x01, 0,    0,    0,                                            //
                               0xFE, 0xFF, 0xFF, 0xFF,                                         //
                               0x02, 0,    0,    0,    0x03, 0, 0, 0, 0x04, 0x03, 0x02, 0x01,  //
                               0,    0,    0,    0}));

    ByteReader r(w.bytes);
    int a = 0, b = 0;
    std::vector<int> v, none{7};
    CHECK(r.get_int(a));
    CHECK(r.get_int(b));
    CHECK(r.get_ints(v));
    CHECK(r.get_ints(none));
    CHECK(a == 1);
    CHECK(b == -2);
    CHECK(v == std::vector<int>{3, 0x01020304});
    CHECK(none.empty());
    CHECK(r.rest().empty());
    CHECK_FALSE(r.get_int(a));
}

TEST_CASE("ByteReader refuses what does not hold what it claims", "[agreement]") {
    std::vector<int> v;
    int x = 0;
    const std::vector<std::byte> three = bytes_of({0x01, 0, 0});
    CHECK_FALSE(ByteReader(three).get_int(x));
    // A count of 2 with one int behind it.
    const std::vector<std::byte> short_list = bytes_of({0x02, 0, 0, 0, 0x05, 0, 0, 0});
    CHECK_FALSE(ByteReader(short_list).get_ints(v));
    // A negative count, and a count far beyond the bytes.
    const std::vector<std::byte> negative = bytes_of({0xFF, 0xFF, 0xFF, 0xFF});
    CHECK_FALSE(ByteReader(negative).get_ints(v));
    const std::vector<std::byte> huge = bytes_of({0xFF, 0xFF, 0xFF, 0x7F, 0x05, 0, 0, 0});
    CHECK_FALSE(ByteReader(huge).get_ints(v));
}

TEST_CASE("a group list holds only ranks of the world", "[agreement]") {
    const auto list_of = [](std::initializer_list<int> ranks) {
        ByteWriter w;
        w.put_ints(ranks);
        return w.bytes;
    };
    std::vector<int> v;
    const std::vector<std::byte> good = list_of({0, 3, 1});
    CHECK(ByteReader(good).get_ranks(v, 4));
    CHECK(v == std::vector<int>{0, 3, 1});
    const std::vector<std::byte> too_high = list_of({0, 4});
    CHECK_FALSE(ByteReader(too_high).get_ranks(v, 4));
    const std::vector<std::byte> negative = list_of({2, -1});
    CHECK_FALSE(ByteReader(negative).get_ranks(v, 4));
    const std::vector<std::byte> huge = list_of({2147483647});
    CHECK_FALSE(ByteReader(huge).get_ranks(v, 4));
}

TEST_CASE("a split contribution is its colour and key as little-endian int32", "[agreement]") {
    ByteWriter w;
    SplitEntry{-32766, 0x0A0B}.write(w);
    SplitEntry{7, -1}.write(w);
    REQUIRE(w.bytes.size() == 2 * SplitEntry::kBytes);
    CHECK(w.bytes == bytes_of({0x02, 0x80, 0xFF, 0xFF, 0x0B, 0x0A, 0, 0,  //
                               0x07, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF}));
    ByteReader r(w.bytes);
    SplitEntry a, b, c;
    CHECK(a.read(r));
    CHECK(b.read(r));
    CHECK_FALSE(c.read(r));
    CHECK(a.color == -32766);
    CHECK(a.key == 0x0A0B);
    CHECK(b.color == 7);
    CHECK(b.key == -1);
}
