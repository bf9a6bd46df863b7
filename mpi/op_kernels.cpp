#include "mpi/op_kernels.hpp"

#include <complex>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace strata::mpi {

namespace {

// Elements are loaded with memcpy: dense buffers carry no alignment promise.
template <class T, class F>
void each(const void* in, void* inout, std::size_t n) {
    const auto* a = static_cast<const unsigned char*>(in);
    auto* b = static_cast<unsigned char*>(inout);
    for (std::size_t i = 0; i < n; ++i) {
        T x, y;
        std::memcpy(&x, a + i * sizeof(T), sizeof(T));
        std::memcpy(&y, b + i * sizeof(T), sizeof(T));
        const T z = F::template apply<T>(x, y);
        std::memcpy(b + i * sizeof(T), &z, sizeof(T));
    }
}

// A complex sum is the sum of the real parts and of the imaginary parts: n
// complex elements are 2n elements of T, a loop the compiler vectorizes
// (the loop over std::complex<T> does not).
template <class T, class F>
void each_part(const void* in, void* inout, std::size_t n) {
    each<T, F>(in, inout, 2 * n);
}

// Integer sums and products wrap (two's complement) instead of overflowing,
// which C leaves undefined: compute in an unsigned type at least int wide.
template <class T>
using Wide = std::conditional_t<std::is_integral_v<T>,
                                std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<
                                    std::conditional_t<std::is_integral_v<T>, T, int>>>,
                                T>;

struct Max { template <class T> static T apply(T a, T b) { return a > b ? a : b; } };
struct Min { template <class T> static T apply(T a, T b) { return a < b ? a : b; } };
struct Sum { template <class T> static T apply(T a, T b) { return static_cast<T>(static_cast<Wide<T>>(a) + static_cast<Wide<T>>(b)); } };
struct Prod { template <class T> static T apply(T a, T b) { return static_cast<T>(static_cast<Wide<T>>(a) * static_cast<Wide<T>>(b)); } };
struct Land { template <class T> static T apply(T a, T b) { return static_cast<T>((a != 0) && (b != 0)); } };
struct Lor { template <class T> static T apply(T a, T b) { return static_cast<T>((a != 0) || (b != 0)); } };
struct Lxor { template <class T> static T apply(T a, T b) { return static_cast<T>((a != 0) != (b != 0)); } };
struct Band { template <class T> static T apply(T a, T b) { return static_cast<T>(a & b); } };
struct Bor { template <class T> static T apply(T a, T b) { return static_cast<T>(a | b); } };
struct Bxor { template <class T> static T apply(T a, T b) { return static_cast<T>(a ^ b); } };

// MAXLOC/MINLOC on (value, index) pairs `Stride` bytes apart with the index,
// of type I, at `IndexAt`. Ties keep the lower index (MPI-1 4.9.3).
template <class V, class I, bool Greatest, std::size_t Stride, std::size_t IndexAt>
void loc(const void* in, void* inout, std::size_t n) {
    const auto* a = static_cast<const unsigned char*>(in);
    auto* b = static_cast<unsigned char*>(inout);
    for (std::size_t i = 0; i < n; ++i) {
        V u, v;
        I iu, iv;
        std::memcpy(&u, a + i * Stride, sizeof(V));
        std::memcpy(&iu, a + i * Stride + IndexAt, sizeof(I));
        std::memcpy(&v, b + i * Stride, sizeof(V));
        std::memcpy(&iv, b + i * Stride + IndexAt, sizeof(I));
        const bool take = Greatest ? u > v : u < v;
        if (take) {
            v = u;
            iv = iu;
        } else if (u == v && iu < iv) {
            iv = iu;
        }
        std::memcpy(b + i * Stride, &v, sizeof(V));
        std::memcpy(b + i * Stride + IndexAt, &iv, sizeof(I));
    }
}

template <class V, class I>
struct Pair {
    V v;
    I i;
};

template <class V, class I, bool Greatest>
std::optional<OpKernel> loc_kernel(std::size_t basic_bytes) {
    using P = Pair<V, I>;
    constexpr std::size_t packed = sizeof(V) + sizeof(I);
    if (basic_bytes == sizeof(P)) return OpKernel{loc<V, I, Greatest, sizeof(P), offsetof(P, i)>, sizeof(P)};
    if (basic_bytes == packed) return OpKernel{loc<V, I, Greatest, packed, sizeof(V)>, packed};
    return std::nullopt;
}

// The pair types: C's hold an int index, Fortran's an index of the value's
// type (a Fortran program declares them as arrays of two).
template <bool Greatest>
std::optional<OpKernel> loc_typed(MPI_Datatype t, std::size_t basic_bytes) {
    if (t == MPI_FLOAT_INT) return loc_kernel<float, int, Greatest>(basic_bytes);
    if (t == MPI_DOUBLE_INT) return loc_kernel<double, int, Greatest>(basic_bytes);
    if (t == MPI_LONG_INT) return loc_kernel<long, int, Greatest>(basic_bytes);
    if (t == MPI_2INT) return loc_kernel<int, int, Greatest>(basic_bytes);
    if (t == MPI_SHORT_INT) return loc_kernel<short, int, Greatest>(basic_bytes);
    if (t == MPI_LONG_DOUBLE_INT) return loc_kernel<long double, int, Greatest>(basic_bytes);
    if (t == MPI_2INTEGER) return loc_kernel<int, int, Greatest>(basic_bytes);
    if (t == MPI_2REAL) return loc_kernel<float, float, Greatest>(basic_bytes);
    if (t == MPI_2DOUBLE_PRECISION) return loc_kernel<double, double, Greatest>(basic_bytes);
    return std::nullopt;
}

// MPI-1 4.9.2's categories of basic types, and which of them each operation takes.
enum TypeGroup : unsigned { kCInt = 1, kFortranInt = 2, kFloat = 4, kLogical = 8, kComplex = 16, kByte = 32 };
constexpr unsigned kMaxMin = kCInt | kFortranInt | kFloat;
constexpr unsigned kSumProd = kCInt | kFortranInt | kFloat | kComplex;
constexpr unsigned kLogicalOps = kCInt | kLogical;
constexpr unsigned kBitwise = kCInt | kFortranInt | kByte;

// The operations an element type can be compiled with at all: bitwise ones
// need integers, and complex numbers have no order, only + and *.
template <class F>
constexpr bool kOnFloats = !std::is_same_v<F, Band> && !std::is_same_v<F, Bor> && !std::is_same_v<F, Bxor>;
template <class F>
constexpr bool kOnComplex = std::is_same_v<F, Sum> || std::is_same_v<F, Prod>;

// The per-category lookups below are forced inline into typed<F>: the
// lookup runs on every reduction, and one flat chain of comparisons is what
// it was before the split (GCC would otherwise call out for the larger ones).

constexpr std::optional<OpKernel> kernel(OpKernelFn fn, std::size_t bytes) { return OpKernel{fn, bytes}; }

template <class F>
[[gnu::always_inline]] inline std::optional<OpKernel> c_integer(MPI_Datatype t) {
    if (t == MPI_SHORT) return kernel(each<short, F>, sizeof(short));
    if (t == MPI_INT) return kernel(each<int, F>, sizeof(int));
    if (t == MPI_LONG) return kernel(each<long, F>, sizeof(long));
    if (t == MPI_LONG_LONG_INT) return kernel(each<long long, F>, sizeof(long long));
    if (t == MPI_UNSIGNED_SHORT) return kernel(each<unsigned short, F>, sizeof(unsigned short));
    if (t == MPI_UNSIGNED) return kernel(each<unsigned, F>, sizeof(unsigned));
    if (t == MPI_UNSIGNED_LONG) return kernel(each<unsigned long, F>, sizeof(unsigned long));
    // MPI-2's additions to the C integers.
    if (t == MPI_SIGNED_CHAR) return kernel(each<signed char, F>, 1);
    if (t == MPI_UNSIGNED_LONG_LONG) return kernel(each<unsigned long long, F>, sizeof(unsigned long long));
    return std::nullopt;
}

template <class F>
[[gnu::always_inline]] inline std::optional<OpKernel> fortran_integer(MPI_Datatype t) {
    if (t == MPI_INTEGER) return kernel(each<int, F>, sizeof(int));
    if (t == MPI_INTEGER1) return kernel(each<std::int8_t, F>, 1);
    if (t == MPI_INTEGER2) return kernel(each<std::int16_t, F>, 2);
    if (t == MPI_INTEGER4) return kernel(each<std::int32_t, F>, 4);
    if (t == MPI_INTEGER8) return kernel(each<std::int64_t, F>, 8);
    return std::nullopt;
}

template <class F>
[[gnu::always_inline]] inline std::optional<OpKernel> floating(MPI_Datatype t) {
    if (t == MPI_FLOAT) return kernel(each<float, F>, sizeof(float));
    if (t == MPI_DOUBLE) return kernel(each<double, F>, sizeof(double));
    if (t == MPI_LONG_DOUBLE) return kernel(each<long double, F>, sizeof(long double));
    if (t == MPI_REAL) return kernel(each<float, F>, sizeof(float));
    if (t == MPI_DOUBLE_PRECISION) return kernel(each<double, F>, sizeof(double));
    if (t == MPI_REAL4) return kernel(each<float, F>, 4);
    if (t == MPI_REAL8) return kernel(each<double, F>, 8);
    return std::nullopt;
}

// Sums add the parts (each_part); products multiply std::complex values.
template <class F>
[[gnu::always_inline]] inline std::optional<OpKernel> complex_kernel(MPI_Datatype t) {
    if constexpr (std::is_same_v<F, Sum>) {
        if (t == MPI_COMPLEX) return kernel(each_part<float, F>, sizeof(std::complex<float>));
        if (t == MPI_DOUBLE_COMPLEX) return kernel(each_part<double, F>, sizeof(std::complex<double>));
    } else {
        if (t == MPI_COMPLEX) return kernel(each<std::complex<float>, F>, sizeof(std::complex<float>));
        if (t == MPI_DOUBLE_COMPLEX) return kernel(each<std::complex<double>, F>, sizeof(std::complex<double>));
    }
    return std::nullopt;
}

template <class F>
std::optional<OpKernel> typed(MPI_Datatype t, unsigned groups) {
    if (groups & kCInt) {
        if (const std::optional<OpKernel> k = c_integer<F>(t)) return k;
    }
    if (groups & kFortranInt) {
        if (const std::optional<OpKernel> k = fortran_integer<F>(t)) return k;
    }
    if constexpr (kOnFloats<F>) {
        if (groups & kFloat) {
            if (const std::optional<OpKernel> k = floating<F>(t)) return k;
        }
    }
    if constexpr (kOnComplex<F>) {
        if (groups & kComplex) {
            if (const std::optional<OpKernel> k = complex_kernel<F>(t)) return k;
        }
    }
    // A LOGICAL is read as an int, any non-zero value true; the logical
    // operations give gfortran's .TRUE. (1) and .FALSE. (0).
    if ((groups & kLogical) && t == MPI_LOGICAL) return kernel(each<int, F>, sizeof(int));
    if ((groups & kByte) && t == MPI_BYTE) return kernel(each<unsigned char, F>, 1);
    return std::nullopt;
}

}  // namespace

std::optional<OpKernel> op_kernel(MPI_Op op, MPI_Datatype basic, std::size_t basic_bytes) {
    // MPI-1 4.9.2: integers (C and Fortran) and floating point for MAX/MIN,
    // those and complex for SUM/PROD, C integer and logical for the logical
    // operations, integers and byte for the bitwise ones. MPI_DOUBLE_COMPLEX,
    // optional in MPI-1, is complex as MPI-2 lists it. MPI_CHAR and
    // MPI_UNSIGNED_CHAR are characters there, not integers (MPI-2 made
    // MPI_UNSIGNED_CHAR an integer; Strata keeps MPI-1's rule for MPI-1's
    // types), and so are MPI_WCHAR and MPI_CHARACTER.
    switch (op) {
        case MPI_MAX: return typed<Max>(basic, kMaxMin);
        case MPI_MIN: return typed<Min>(basic, kMaxMin);
        case MPI_SUM: return typed<Sum>(basic, kSumProd);
        case MPI_PROD: return typed<Prod>(basic, kSumProd);
        case MPI_LAND: return typed<Land>(basic, kLogicalOps);
        case MPI_LOR: return typed<Lor>(basic, kLogicalOps);
        case MPI_LXOR: return typed<Lxor>(basic, kLogicalOps);
        case MPI_BAND: return typed<Band>(basic, kBitwise);
        case MPI_BOR: return typed<Bor>(basic, kBitwise);
        case MPI_BXOR: return typed<Bxor>(basic, kBitwise);
        case MPI_MAXLOC: return loc_typed<true>(basic, basic_bytes);
        case MPI_MINLOC: return loc_typed<false>(basic, basic_bytes);
        default: return std::nullopt;
    }
}

}  // namespace strata::mpi
