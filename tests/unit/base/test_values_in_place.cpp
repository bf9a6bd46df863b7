// The in-place wire form of the library's own values (base/little_endian.hpp): the
// exact bytes of known integers and doubles, and reading them back.
#include <catch2/catch.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "base/little_endian.hpp"
#include "tests/unit/bytes_of.hpp"

using strata::test::bytes_of;

namespace {

template <std::size_t N>
std::vector<std::byte> bytes_in(const std::array<std::byte, N>& a) {
    return {a.begin(), a.end()};
}

}  // namespace

TEST_CASE("integers are stored little-endian at their own width", "[wire]") {
    std::vector<std::byte> b(8);
    strata::base::store(std::int32_t{-2}, b.data());
    CHECK(std::vector<std::byte>(b.begin(), b.begin() + 4) == bytes_of({0xFE, 0xFF, 0xFF, 0xFF}));
    CHECK(strata::base::load<std::int32_t>(b.data()) == -2);
    strata::base::store(std::int32_t{0x01020304}, b.data());
    CHECK(std::vector<std::byte>(b.begin(), b.begin() + 4) == bytes_of({0x04, 0x03, 0x02, 0x01}));
    CHECK(strata::base::load<std::int32_t>(b.data()) == 0x01020304);
    strata::base::store(std::uint64_t{0x0102030405060708}, b.data());
    CHECK(b == bytes_of({0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01}));
    CHECK(strata::base::load<std::uint64_t>(b.data()) == 0x0102030405060708);
}

TEST_CASE("a length travels as 8 little-endian bytes", "[wire]") {
    CHECK(bytes_in(strata::base::u64(0)) == bytes_of({0, 0, 0, 0, 0, 0, 0, 0}));
    CHECK(bytes_in(strata::base::u64(300)) == bytes_of({0x2C, 0x01, 0, 0, 0, 0, 0, 0}));
    CHECK(bytes_in(strata::base::u64(0x8000000000000001)) == bytes_of({0x01, 0, 0, 0, 0, 0, 0, 0x80}));
    CHECK(strata::base::u64_of(strata::base::u64(300)) == 300);
    CHECK(strata::base::u64_of(strata::base::u64(0x8000000000000001)) == 0x8000000000000001);
}

TEST_CASE("a double travels as the little-endian bytes of its IEEE bits", "[wire]") {
    CHECK(bytes_in(strata::base::real(1.0)) == bytes_of({0, 0, 0, 0, 0, 0, 0xF0, 0x3F}));
    CHECK(bytes_in(strata::base::real(-2.5)) == bytes_of({0, 0, 0, 0, 0, 0, 0x04, 0xC0}));
    CHECK(bytes_in(strata::base::real(0.1)) == bytes_of({0x9A, 0x99, 0x99, 0x99, 0x99, 0x99, 0xB9, 0x3F}));
    for (double x : {0.0, 1.0, -2.5, 0.1, 1e300, 12.345678}) CHECK(strata::base::real_of(strata::base::real(x)) == x);
}
