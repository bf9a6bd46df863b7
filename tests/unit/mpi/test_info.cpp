// The object behind an MPI_Info handle (mpi/info.hpp), as library code uses
// it: keys in the order they were first set, a new value in the key's place,
// and the limits refused without storing anything.
#include <catch2/catch.hpp>

#include <cstddef>
#include <string>

#include "mpi/info.hpp"

using strata::mpi::Info;
using strata::mpi::kInfoKeyMax;
using strata::mpi::kInfoValueMax;

TEST_CASE("keys keep the order they were first set in", "[info]") {
    Info info;
    CHECK(info.size() == 0);
    CHECK(info.set("b", "2"));
    CHECK(info.set("a", "1"));
    CHECK(info.set("c", "3"));
    CHECK(info.set("a", "one"));  // a new value: a keeps its place
    REQUIRE(info.size() == 3);
    CHECK(info.key_nth(0) == "b");
    CHECK(info.key_nth(1) == "a");
    CHECK(info.key_nth(2) == "c");
    CHECK(info.get("a") == "one");
    CHECK_FALSE(info.get("A").has_value());

    CHECK(info.erase("b"));
    CHECK_FALSE(info.erase("b"));
    CHECK(info.set("b", ""));  // back, last, with an empty value
    REQUIRE(info.size() == 3);
    CHECK(info.key_nth(0) == "a");
    CHECK(info.key_nth(2) == "b");
    CHECK(info.get("b") == "");
}

TEST_CASE("keys and values beyond the limits are refused whole", "[info]") {
    Info info;
    const std::string key(kInfoKeyMax, 'k');
    const std::string value(kInfoValueMax, 'v');
    CHECK(info.set(key, value));
    CHECK_FALSE(info.set(key + "k", "v"));
    CHECK_FALSE(info.set("k", value + "v"));
    CHECK_FALSE(info.set("", "v"));
    REQUIRE(info.size() == 1);
    CHECK(info.get(key) == value);
    // With its NUL, each fits the buffer the standard tells C programs to give.
    static_assert(kInfoKeyMax + 1 == std::size_t{MPI_MAX_INFO_KEY});
    static_assert(kInfoValueMax + 1 == std::size_t{MPI_MAX_INFO_VAL});
}

TEST_CASE("a copy is independent", "[info]") {
    Info info;
    CHECK(info.set("x", "1"));
    Info copy = info;
    CHECK(copy.set("x", "2"));
    CHECK(copy.set("y", "3"));
    CHECK(info.get("x") == "1");
    CHECK(info.size() == 1);
    CHECK(copy.size() == 2);
}
