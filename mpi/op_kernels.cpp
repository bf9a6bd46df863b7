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

// The kernel of F on dense elements of T, `bytes` long, when F takes T's
// category (On); otherwise none, and each<T, F> is never compiled (bitwise
// operations have no meaning on floating point, complex numbers no order).
template <class T, class F, bool On>
constexpr std::optional<OpKernel> dense(std::size_t bytes) {
    if constexpr (On) {
        return OpKernel{each<T, F>, bytes};
    } else {
        return std::nullopt;
    }
}

// The same for complex elements of parts T: a sum adds the parts (each_part),
// a product multiplies std::complex values.
template <class T, class F, bool On>
constexpr std::optional<OpKernel> complex_kernel() {
    if constexpr (!On) {
        return std::nullopt;
    } else if constexpr (std::is_same_v<F, Sum>) {
        return OpKernel{each_part<T, F>, sizeof(std::complex<T>)};
    } else {
        return OpKernel{each<std::complex<T>, F>, sizeof(std::complex<T>)};
    }
}

// The kernel of F on basic type `t` when `t` is of one of the categories
// `Groups`. One switch over every type: the compiler makes it one jump table,
// the shortest lookup on a path that every reduction takes.
template <class F, unsigned Groups>
std::optional<OpKernel> typed(MPI_Datatype t) {
    constexpr bool c_int = (Groups & kCInt) != 0;
    constexpr bool f_int = (Groups & kFortranInt) != 0;
    constexpr bool real = (Groups & kFloat) != 0;
    constexpr bool cplx = (Groups & kComplex) != 0;
    switch (t) {
        case MPI_SHORT: return dense<short, F, c_int>(sizeof(short));
        case MPI_INT: return dense<int, F, c_int>(sizeof(int));
        case MPI_LONG: return dense<long, F, c_int>(sizeof(long));
        case MPI_LONG_LONG_INT: return dense<long long, F, c_int>(sizeof(long long));
        case MPI_UNSIGNED_SHORT: return dense<unsigned short, F, c_int>(sizeof(unsigned short));
        case MPI_UNSIGNED: return dense<unsigned, F, c_int>(sizeof(unsigned));
        case MPI_UNSIGNED_LONG: return dense<unsigned long, F, c_int>(sizeof(unsigned long));
        // MPI-2's additions to the C integers.
        case MPI_SIGNED_CHAR: return dense<signed char, F, c_int>(1);
        case MPI_UNSIGNED_LONG_LONG: return dense<unsigned long long, F, c_int>(sizeof(unsigned long long));
        case MPI_INTEGER: return dense<int, F, f_int>(sizeof(int));
        case MPI_INTEGER1: return dense<std::int8_t, F, f_int>(1);
        case MPI_INTEGER2: return dense<std::int16_t, F, f_int>(2);
        case MPI_INTEGER4: return dense<std::int32_t, F, f_int>(4);
        case MPI_INTEGER8: return dense<std::int64_t, F, f_int>(8);
        case MPI_FLOAT: return dense<float, F, real>(sizeof(float));
        case MPI_DOUBLE: return dense<double, F, real>(sizeof(double));
        case MPI_LONG_DOUBLE: return dense<long double, F, real>(sizeof(long double));
        case MPI_REAL: return dense<float, F, real>(sizeof(float));
        case MPI_DOUBLE_PRECISION: return dense<double, F, real>(sizeof(double));
        case MPI_REAL4: return dense<float, F, real>(4);
        case MPI_REAL8: return dense<double, F, real>(8);
        case MPI_COMPLEX: return complex_kernel<float, F, cplx>();
        case MPI_DOUBLE_COMPLEX: return complex_kernel<double, F, cplx>();
        // A LOGICAL is read as an int, any non-zero value true; the logical
        // operations give gfortran's .TRUE. (1) and .FALSE. (0).
        case MPI_LOGICAL: return dense<int, F, (Groups & kLogical) != 0>(sizeof(int));
        case MPI_BYTE: return dense<unsigned char, F, (Groups & kByte) != 0>(1);
        default: return std::nullopt;
    }
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
        case MPI_MAX: return typed<Max, kMaxMin>(basic);
        case MPI_MIN: return typed<Min, kMaxMin>(basic);
        case MPI_SUM: return typed<Sum, kSumProd>(basic);
        case MPI_PROD: return typed<Prod, kSumProd>(basic);
        case MPI_LAND: return typed<Land, kLogicalOps>(basic);
        case MPI_LOR: return typed<Lor, kLogicalOps>(basic);
        case MPI_LXOR: return typed<Lxor, kLogicalOps>(basic);
        case MPI_BAND: return typed<Band, kBitwise>(basic);
        case MPI_BOR: return typed<Bor, kBitwise>(basic);
        case MPI_BXOR: return typed<Bxor, kBitwise>(basic);
        case MPI_MAXLOC: return loc_typed<true>(basic, basic_bytes);
        case MPI_MINLOC: return loc_typed<false>(basic, basic_bytes);
        default: return std::nullopt;
    }
}

}  // namespace strata::mpi
