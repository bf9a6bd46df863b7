// Converting packed data between representations (mpi/hetero/convert.hpp): integers
// of every size pair and byte order with their range checks, floating point
// by exact bit patterns worked out by hand, long double between the x87,
// IEEE quad and IEEE double formats with rounding, overflow and subnormals,
// the walk of derived types: sizes per representation, round trips and
// inputs that end early; and the header of packed data (mpi/hetero/foreign.hpp).
#include <catch2/catch.hpp>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "mpi/hetero/convert.hpp"
#include "mpi/hetero/foreign.hpp"

using namespace strata::mpi;

namespace {

using Bytes = std::vector<std::byte>;

Bytes bytes(std::initializer_list<int> v) {
    Bytes out;
    for (int b : v) out.push_back(static_cast<std::byte>(b));
    return out;
}

Representation little() {
    Representation r = Representation::native();
    r.big_endian = false;
    r.sizes = {2, 4, 8, 8, 16, 4};
    r.long_double = LongDoubleFormat::x87_extended;
    return r;
}

Representation big() {
    Representation r = little();
    r.big_endian = true;
    r.long_double = LongDoubleFormat::ieee_quad;
    return r;
}

// A 32-bit big-endian machine: long 4, long double an 8-byte IEEE double.
Representation big32() {
    Representation r = big();
    r.sizes[Representation::kLong] = 4;
    r.sizes[Representation::kLongDouble] = 8;
    r.long_double = LongDoubleFormat::ieee_double;
    return r;
}

TypemapPtr basic(MPI_Datatype h, MPI_Aint size) { return typemap_basic(h, size, size); }

// `count` elements of basic type `h` from `in` (laid out as `from`) as `to`.
Bytes run(MPI_Datatype h, MPI_Aint native_size, const Bytes& in, const Representation& from, const Representation& to,
          MPI_Aint count, bool* fits = nullptr) {
    const TypemapPtr t = basic(h, native_size);
    Bytes out(static_cast<std::size_t>(count * form_size(*t, to)), std::byte{0x55});
    const Converted c = convert(*t, count, in.data(), in.size(), from, out.data(), to);
    CHECK(c.in == in.size());
    CHECK(c.out == out.size());
    if (fits != nullptr) *fits = c.fits;
    return out;
}

template <class T>
Bytes raw(T v) {
    Bytes out(sizeof v);
    std::memcpy(out.data(), &v, sizeof v);
    return out;
}

}  // namespace

TEST_CASE("integers change byte order and size, and say when a value does not fit") {
    // int 0x01020304, -2 from little to big-endian.
    CHECK(run(MPI_INT, 4, bytes({4, 3, 2, 1, 0xFE, 0xFF, 0xFF, 0xFF}), little(), big(), 2) ==
          bytes({1, 2, 3, 4, 0xFF, 0xFF, 0xFF, 0xFE}));
    // long -2 from a 4-byte big-endian long to an 8-byte little-endian one: sign extended.
    CHECK(run(MPI_LONG, 8, bytes({0xFF, 0xFF, 0xFF, 0xFE}), big32(), little(), 1) ==
          bytes({0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}));
    // unsigned long 0xFFFFFFFE widens without a sign.
    CHECK(run(MPI_UNSIGNED_LONG, 8, bytes({0xFF, 0xFF, 0xFF, 0xFE}), big32(), little(), 1) ==
          bytes({0xFE, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0}));
    bool fits = true;
    // long 2^31 - 1 and -2^31 fit 4 bytes; 2^31 does not: clamped, and said.
    CHECK(run(MPI_LONG, 8, bytes({0xFF, 0xFF, 0xFF, 0x7F, 0, 0, 0, 0, 0, 0, 0, 0x80, 0xFF, 0xFF, 0xFF, 0xFF}), little(),
              big32(), 2, &fits) == bytes({0x7F, 0xFF, 0xFF, 0xFF, 0x80, 0, 0, 0}));
    CHECK(fits);
    CHECK(run(MPI_LONG, 8, bytes({0, 0, 0, 0x80, 0, 0, 0, 0}), little(), big32(), 1, &fits) ==
          bytes({0x7F, 0xFF, 0xFF, 0xFF}));
    CHECK_FALSE(fits);
    CHECK(run(MPI_UNSIGNED_LONG, 8, bytes({0, 0, 0, 0, 1, 0, 0, 0}), little(), big32(), 1, &fits) ==
          bytes({0xFF, 0xFF, 0xFF, 0xFF}));
    CHECK_FALSE(fits);
    // Fixed sizes stay what they are; bytes are never touched.
    CHECK(run(MPI_INTEGER8, 8, bytes({1, 2, 3, 4, 5, 6, 7, 8}), little(), big32(), 1) ==
          bytes({8, 7, 6, 5, 4, 3, 2, 1}));
    CHECK(run(MPI_SHORT, 2, bytes({1, 2}), little(), big(), 1) == bytes({2, 1}));
    CHECK(run(MPI_BYTE, 1, bytes({1, 2, 3}), little(), big(), 3) == bytes({1, 2, 3}));
    CHECK(run(MPI_CHAR, 1, bytes({1, 2, 3}), little(), big(), 3) == bytes({1, 2, 3}));
    // wchar_t is a code unit: read unsigned.
    CHECK(run(MPI_WCHAR, 4, bytes({0x00, 0x04, 0x01, 0x00}), little(), big(), 1) == bytes({0x00, 0x01, 0x04, 0x00}));
}

TEST_CASE("float, double and the complex types only change byte order") {
    CHECK(run(MPI_FLOAT, 4, raw(1.5f), little(), big(), 1) == bytes({0x3F, 0xC0, 0, 0}));
    CHECK(run(MPI_DOUBLE, 8, raw(-2.0), little(), big(), 1) == bytes({0xC0, 0, 0, 0, 0, 0, 0, 0}));
    CHECK(run(MPI_COMPLEX, 8, bytes({0, 0, 0xC0, 0x3F, 0, 0, 0, 0xC0}), little(), big(), 1) ==
          bytes({0x3F, 0xC0, 0, 0, 0xC0, 0, 0, 0}));
    // Between alike machines: a copy.
    CHECK(run(MPI_DOUBLE, 8, raw(3.25), big(), big(), 1) == raw(3.25));
}

TEST_CASE("long double between x87 extended, IEEE quad and IEEE double") {
    // 1.0 and -0.75 in x87 (little-endian, 10 bytes + 6 of padding) and IEEE quad (big-endian).
    const Bytes x87_one = bytes({0, 0, 0, 0, 0, 0, 0, 0x80, 0xFF, 0x3F, 0, 0, 0, 0, 0, 0});
    const Bytes quad_one = bytes({0x3F, 0xFF, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
    const Bytes x87_m075 = bytes({0, 0, 0, 0, 0, 0, 0, 0xC0, 0xFE, 0xBF, 0, 0, 0, 0, 0, 0});
    const Bytes quad_m075 = bytes({0xBF, 0xFE, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
    CHECK(run(MPI_LONG_DOUBLE, 16, x87_one, little(), big(), 1) == quad_one);
    CHECK(run(MPI_LONG_DOUBLE, 16, quad_one, big(), little(), 1) == x87_one);
    CHECK(run(MPI_LONG_DOUBLE, 16, x87_m075, little(), big(), 1) == quad_m075);
    CHECK(run(MPI_LONG_DOUBLE, 16, quad_m075, big(), little(), 1) == x87_m075);
    // To an 8-byte IEEE double: 1.0 = 0x3FF0000000000000.
    CHECK(run(MPI_LONG_DOUBLE, 16, x87_one, little(), big32(), 1) == bytes({0x3F, 0xF0, 0, 0, 0, 0, 0, 0}));
    CHECK(run(MPI_LONG_DOUBLE, 16, bytes({0x3F, 0xF0, 0, 0, 0, 0, 0, 0}), big32(), little(), 1) == x87_one);

    SECTION("quad to double rounds to nearest, ties to even") {
        // 1 + 2^-53 (a tie) rounds to 1; 1 + 3 * 2^-53 (a tie) rounds up to 1 + 2^-51;
        // 1 + 2^-53 + 2^-100 is above the tie: 1 + 2^-52.
        // Fraction bit k (2^-k) of a big-endian quad: byte 2 + (k - 1) / 8, bit 7 - (k - 1) % 8.
        Bytes tie = quad_one;
        tie[8] = std::byte{0x08};  // 2^-53
        CHECK(run(MPI_LONG_DOUBLE, 16, tie, big(), big32(), 1) == bytes({0x3F, 0xF0, 0, 0, 0, 0, 0, 0}));
        Bytes odd_tie = quad_one;
        odd_tie[8] = std::byte{0x18};  // 2^-52 (the last bit a double keeps) + 2^-53
        CHECK(run(MPI_LONG_DOUBLE, 16, odd_tie, big(), big32(), 1) == bytes({0x3F, 0xF0, 0, 0, 0, 0, 0, 2}));
        Bytes above = tie;
        above[15] = std::byte{0x01};  // + 2^-112
        CHECK(run(MPI_LONG_DOUBLE, 16, above, big(), big32(), 1) == bytes({0x3F, 0xF0, 0, 0, 0, 0, 0, 1}));
    }
    SECTION("a value beyond the receiver's range does not fit; infinities and NaN stay what they are") {
        bool fits = true;
        const Bytes huge = bytes({0x7F, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});  // 2^(0x7F00 - 16383)
        CHECK(run(MPI_LONG_DOUBLE, 16, huge, big(), big32(), 1, &fits) == bytes({0x7F, 0xF0, 0, 0, 0, 0, 0, 0}));
        CHECK_FALSE(fits);
        const Bytes inf = bytes({0xFF, 0xFF, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
        CHECK(run(MPI_LONG_DOUBLE, 16, inf, big(), big32(), 1, &fits) == bytes({0xFF, 0xF0, 0, 0, 0, 0, 0, 0}));
        CHECK(fits);
        const Bytes nan = bytes({0x7F, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
        CHECK(run(MPI_LONG_DOUBLE, 16, nan, big(), big32(), 1) == bytes({0x7F, 0xF8, 0, 0, 0, 0, 0, 0}));
        CHECK(run(MPI_LONG_DOUBLE, 16, nan, big(), little(), 1) ==
              bytes({0, 0, 0, 0, 0, 0, 0, 0xC0, 0xFF, 0x7F, 0, 0, 0, 0, 0, 0}));
    }
    SECTION("small values become subnormal, then zero") {
        // 2^-1074, the least double, from quad: exponent -1074 + 16383 = 15309 = 0x3BCD.
        const Bytes least = bytes({0x3B, 0xCD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
        CHECK(run(MPI_LONG_DOUBLE, 16, least, big(), big32(), 1) == bytes({0, 0, 0, 0, 0, 0, 0, 1}));
        // 2^-1076 rounds to zero (below half the least); -2^-1075 (a tie) to -0.
        const Bytes tiny = bytes({0x3B, 0xCB, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
        CHECK(run(MPI_LONG_DOUBLE, 16, tiny, big(), big32(), 1) == bytes({0, 0, 0, 0, 0, 0, 0, 0}));
        const Bytes half = bytes({0xBB, 0xCC, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
        CHECK(run(MPI_LONG_DOUBLE, 16, half, big(), big32(), 1) == bytes({0x80, 0, 0, 0, 0, 0, 0, 0}));
        // A double subnormal back to x87 is normal there.
        CHECK(run(MPI_LONG_DOUBLE, 16, bytes({0, 0, 0, 0, 0, 0, 0, 1}), big32(), little(), 1) ==
              bytes({0, 0, 0, 0, 0, 0, 0, 0x80, 0xCD, 0x3B, 0, 0, 0, 0, 0, 0}));
    }
    if (Representation::native().long_double == LongDoubleFormat::x87_extended) {
        SECTION("this machine's long doubles survive x87 -> quad -> x87 and match its own double conversion") {
            const long double values[] = {1.0L / 3, -LDBL_MAX,  LDBL_MIN,    LDBL_TRUE_MIN,
                                          -0.0L,    12345.678L, LDBL_EPSILON};
            for (const long double v : values) {
                const Bytes there = run(MPI_LONG_DOUBLE, 16, raw(v), Representation::native(), big(), 1);
                const Bytes back = run(MPI_LONG_DOUBLE, 16, there, big(), Representation::native(), 1);
                long double w = 0;
                std::memcpy(&w, back.data(), 10);
                CHECK(std::memcmp(&w, &v, 10) == 0);
                Representation d = Representation::native();
                d.sizes[Representation::kLongDouble] = 8;
                d.long_double = LongDoubleFormat::ieee_double;
                const double in_range = static_cast<double>(std::fmod(v, 1.0e300L));
                const Bytes as_double = run(MPI_LONG_DOUBLE, 16, raw(static_cast<long double>(std::fmod(v, 1.0e300L))),
                                            Representation::native(), d, 1);
                CHECK(as_double == raw(in_range));
            }
        }
    }
}

TEST_CASE("a derived type converts element by element, in every representation's size") {
    // struct { char; double; long[2]; short } (padding is not data), then a pair type.
    const TypemapPtr c = basic(MPI_CHAR, 1);
    const TypemapPtr d = basic(MPI_DOUBLE, 8);
    const TypemapPtr l = basic(MPI_LONG, 8);
    const TypemapPtr s = basic(MPI_SHORT, 2);
    const TypemapPtr i = basic(MPI_INT, 4);
    const TypemapPtr rec = typemap_build({{c, 1, 0}, {d, 1, 8}, {l, 2, 16}, {s, 1, 32}}, true);
    const TypemapPtr pair = typemap_pair(MPI_LONG_INT, l, i, 8, 16, 8);
    const TypemapPtr both = typemap_build({{rec, 2, 0}, {pair, 1, 80}}, true);
    CHECK(form_size(*rec, little()) == 1 + 8 + 16 + 2);
    CHECK(form_size(*rec, big32()) == 1 + 8 + 8 + 2);
    CHECK(form_size(*both, big32()) == 2 * 19 + 8);
    CHECK_FALSE(rec->bytes_only);
    CHECK(typemap_build({{c, 3, 0}}, false)->bytes_only);

    // Packed little-endian values: 'x', 1.5, -3, 70000, -2 (x2), then long 5, int -1.
    Bytes packed;
    const auto put = [&](const Bytes& b) { packed.insert(packed.end(), b.begin(), b.end()); };
    for (int k = 0; k < 2; ++k) {
        put(bytes({'x'}));
        put(raw(1.5));
        put(raw(std::int64_t{-3}));
        put(raw(std::int64_t{70000}));
        put(raw(std::int16_t{-2}));
    }
    put(raw(std::int64_t{5}));
    put(raw(std::int32_t{-1}));
    Bytes there(static_cast<std::size_t>(form_size(*both, big32())));
    const Converted out = convert(*both, 1, packed.data(), packed.size(), little(), there.data(), big32());
    CHECK(out.in == packed.size());
    CHECK(out.out == there.size());
    CHECK(out.fits);
    const Bytes first =
        bytes({'x', 0x3F, 0xF8, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFD, 0, 1, 0x11, 0x70, 0xFF, 0xFE});
    CHECK(Bytes(there.begin(), there.begin() + 19) == first);
    CHECK(Bytes(there.end() - 8, there.end()) == bytes({0, 0, 0, 5, 0xFF, 0xFF, 0xFF, 0xFF}));
    Bytes back(packed.size());
    CHECK(convert(*both, 1, there.data(), there.size(), big32(), back.data(), little()).out == packed.size());
    CHECK(back == packed);

    SECTION("an input that ends early converts its whole basic elements only") {
        // 19 + 1 + 8 + 3 bytes: a whole rec, then char, double and 3 bytes of a long.
        const Converted part = convert(*rec, 2, there.data(), 19 + 1 + 8 + 3, big32(), back.data(), little());
        CHECK(part.in == 19 + 1 + 8);
        CHECK(part.out == 27 + 1 + 8);
    }
}

TEST_CASE("which representations can be converted") {
    CHECK(convertible(big(), little()).ok());
    CHECK(convertible(big32(), little()).ok());
    Representation power = big();
    power.long_double = LongDoubleFormat::ibm_double_double;
    CHECK(convertible(power, power).ok());
    CHECK(convertible(power, little()).error() ==
          "long double in the IBM double-double format cannot be converted to x87 extended");
    Representation wide = little();
    wide.sizes[Representation::kLongLong] = 16;
    CHECK(convertible(wide, little()).error() == "an integer type of 16 bytes cannot be converted");
    CHECK(basic_is_bytes(MPI_PACKED));
    CHECK(basic_is_bytes(MPI_CHARACTER));
    CHECK_FALSE(basic_is_bytes(MPI_LOGICAL));
}

TEST_CASE("a packed buffer's header names its representation, and only a header reads as one") {
    Bytes header(strata::mpi::kPackedHeader, std::byte{0x55});
    strata::mpi::packed_header_write(header.data(), big32());
    CHECK(Bytes(header.begin(), header.begin() + 5) == bytes({'S', 'P', 'K', '1', 'B'}));
    CHECK(header.back() == std::byte{0});
    const auto read = strata::mpi::packed_header_read(header.data(), header.size());
    REQUIRE(read.ok());
    CHECK(*read == big32());
    CHECK_FALSE(strata::mpi::packed_header_read(header.data(), header.size() - 1).ok());
    header[0] = std::byte{'X'};
    CHECK(strata::mpi::packed_header_read(header.data(), header.size()).error().rfind(
              "the packed data does not start with the header MPI_Pack writes", 0) == 0);
}
