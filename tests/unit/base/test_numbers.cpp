// base::parse_int, parse_size and parse_port_range: every type the product
// parses with, its bounds, overflow, signs and what may not follow a number.
#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>

#include "base/numbers.hpp"

using strata::base::IntFault;
using strata::base::parse_int;
using strata::base::parse_port_range;
using strata::base::parse_size;

namespace {

template <class T>
IntFault fault_of(std::string_view text, T low = std::numeric_limits<T>::min(), T high = std::numeric_limits<T>::max()) {
    return parse_int<T>(text, low, high).fault;
}

}  // namespace

TEST_CASE("parse_int reads a whole decimal number") {
    CHECK(*parse_int<int>("0") == 0);
    CHECK(*parse_int<int>("42") == 42);
    CHECK(*parse_int<int>("-42") == -42);
    CHECK(*parse_int<int>("-0") == 0);
    CHECK(*parse_int<int>("007") == 7);  // leading zeros are decimal, not octal
    CHECK(parse_int<int>("42").ok());
    CHECK(parse_int<int>("42").as_optional() == 42);
    CHECK_FALSE(parse_int<int>("x").as_optional());
}

TEST_CASE("parse_int refuses an empty text, signs it does not take, spaces and trailing garbage") {
    for (const char* text : {"", "-", "+", "+1", " 1", "1 ", "1\n", "\t1", "12abc", "1x", "0x10", "1.5", "1e3", "--1",
                             "- 1", "1-", "1,000", "abc"}) {
        INFO("'" << text << "'");
        CHECK(fault_of<int>(text) == IntFault::malformed);
        CHECK_FALSE(parse_int<int>(text));
    }
    // An unsigned type takes no sign at all: "-1" is not too small, it is not a number.
    CHECK(fault_of<unsigned>("-1") == IntFault::malformed);
    CHECK(fault_of<unsigned>("-0") == IntFault::malformed);
    CHECK(fault_of<std::uint64_t>("-1") == IntFault::malformed);
}

TEST_CASE("parse_int keeps to [low, high] and tells below from above") {
    CHECK(*parse_int<int>("1", 1, 65535) == 1);
    CHECK(*parse_int<int>("65535", 1, 65535) == 65535);
    CHECK(fault_of<int>("0", 1, 65535) == IntFault::below);
    CHECK(fault_of<int>("-5", 1, 65535) == IntFault::below);
    CHECK(fault_of<int>("65536", 1, 65535) == IntFault::above);
    CHECK(fault_of<int>("99999999999999999999", 1, 65535) == IntFault::above);
    CHECK(fault_of<int>("-99999999999999999999", 1, 65535) == IntFault::below);
    CHECK(fault_of<int>("12", 13, 13) == IntFault::below);
    CHECK(fault_of<int>("14", 13, 13) == IntFault::above);
    CHECK(*parse_int<int>("13", 13, 13) == 13);
    const auto refused = parse_int<int>("70000", 1, 65535);
    CHECK_FALSE(refused);
    CHECK(refused.value == 0);  // nothing of a refused number is kept
}

TEST_CASE("parse_int detects overflow at the edges of every type the product uses") {
    CHECK(*parse_int<int>("2147483647") == std::numeric_limits<int>::max());
    CHECK(*parse_int<int>("-2147483648") == std::numeric_limits<int>::min());
    CHECK(fault_of<int>("2147483648") == IntFault::above);
    CHECK(fault_of<int>("-2147483649") == IntFault::below);

    CHECK(*parse_int<unsigned>("4294967295") == std::numeric_limits<unsigned>::max());
    CHECK(fault_of<unsigned>("4294967296") == IntFault::above);

    CHECK(*parse_int<long>("9223372036854775807") == std::numeric_limits<long>::max());
    CHECK(*parse_int<long>("-9223372036854775808") == std::numeric_limits<long>::min());
    CHECK(fault_of<long>("9223372036854775808") == IntFault::above);
    CHECK(fault_of<long>("-9223372036854775809") == IntFault::below);

    CHECK(*parse_int<std::int64_t>("-9223372036854775808") == std::numeric_limits<std::int64_t>::min());
    CHECK(fault_of<std::int64_t>("9223372036854775808") == IntFault::above);

    CHECK(*parse_int<unsigned long long>("18446744073709551615") ==
          std::numeric_limits<unsigned long long>::max());
    CHECK(fault_of<unsigned long long>("18446744073709551616") == IntFault::above);

    CHECK(*parse_int<std::uint16_t>("65535") == 65535);
    CHECK(fault_of<std::uint16_t>("65536") == IntFault::above);
    // Overflow is found however many digits there are; a long run of zeros is still small.
    CHECK(fault_of<int>(std::string(400, '9')) == IntFault::above);
    CHECK(*parse_int<int>(std::string(400, '0') + "1") == 1);
}

TEST_CASE("parse_int reads only the view it is given") {
    const std::string_view whole = "1234:5678";
    CHECK(*parse_int<int>(whole.substr(0, 4)) == 1234);
    CHECK(*parse_int<int>(whole.substr(5)) == 5678);
    CHECK_FALSE(parse_int<int>(whole));
}

TEST_CASE("sizes parse with K/M/G suffixes and reject junk") {
    CHECK(parse_size("0") == 0);
    CHECK(parse_size("64K") == 65536);
    CHECK(parse_size("64k") == 65536);
    CHECK(parse_size("8m") == 8 << 20);
    CHECK(parse_size("1G") == 1 << 30);
    CHECK(parse_size("9223372036854775807") == std::numeric_limits<std::int64_t>::max());
    CHECK(parse_size("8589934591G") == std::int64_t{8589934591} << 30);
    CHECK_FALSE(parse_size("8589934592G"));  // 2^63: past an int64_t once shifted
    CHECK_FALSE(parse_size(""));
    CHECK_FALSE(parse_size("K"));
    CHECK_FALSE(parse_size("12KB"));
    CHECK_FALSE(parse_size("1x"));
    CHECK_FALSE(parse_size("-1"));
    CHECK_FALSE(parse_size("-1K"));
    CHECK_FALSE(parse_size("+1"));
    CHECK_FALSE(parse_size(" 1K"));
    CHECK_FALSE(parse_size("1 K"));
    CHECK_FALSE(parse_size("99999999999999999999"));
}

TEST_CASE("port ranges are LOW:HIGH within 1 to 65535, LOW first") {
    CHECK(parse_port_range("50000:50100") == std::pair{50000, 50100});
    CHECK(parse_port_range("1:65535") == std::pair{1, 65535});
    CHECK(parse_port_range("7:7") == std::pair{7, 7});
    for (const char* text : {"", ":", "0:10", "10:65536", "20:10", "10", "10:", ":10", "a:b", "1:2:3", " 1:2",
                             "1:2 ", "+1:2", "1:-2", "-1:2", "99999999999:1"}) {
        INFO("'" << text << "'");
        CHECK_FALSE(parse_port_range(text));
    }
}

TEST_CASE("parse_hex reads a whole hexadecimal number of an unsigned type") {
    using strata::base::parse_hex;
    CHECK(parse_hex<std::uint64_t>("7f3a00c0ffee") == 0x7f3a00c0ffeeull);
    CHECK(parse_hex<std::uint64_t>("FFFFFFFFFFFFFFFF") == std::numeric_limits<std::uint64_t>::max());
    CHECK(parse_hex<std::uint32_t>("0") == 0u);
    for (const char* bad : {"", "0x10", "-1", "+1", " 1", "1 ", "1g", "10000000000000000"}) {
        INFO(bad);
        CHECK_FALSE(parse_hex<std::uint64_t>(bad));
    }
    CHECK_FALSE(parse_hex<std::uint32_t>("100000000"));
}
