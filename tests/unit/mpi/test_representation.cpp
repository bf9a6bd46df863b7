#include <catch2/catch.hpp>

#include <climits>
#include <cwchar>
#include <string>

#include "mpi/hetero/representation.hpp"

using strata::mpi::LongDoubleFormat;
using strata::mpi::Representation;

namespace {

// An s390x process: big-endian, LP64, long double IEEE quad.
Representation s390x() {
    Representation r;
    r.big_endian = true;
    r.sizes = {2, 4, 8, 8, 16, 4};
    r.long_double = LongDoubleFormat::ieee_quad;
    r.pairs = {{{8, 4}, {16, 8}, {16, 8}, {8, 4}, {32, 16}}};
    return r;
}

}  // namespace

TEST_CASE("the native representation is this build's") {
    const Representation& n = Representation::native();
    CHECK(n.big_endian == (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__));
    CHECK(n.sizes[Representation::kLong] == sizeof(long));
    CHECK(n.sizes[Representation::kLongDouble] == sizeof(long double));
    CHECK(n.sizes[Representation::kWchar] == sizeof(wchar_t));
    struct DoubleInt {
        double d;
        int i;
    };
    CHECK(n.pairs[Representation::kDoubleInt].size == sizeof(DoubleInt));
    CHECK(n.pairs[Representation::kDoubleInt].int_offset == offsetof(DoubleInt, i));
#if defined(__x86_64__)
    CHECK(n.long_double == LongDoubleFormat::x87_extended);
    CHECK(n.text() ==
          "little-endian; short 2, int 4, long 8, long long 8, long double 16 (x87 extended), wchar_t 4; "
          "pairs (size, int at): float_int 8/4, double_int 16/8, long_int 16/8, short_int 8/4, long_double_int 32/16");
#endif
}

TEST_CASE("a representation reads back from its card bytes") {
    for (const Representation& r : {Representation::native(), s390x()}) {
        const std::string bytes = r.bytes();
        const auto back = Representation::from_bytes(bytes);
        REQUIRE(back.ok());
        CHECK(*back == r);
    }
    CHECK_FALSE(Representation::native() == s390x());
    CHECK(s390x().text().rfind("big-endian; short 2, int 4, long 8, long long 8, long double 16 (IEEE quad)", 0) == 0);
}

TEST_CASE("malformed representation bytes are refused with a reason") {
    const std::string good = Representation::native().bytes();
    CHECK(Representation::from_bytes(std::string()).error().find("a representation of 0 bytes") == 0);
    CHECK(Representation::from_bytes(good + "x").error().find("was the peer built from another Strata?") !=
          std::string::npos);
    std::string order = good;
    order[0] = 'X';
    CHECK(Representation::from_bytes(order).error() == "a representation of unknown byte order");
    std::string size = good;
    size[1 + Representation::kLong] = 0;
    CHECK(Representation::from_bytes(size).error() == "a representation with a type of 0 bytes");
    std::string format = good;
    format[1 + Representation::kScalars] = 9;
    CHECK(Representation::from_bytes(format).error() == "a representation with an unknown long double format");
    std::string pair = good;
    const std::size_t first_pair = 1 + Representation::kScalars + 1;
    pair[first_pair + 1] = pair[first_pair];  // the int at the pair's size: outside it
    CHECK(Representation::from_bytes(pair).error() == "a representation with a pair type's int outside the pair");
}

TEST_CASE("MPI_Init's refusal names the rank, both representations and the reason") {
    const Representation& mine = Representation::native();
    const std::string text = strata::mpi::unconvertible_refusal("rank 2", s390x(), mine, "long double cannot be converted");
    CHECK(text.rfind("rank 2 stores data in a way this process cannot convert (rank 2: big-endian; ", 0) == 0);
    CHECK(text.find("; this process: " + mine.text() + "): long double cannot be converted") != std::string::npos);
}
