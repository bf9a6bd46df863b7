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

template <class F>
std::optional<OpKernel> typed(MPI_Datatype t, unsigned groups) {
    auto k = [](OpKernelFn fn, std::size_t bytes) { return std::optional<OpKernel>(OpKernel{fn, bytes}); };
    if (groups & kCInt) {
        if (t == MPI_SHORT) return k(each<short, F>, sizeof(short));
        if (t == MPI_INT) return k(each<int, F>, sizeof(int));
        if (t == MPI_LONG) return k(each<long, F>, sizeof(long));
        if (t == MPI_LONG_LONG_INT) return k(each<long long, F>, sizeof(long long));
        if (t == MPI_UNSIGNED_SHORT) return k(each<unsigned short, F>, sizeof(unsigned short));
        if (t == MPI_UNSIGNED) return k(each<unsigned, F>, sizeof(unsigned));
        if (t == MPI_UNSIGNED_LONG) return k(each<unsigned long, F>, sizeof(unsigned long));
        // MPI-2's additions to the C integers.
        if (t == MPI_SIGNED_CHAR) return k(each<signed char, F>, 1);
        if (t == MPI_UNSIGNED_LONG_LONG) return k(each<unsigned long long, F>, sizeof(unsigned long long));
    }
    if (groups & kFortranInt) {
        if (t == MPI_INTEGER) return k(each<int, F>, sizeof(int));
        if (t == MPI_INTEGER1) return k(each<std::int8_t, F>, 1);
        if (t == MPI_INTEGER2) return k(each<std::int16_t, F>, 2);
        if (t == MPI_INTEGER4) return k(each<std::int32_t, F>, 4);
        if (t == MPI_INTEGER8) return k(each<std::int64_t, F>, 8);
    }
    if constexpr (kOnFloats<F>) {
        if (groups & kFloat) {
            if (t == MPI_FLOAT) return k(each<float, F>, sizeof(float));
            if (t == MPI_DOUBLE) return k(each<double, F>, sizeof(double));
            if (t == MPI_LONG_DOUBLE) return k(each<long double, F>, sizeof(long double));
            if (t == MPI_REAL) return k(each<float, F>, sizeof(float));
            if (t == MPI_DOUBLE_PRECISION) return k(each<double, F>, sizeof(double));
            if (t == MPI_REAL4) return k(each<float, F>, 4);
            if (t == MPI_REAL8) return k(each<double, F>, 8);
        }
    }
    if constexpr (std::is_same_v<F, Sum>) {
        if (groups & kComplex) {
            if (t == MPI_COMPLEX) return k(each_part<float, F>, sizeof(std::complex<float>));
            if (t == MPI_DOUBLE_COMPLEX) return k(each_part<double, F>, sizeof(std::complex<double>));
        }
    } else if constexpr (kOnComplex<F>) {
        if (groups & kComplex) {
            if (t == MPI_COMPLEX) return k(each<std::complex<float>, F>, sizeof(std::complex<float>));
            if (t == MPI_DOUBLE_COMPLEX) return k(each<std::complex<double>, F>, sizeof(std::complex<double>));
        }
    }
    // A LOGICAL is read as an int, any non-zero value true; the logical
    // operations give gfortran's .TRUE. (1) and .FALSE. (0).
    if (groups & kLogical) {
        if (t == MPI_LOGICAL) return k(each<int, F>, sizeof(int));
    }
    if (groups & kByte) {
        if (t == MPI_BYTE) return k(each<unsigned char, F>, 1);
    }
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
