#include <catch2/catch.hpp>

#include "base/little_endian.hpp"

#include <array>
#include <cstdint>
#include <cstring>

using strata::base::byte_swap;
using strata::base::from_little;
using strata::base::to_little;

namespace {

// The bytes of `v` as they lie in memory (as a socket would send them).
template <typename T>
std::array<std::uint8_t, sizeof(T)> memory_of(T v) {
    std::array<std::uint8_t, sizeof(T)> out{};
    std::memcpy(out.data(), &v, sizeof v);
    return out;
}

}  // namespace

TEST_CASE("little endian: byte_swap reverses the bytes of every width") {
    STATIC_REQUIRE(byte_swap(std::uint8_t{0x12}) == 0x12);
    STATIC_REQUIRE(byte_swap(std::uint16_t{0x1234}) == 0x3412);
    STATIC_REQUIRE(byte_swap(std::uint32_t{0x12345678}) == 0x78563412u);
    STATIC_REQUIRE(byte_swap(std::uint64_t{0x0102030405060708}) == 0x0807060504030201ull);
    STATIC_REQUIRE(byte_swap(std::int32_t{-2}) == static_cast<std::int32_t>(0xfeffffffu));
    STATIC_REQUIRE(byte_swap(byte_swap(std::int32_t{-123456})) == -123456);
}

TEST_CASE("little endian: to_little lays out the value least significant byte first") {
    CHECK(memory_of(to_little(std::uint16_t{0x0102})) == std::array<std::uint8_t, 2>{0x02, 0x01});
    CHECK(memory_of(to_little(std::uint32_t{0x01020304})) == std::array<std::uint8_t, 4>{0x04, 0x03, 0x02, 0x01});
    CHECK(memory_of(to_little(std::uint64_t{0x0102030405060708})) ==
          std::array<std::uint8_t, 8>{0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01});
    CHECK(memory_of(to_little(std::int32_t{-2})) == std::array<std::uint8_t, 4>{0xfe, 0xff, 0xff, 0xff});
    CHECK(memory_of(to_little(std::int32_t{0x01020304})) == std::array<std::uint8_t, 4>{0x04, 0x03, 0x02, 0x01});
}

TEST_CASE("little endian: from_little reads back what to_little wrote") {
    for (const std::uint16_t v : {std::uint16_t{0}, std::uint16_t{1}, std::uint16_t{0x8001}, std::uint16_t{0xffff}})
        CHECK(from_little(to_little(v)) == v);
    for (const std::uint32_t v : {0u, 1u, 0x80000001u, 0xdeadbeefu}) CHECK(from_little(to_little(v)) == v);
    for (const std::uint64_t v : {0ull, 1ull, 0x8000000000000001ull, 0x0123456789abcdefull})
        CHECK(from_little(to_little(v)) == v);
    for (const std::int32_t v : {0, -1, 2147483647, -2147483647 - 1, 42}) CHECK(from_little(to_little(v)) == v);
    // Bytes received little-endian mean the same on any host.
    const std::array<std::uint8_t, 4> wire = {0x78, 0x56, 0x34, 0x12};
    std::uint32_t w = 0;
    std::memcpy(&w, wire.data(), sizeof w);
    CHECK(from_little(w) == 0x12345678u);
}
