// The predefined reduction kernels: every allowed (operation, type) pair
// computes exactly what MPI-1 defines, every other pair is refused.
#include <catch2/catch.hpp>

#include <climits>
#include <complex>
#include <cstring>
#include <utility>
#include <cstdint>
#include <vector>

#include "mpi/op_kernels.hpp"

using strata::mpi::op_kernel;

namespace {

const MPI_Op kAllOps[] = {MPI_MAX, MPI_MIN,  MPI_SUM, MPI_PROD, MPI_LAND,   MPI_BAND,
                          MPI_LOR, MPI_BOR, MPI_LXOR, MPI_BXOR, MPI_MAXLOC, MPI_MINLOC};

template <class T>
std::vector<T> run(MPI_Op op, MPI_Datatype type, std::vector<T> in, std::vector<T> inout) {
    auto k = op_kernel(op, type, sizeof(T));
    REQUIRE(k.has_value());
    REQUIRE(k->element_bytes == sizeof(T));
    k->fn(in.data(), inout.data(), in.size());
    return inout;
}

bool allowed(MPI_Op op, MPI_Datatype t, std::size_t bytes) { return op_kernel(op, t, bytes).has_value(); }

}  // namespace

TEST_CASE("arithmetic operations on C integers and floating point", "[op]") {
    CHECK(run<int>(MPI_SUM, MPI_INT, {1, -5, 7}, {2, 3, -7}) == std::vector<int>{3, -2, 0});
    CHECK(run<int>(MPI_PROD, MPI_INT, {3, -2, 0}, {4, 5, 9}) == std::vector<int>{12, -10, 0});
    CHECK(run<int>(MPI_MAX, MPI_INT, {3, -2, 0}, {4, -5, 0}) == std::vector<int>{4, -2, 0});
    CHECK(run<int>(MPI_MIN, MPI_INT, {3, -2, 0}, {4, -5, 0}) == std::vector<int>{3, -5, 0});
    CHECK(run<short>(MPI_SUM, MPI_SHORT, {100, -1}, {200, -1}) == std::vector<short>{300, -2});
    CHECK(run<long>(MPI_MAX, MPI_LONG, {LONG_MIN, 9}, {LONG_MIN + 1, 10}) == std::vector<long>{LONG_MIN + 1, 10});
    CHECK(run<long long>(MPI_PROD, MPI_LONG_LONG_INT, {1LL << 40}, {3}) == std::vector<long long>{3LL << 40});
    CHECK(run<unsigned short>(MPI_PROD, MPI_UNSIGNED_SHORT, {65535}, {65535}) == std::vector<unsigned short>{1});
    CHECK(run<unsigned>(MPI_SUM, MPI_UNSIGNED, {UINT_MAX}, {2}) == std::vector<unsigned>{1});
    CHECK(run<unsigned long>(MPI_MIN, MPI_UNSIGNED_LONG, {7, 0}, {8, ULONG_MAX}) ==
          std::vector<unsigned long>{7, 0});
    CHECK(run<float>(MPI_SUM, MPI_FLOAT, {1.5f}, {2.25f}) == std::vector<float>{3.75f});
    CHECK(run<double>(MPI_PROD, MPI_DOUBLE, {-0.5, 3}, {4, 3}) == std::vector<double>{-2, 9});
    CHECK(run<long double>(MPI_MAX, MPI_LONG_DOUBLE, {-1.0L}, {-2.0L}) == std::vector<long double>{-1.0L});
    CHECK(run<double>(MPI_MIN, MPI_DOUBLE, {-1.0, 5}, {-2.0, 6}) == std::vector<double>{-2, 5});
}

TEST_CASE("signed overflow wraps instead of being undefined", "[op]") {
    CHECK(run<int>(MPI_SUM, MPI_INT, {INT_MAX}, {1}) == std::vector<int>{INT_MIN});
    CHECK(run<short>(MPI_PROD, MPI_SHORT, {SHRT_MAX}, {SHRT_MAX}) == std::vector<short>{1});
    CHECK(run<long long>(MPI_SUM, MPI_LONG_LONG_INT, {LLONG_MAX}, {LLONG_MAX}) == std::vector<long long>{-2});
}

TEST_CASE("logical operations give 0 or 1", "[op]") {
    CHECK(run<int>(MPI_LAND, MPI_INT, {0, 5, 0, -3}, {0, 0, 7, 2}) == std::vector<int>{0, 0, 0, 1});
    CHECK(run<int>(MPI_LOR, MPI_INT, {0, 5, 0, -3}, {0, 0, 7, 2}) == std::vector<int>{0, 1, 1, 1});
    CHECK(run<int>(MPI_LXOR, MPI_INT, {0, 5, 0, -3}, {0, 0, 7, 2}) == std::vector<int>{0, 1, 1, 0});
    CHECK(run<unsigned long>(MPI_LAND, MPI_UNSIGNED_LONG, {2}, {4}) == std::vector<unsigned long>{1});
}

TEST_CASE("bitwise operations on integers and bytes", "[op]") {
    CHECK(run<unsigned>(MPI_BAND, MPI_UNSIGNED, {0xF0F0u}, {0xFF00u}) == std::vector<unsigned>{0xF000u});
    CHECK(run<unsigned>(MPI_BOR, MPI_UNSIGNED, {0xF0F0u}, {0xFF00u}) == std::vector<unsigned>{0xFFF0u});
    CHECK(run<unsigned>(MPI_BXOR, MPI_UNSIGNED, {0xF0F0u}, {0xFF00u}) == std::vector<unsigned>{0x0FF0u});
    CHECK(run<unsigned char>(MPI_BXOR, MPI_BYTE, {0xA5, 0x0F}, {0xFF, 0x0F}) ==
          std::vector<unsigned char>{0x5A, 0x00});
    CHECK(run<short>(MPI_BAND, MPI_SHORT, {-1}, {0x1234}) == std::vector<short>{0x1234});
}

TEST_CASE("only the pairs MPI-1 defines are accepted", "[op]") {
    const MPI_Datatype ints[] = {MPI_SHORT, MPI_INT, MPI_LONG, MPI_LONG_LONG_INT, MPI_UNSIGNED_SHORT, MPI_UNSIGNED,
                                 MPI_UNSIGNED_LONG};
    const MPI_Datatype floats[] = {MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE};
    for (MPI_Op op : {MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD}) {
        for (MPI_Datatype t : ints) CHECK(allowed(op, t, 8));
        for (MPI_Datatype t : floats) CHECK(allowed(op, t, 8));
        CHECK_FALSE(allowed(op, MPI_BYTE, 1));
        CHECK_FALSE(allowed(op, MPI_2INT, 8));
    }
    for (MPI_Op op : {MPI_LAND, MPI_LOR, MPI_LXOR}) {
        for (MPI_Datatype t : ints) CHECK(allowed(op, t, 8));
        for (MPI_Datatype t : floats) CHECK_FALSE(allowed(op, t, 8));
        CHECK_FALSE(allowed(op, MPI_BYTE, 1));
    }
    for (MPI_Op op : {MPI_BAND, MPI_BOR, MPI_BXOR}) {
        for (MPI_Datatype t : ints) CHECK(allowed(op, t, 8));
        for (MPI_Datatype t : floats) CHECK_FALSE(allowed(op, t, 8));
        CHECK(allowed(op, MPI_BYTE, 1));
    }
    // Characters are not integers in MPI-1, and PACKED is no arithmetic type.
    for (MPI_Op op : kAllOps) {
        CHECK_FALSE(allowed(op, MPI_CHAR, 1));
        CHECK_FALSE(allowed(op, MPI_UNSIGNED_CHAR, 1));
        CHECK_FALSE(allowed(op, MPI_PACKED, 1));
        CHECK_FALSE(allowed(op, MPI_DATATYPE_NULL, 1));
    }
    for (MPI_Op op : {MPI_MAXLOC, MPI_MINLOC}) {
        CHECK_FALSE(allowed(op, MPI_INT, sizeof(int)));
        CHECK_FALSE(allowed(op, MPI_DOUBLE, sizeof(double)));
        CHECK(allowed(op, MPI_2INT, 2 * sizeof(int)));
        CHECK_FALSE(allowed(op, MPI_2INT, 3));  // neither layout
    }
    CHECK_FALSE(allowed(MPI_OP_NULL, MPI_INT, sizeof(int)));
}

namespace {

struct DoubleInt {
    double v;
    int i;
};
struct ShortInt {
    short v;
    int i;
};

}  // namespace

TEST_CASE("MAXLOC and MINLOC: larger/smaller value wins, ties keep the lower index", "[op]") {
    // MPI_2INT: {value, index} pairs
    auto two = [](MPI_Op op, std::vector<int> in, std::vector<int> io) {
        auto k = op_kernel(op, MPI_2INT, 2 * sizeof(int));
        REQUIRE(k);
        k->fn(in.data(), io.data(), in.size() / 2);
        return io;
    };
    const std::vector<int> in{5, 3, 7, 1, 4, 9, 4, 2};
    const std::vector<int> io{5, 1, 6, 0, 8, 0, 4, 6};
    CHECK(two(MPI_MAXLOC, in, io) == std::vector<int>{5, 1, 7, 1, 8, 0, 4, 2});
    CHECK(two(MPI_MINLOC, in, io) == std::vector<int>{5, 1, 6, 0, 4, 9, 4, 2});

    // The C struct layout (with padding) of MPI_DOUBLE_INT...
    std::vector<DoubleInt> a{{1.5, 4}, {2.0, 3}, {-1.0, 8}};
    std::vector<DoubleInt> b{{1.5, 2}, {1.0, 0}, {-1.0, 9}};
    auto k = op_kernel(MPI_MAXLOC, MPI_DOUBLE_INT, sizeof(DoubleInt));
    REQUIRE(k);
    k->fn(a.data(), b.data(), a.size());
    CHECK((b[0].v == 1.5 && b[0].i == 2));
    CHECK((b[1].v == 2.0 && b[1].i == 3));
    CHECK((b[2].v == -1.0 && b[2].i == 8));

    // ...and its packed form: the value, then the index right after it.
    constexpr std::size_t packed = sizeof(double) + sizeof(int);
    unsigned char pa[2 * packed], pb[2 * packed];
    auto put = [&](unsigned char* base, int n, double v, int i) {
        std::memcpy(base + n * packed, &v, sizeof v);
        std::memcpy(base + n * packed + sizeof(double), &i, sizeof i);
    };
    put(pa, 0, 3.0, 5);
    put(pa, 1, 0.5, 7);
    put(pb, 0, 3.0, 6);
    put(pb, 1, 0.25, 1);
    auto kp = op_kernel(MPI_MINLOC, MPI_DOUBLE_INT, packed);
    REQUIRE(kp);
    CHECK(kp->element_bytes == packed);
    kp->fn(pa, pb, 2);
    double v;
    int i;
    std::memcpy(&v, pb, sizeof v);
    std::memcpy(&i, pb + sizeof(double), sizeof i);
    CHECK((v == 3.0 && i == 5));
    std::memcpy(&v, pb + packed, sizeof v);
    std::memcpy(&i, pb + packed + sizeof(double), sizeof i);
    CHECK((v == 0.25 && i == 1));

    std::vector<ShortInt> s1{{-3, 2}}, s2{{-3, 1}};
    auto ks = op_kernel(MPI_MINLOC, MPI_SHORT_INT, sizeof(ShortInt));
    REQUIRE(ks);
    ks->fn(s1.data(), s2.data(), 1);
    CHECK((s2[0].v == -3 && s2[0].i == 1));
    for (MPI_Datatype t : {MPI_FLOAT_INT, MPI_LONG_INT, MPI_LONG_DOUBLE_INT}) {
        CHECK(op_kernel(MPI_MAXLOC, t, 0) == std::nullopt);
    }
    CHECK(op_kernel(MPI_MAXLOC, MPI_LONG_DOUBLE_INT, sizeof(long double) + sizeof(int)).has_value());
}

// The Fortran types, by MPI-1 4.9.2's categories: INTEGER is a Fortran
// integer (no logical operations), REAL and DOUBLE PRECISION floating point,
// LOGICAL logical, COMPLEX and DOUBLE COMPLEX complex, CHARACTER nothing.

TEST_CASE("Fortran INTEGER: arithmetic and bitwise, not logical", "[op][fortran]") {
    CHECK(run<int>(MPI_SUM, MPI_INTEGER, {1, -5, INT_MAX}, {2, 3, 1}) == std::vector<int>{3, -2, INT_MIN});
    CHECK(run<int>(MPI_PROD, MPI_INTEGER, {3, -2, 0}, {4, 5, 9}) == std::vector<int>{12, -10, 0});
    CHECK(run<int>(MPI_MAX, MPI_INTEGER, {3, -2, INT_MIN}, {4, -5, INT_MIN + 1}) ==
          std::vector<int>{4, -2, INT_MIN + 1});
    CHECK(run<int>(MPI_MIN, MPI_INTEGER, {3, -2}, {4, -5}) == std::vector<int>{3, -5});
    CHECK(run<int>(MPI_BAND, MPI_INTEGER, {0xF0F0, -1}, {0xFF00, 0x1234}) == std::vector<int>{0xF000, 0x1234});
    CHECK(run<int>(MPI_BOR, MPI_INTEGER, {0xF0F0}, {0xFF00}) == std::vector<int>{0xFFF0});
    CHECK(run<int>(MPI_BXOR, MPI_INTEGER, {0xF0F0}, {0xFF00}) == std::vector<int>{0x0FF0});
    for (MPI_Op op : {MPI_LAND, MPI_LOR, MPI_LXOR, MPI_MAXLOC, MPI_MINLOC}) {
        CHECK_FALSE(allowed(op, MPI_INTEGER, sizeof(int)));
    }
}

TEST_CASE("Fortran INTEGER1..8 and REAL4/8: integers and floats of their size", "[op][fortran]") {
    CHECK(run<std::int8_t>(MPI_SUM, MPI_INTEGER1, {100, -3}, {27, 1}) == std::vector<std::int8_t>{127, -2});
    CHECK(run<std::int8_t>(MPI_SUM, MPI_INTEGER1, {127}, {1}) == std::vector<std::int8_t>{-128});
    CHECK(run<std::int16_t>(MPI_MAX, MPI_INTEGER2, {-300, 7}, {200, -7}) == std::vector<std::int16_t>{200, 7});
    CHECK(run<std::int32_t>(MPI_BXOR, MPI_INTEGER4, {0xF0F0}, {0xFF00}) == std::vector<std::int32_t>{0x0FF0});
    constexpr std::int64_t big = std::int64_t{1} << 40;
    CHECK(run<std::int64_t>(MPI_SUM, MPI_INTEGER8, {big, -1}, {big, 2}) == std::vector<std::int64_t>{2 * big, 1});
    CHECK(run<std::int64_t>(MPI_PROD, MPI_INTEGER8, {big}, {4}) == std::vector<std::int64_t>{4 * big});
    CHECK(run<float>(MPI_MIN, MPI_REAL4, {1.5f, -1}, {2.25f, 1}) == std::vector<float>{1.5f, -1});
    CHECK(run<double>(MPI_SUM, MPI_REAL8, {0.5, 1e300}, {0.25, 1e300}) == std::vector<double>{0.75, 2e300});
    for (MPI_Op op : {MPI_LAND, MPI_LOR, MPI_LXOR, MPI_MAXLOC}) {
        CHECK_FALSE(allowed(op, MPI_INTEGER8, 8));
        CHECK_FALSE(allowed(op, MPI_REAL8, 8));
    }
    CHECK_FALSE(allowed(MPI_BAND, MPI_REAL4, 4));
}

TEST_CASE("Fortran REAL and DOUBLE PRECISION: MAX MIN SUM PROD only", "[op][fortran]") {
    CHECK(run<float>(MPI_SUM, MPI_REAL, {1.5f, -1}, {2.25f, 1}) == std::vector<float>{3.75f, 0});
    CHECK(run<float>(MPI_PROD, MPI_REAL, {-0.5f}, {4}) == std::vector<float>{-2});
    CHECK(run<float>(MPI_MAX, MPI_REAL, {-1, 7}, {-2, 8}) == std::vector<float>{-1, 8});
    CHECK(run<float>(MPI_MIN, MPI_REAL, {-1, 7}, {-2, 8}) == std::vector<float>{-2, 7});
    CHECK(run<double>(MPI_SUM, MPI_DOUBLE_PRECISION, {0.25, 1e300}, {0.5, 1e300}) ==
          std::vector<double>{0.75, 2e300});
    CHECK(run<double>(MPI_PROD, MPI_DOUBLE_PRECISION, {-0.5, 3}, {4, 3}) == std::vector<double>{-2, 9});
    CHECK(run<double>(MPI_MAX, MPI_DOUBLE_PRECISION, {-1.0}, {-2.0}) == std::vector<double>{-1.0});
    CHECK(run<double>(MPI_MIN, MPI_DOUBLE_PRECISION, {-1.0}, {-2.0}) == std::vector<double>{-2.0});
    for (MPI_Op op : {MPI_LAND, MPI_LOR, MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR, MPI_MAXLOC, MPI_MINLOC}) {
        CHECK_FALSE(allowed(op, MPI_REAL, sizeof(float)));
        CHECK_FALSE(allowed(op, MPI_DOUBLE_PRECISION, sizeof(double)));
    }
}

TEST_CASE("Fortran LOGICAL: any non-zero value is true, results are 1 or 0", "[op][fortran]") {
    // gfortran's .TRUE. is 1, but a LOGICAL from C or from TRANSFER may hold
    // any bit pattern: 2, -1 and INT_MIN are true too.
    const std::vector<int> a{0, 2, 0, -1, INT_MIN, 1};
    const std::vector<int> b{0, 0, 7, -1, 2, 1};
    CHECK(run<int>(MPI_LAND, MPI_LOGICAL, a, b) == std::vector<int>{0, 0, 0, 1, 1, 1});
    CHECK(run<int>(MPI_LOR, MPI_LOGICAL, a, b) == std::vector<int>{0, 1, 1, 1, 1, 1});
    CHECK(run<int>(MPI_LXOR, MPI_LOGICAL, a, b) == std::vector<int>{0, 1, 1, 0, 0, 0});
    for (MPI_Op op : {MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_BAND, MPI_BOR, MPI_BXOR, MPI_MAXLOC, MPI_MINLOC}) {
        CHECK_FALSE(allowed(op, MPI_LOGICAL, sizeof(int)));
    }
}

TEST_CASE("Fortran COMPLEX and DOUBLE COMPLEX: SUM and the complex product", "[op][fortran]") {
    using C = std::complex<float>;
    using Z = std::complex<double>;
    CHECK(run<C>(MPI_SUM, MPI_COMPLEX, {{1, 2}, {-1, 0.5f}}, {{3, 4}, {1, -0.5f}}) == std::vector<C>{{4, 6}, {0, 0}});
    // (1+2i)(3+4i) = -5+10i; (2-i)i = 1+2i; i*i = -1: a product of the parts
    // one by one would give 3+8i, 0-i and 0+i.
    CHECK(run<C>(MPI_PROD, MPI_COMPLEX, {{1, 2}, {2, -1}, {0, 1}}, {{3, 4}, {0, 1}, {0, 1}}) ==
          std::vector<C>{{-5, 10}, {1, 2}, {-1, 0}});
    CHECK(run<Z>(MPI_SUM, MPI_DOUBLE_COMPLEX, {{0.25, -1e300}}, {{0.5, 1e300}}) == std::vector<Z>{{0.75, 0}});
    CHECK(run<Z>(MPI_PROD, MPI_DOUBLE_COMPLEX, {{1.5, -2}, {0, 3}}, {{2, 4}, {0, 3}}) ==
          std::vector<Z>{{11, 2}, {-9, 0}});
    auto k = op_kernel(MPI_PROD, MPI_DOUBLE_COMPLEX, sizeof(Z));
    REQUIRE(k);
    CHECK(k->element_bytes == 16);
    // Complex numbers have no order and no bits to combine.
    for (MPI_Op op : {MPI_MAX, MPI_MIN, MPI_LAND, MPI_LOR, MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR, MPI_MAXLOC,
                      MPI_MINLOC}) {
        CHECK_FALSE(allowed(op, MPI_COMPLEX, sizeof(C)));
        CHECK_FALSE(allowed(op, MPI_DOUBLE_COMPLEX, sizeof(Z)));
    }
}

TEST_CASE("Fortran CHARACTER takes no reduction", "[op][fortran]") {
    for (MPI_Op op : kAllOps) CHECK_FALSE(allowed(op, MPI_CHARACTER, 1));
}

TEST_CASE("Fortran pair types: MAXLOC/MINLOC with an index of the value's type", "[op][fortran]") {
    // {value, index} pairs; ties keep the lower index.
    auto loc = [](MPI_Op op, MPI_Datatype t, auto in, auto io) {
        using V = typename decltype(in)::value_type;
        auto k = op_kernel(op, t, 2 * sizeof(V));
        REQUIRE(k);
        REQUIRE(k->element_bytes == 2 * sizeof(V));
        k->fn(in.data(), io.data(), in.size() / 2);
        return io;
    };
    const std::vector<int> in{5, 3, 7, 1, 4, 9, 4, 2, -3, 8};
    const std::vector<int> io{5, 1, 6, 0, 8, 0, 4, 6, -3, 8};
    CHECK(loc(MPI_MAXLOC, MPI_2INTEGER, in, io) == std::vector<int>{5, 1, 7, 1, 8, 0, 4, 2, -3, 8});
    CHECK(loc(MPI_MINLOC, MPI_2INTEGER, in, io) == std::vector<int>{5, 1, 6, 0, 4, 9, 4, 2, -3, 8});

    // The index is compared as a number of the value's type: -2.0 is below
    // -1.0 (as int bit patterns it would be above), and 0.5 below 0.75 (as
    // ints their low halves, both 0 for a double, would tie).
    const std::vector<float> rin{1.5f, 4, 2, 3, -1, 8, 0.5f, 2, 7, -2, 7, 0.5f};
    const std::vector<float> rio{1.5f, 2, 1, 0, -1, 9, 0.25f, 7, 7, -1, 7, 0.75f};
    CHECK(loc(MPI_MAXLOC, MPI_2REAL, rin, rio) == std::vector<float>{1.5f, 2, 2, 3, -1, 8, 0.5f, 2, 7, -2, 7, 0.5f});
    CHECK(loc(MPI_MINLOC, MPI_2REAL, rin, rio) == std::vector<float>{1.5f, 2, 1, 0, -1, 8, 0.25f, 7, 7, -2, 7, 0.5f});

    const std::vector<double> din{-2.5, 6, 1e300, 1, 3, 5, 4, -2, 4, 0.5};
    const std::vector<double> dio{-2.5, 5, -1e300, 2, 3, 4, 4, -1, 4, 0.75};
    CHECK(loc(MPI_MAXLOC, MPI_2DOUBLE_PRECISION, din, dio) ==
          std::vector<double>{-2.5, 5, 1e300, 1, 3, 4, 4, -2, 4, 0.5});
    CHECK(loc(MPI_MINLOC, MPI_2DOUBLE_PRECISION, din, dio) ==
          std::vector<double>{-2.5, 5, -1e300, 2, 3, 4, 4, -2, 4, 0.5});

    // Only MAXLOC and MINLOC, and only at the pair's size.
    const std::pair<MPI_Datatype, std::size_t> pairs[] = {
        {MPI_2INTEGER, 2 * sizeof(int)}, {MPI_2REAL, 2 * sizeof(float)}, {MPI_2DOUBLE_PRECISION, 2 * sizeof(double)}};
    for (const auto& [t, bytes] : pairs) {
        for (MPI_Op op : kAllOps) CHECK(allowed(op, t, bytes) == (op == MPI_MAXLOC || op == MPI_MINLOC));
        CHECK_FALSE(allowed(MPI_MAXLOC, t, bytes / 2));
        CHECK_FALSE(allowed(MPI_MINLOC, t, bytes + sizeof(int)));
    }
}
