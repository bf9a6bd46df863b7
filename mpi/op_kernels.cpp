#include "mpi/op_kernels.hpp"

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

// MAXLOC/MINLOC on (value, int index) pairs `stride` bytes apart with the
// index at `index_at`. Ties keep the lower index (MPI-1 4.9.3).
template <class V, bool Greatest, std::size_t Stride, std::size_t IndexAt>
void loc(const void* in, void* inout, std::size_t n) {
    const auto* a = static_cast<const unsigned char*>(in);
    auto* b = static_cast<unsigned char*>(inout);
    for (std::size_t i = 0; i < n; ++i) {
        V u, v;
        int iu, iv;
        std::memcpy(&u, a + i * Stride, sizeof(V));
        std::memcpy(&iu, a + i * Stride + IndexAt, sizeof(int));
        std::memcpy(&v, b + i * Stride, sizeof(V));
        std::memcpy(&iv, b + i * Stride + IndexAt, sizeof(int));
        const bool take = Greatest ? u > v : u < v;
        if (take) {
            v = u;
            iv = iu;
        } else if (u == v && iu < iv) {
            iv = iu;
        }
        std::memcpy(b + i * Stride, &v, sizeof(V));
        std::memcpy(b + i * Stride + IndexAt, &iv, sizeof(int));
    }
}

template <class V>
struct Pair {
    V v;
    int i;
};

template <class V, bool Greatest>
std::optional<OpKernel> loc_kernel(std::size_t basic_bytes) {
    constexpr std::size_t packed = sizeof(V) + sizeof(int);
    if (basic_bytes == sizeof(Pair<V>)) {
        return OpKernel{loc<V, Greatest, sizeof(Pair<V>), offsetof(Pair<V>, i)>, sizeof(Pair<V>)};
    }
    if (basic_bytes == packed) return OpKernel{loc<V, Greatest, packed, sizeof(V)>, packed};
    return std::nullopt;
}

enum TypeGroup : unsigned { kInt = 1, kFloat = 2, kByte = 4 };

template <class F>
std::optional<OpKernel> typed(MPI_Datatype t, unsigned groups) {
    auto k = [](OpKernelFn fn, std::size_t bytes) { return std::optional<OpKernel>(OpKernel{fn, bytes}); };
    if (groups & kInt) {
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
    if constexpr (!std::is_same_v<F, Band> && !std::is_same_v<F, Bor> && !std::is_same_v<F, Bxor>) {
        if (groups & kFloat) {
            if (t == MPI_FLOAT) return k(each<float, F>, sizeof(float));
            if (t == MPI_DOUBLE) return k(each<double, F>, sizeof(double));
            if (t == MPI_LONG_DOUBLE) return k(each<long double, F>, sizeof(long double));
        }
    }
    if (groups & kByte) {
        if (t == MPI_BYTE) return k(each<unsigned char, F>, 1);
    }
    return std::nullopt;
}

}  // namespace

std::optional<OpKernel> op_kernel(MPI_Op op, MPI_Datatype basic, std::size_t basic_bytes) {
    // MPI-1 4.9.2: C integer and floating point for MAX/MIN/SUM/PROD, C
    // integer for the logical operations, C integer and byte for the bitwise
    // ones. MPI_CHAR and MPI_UNSIGNED_CHAR are characters there, not integers
    // (MPI-2 made MPI_UNSIGNED_CHAR an integer; Strata keeps MPI-1's rule for
    // MPI-1's types), and so is MPI_WCHAR.
    switch (op) {
        case MPI_MAX: return typed<Max>(basic, kInt | kFloat);
        case MPI_MIN: return typed<Min>(basic, kInt | kFloat);
        case MPI_SUM: return typed<Sum>(basic, kInt | kFloat);
        case MPI_PROD: return typed<Prod>(basic, kInt | kFloat);
        case MPI_LAND: return typed<Land>(basic, kInt);
        case MPI_LOR: return typed<Lor>(basic, kInt);
        case MPI_LXOR: return typed<Lxor>(basic, kInt);
        case MPI_BAND: return typed<Band>(basic, kInt | kByte);
        case MPI_BOR: return typed<Bor>(basic, kInt | kByte);
        case MPI_BXOR: return typed<Bxor>(basic, kInt | kByte);
        case MPI_MAXLOC:
        case MPI_MINLOC: {
            const bool greatest = op == MPI_MAXLOC;
            if (basic == MPI_FLOAT_INT) return greatest ? loc_kernel<float, true>(basic_bytes) : loc_kernel<float, false>(basic_bytes);
            if (basic == MPI_DOUBLE_INT) return greatest ? loc_kernel<double, true>(basic_bytes) : loc_kernel<double, false>(basic_bytes);
            if (basic == MPI_LONG_INT) return greatest ? loc_kernel<long, true>(basic_bytes) : loc_kernel<long, false>(basic_bytes);
            if (basic == MPI_2INT) return greatest ? loc_kernel<int, true>(basic_bytes) : loc_kernel<int, false>(basic_bytes);
            if (basic == MPI_SHORT_INT) return greatest ? loc_kernel<short, true>(basic_bytes) : loc_kernel<short, false>(basic_bytes);
            if (basic == MPI_LONG_DOUBLE_INT)
                return greatest ? loc_kernel<long double, true>(basic_bytes) : loc_kernel<long double, false>(basic_bytes);
            return std::nullopt;
        }
        default: return std::nullopt;
    }
}

}  // namespace strata::mpi
