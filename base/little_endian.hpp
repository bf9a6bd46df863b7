// Little-endian wire values of integers, for the records a method sends raw
// (adi/envelope.hpp, devices/tcp/stripes.hpp) between processes that may
// differ in byte order. On a little-endian host the wire value is the value
// itself and every function here compiles to nothing; on a big-endian one it
// is the value with its bytes reversed. A byte swap is its own inverse, so
// to_little and from_little are the same operation, named for the direction
// the caller means. (base/wire.hpp writes byte by byte instead: its messages
// are built, not sent from a struct in place.)
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace strata::base {

static_assert(std::endian::native == std::endian::little || std::endian::native == std::endian::big,
              "mixed-endian machines are not supported");

template <typename T>
concept WireInteger = (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8) && std::is_integral_v<T>;

// `v` with its bytes in reverse order. (std::byteswap is C++23.)
template <WireInteger T>
constexpr T byte_swap(T v) {
    using U = std::make_unsigned_t<T>;
    const auto u = static_cast<U>(v);
    if constexpr (sizeof(T) == 1) {
        return v;
    } else if constexpr (sizeof(T) == 2) {
        return static_cast<T>(__builtin_bswap16(u));
    } else if constexpr (sizeof(T) == 4) {
        return static_cast<T>(__builtin_bswap32(u));
    } else {
        return static_cast<T>(__builtin_bswap64(u));
    }
}

// The value whose bytes in memory are `v` written little-endian.
template <WireInteger T>
constexpr T to_little(T v) {
    if constexpr (std::endian::native == std::endian::little) {
        return v;
    } else {
        return byte_swap(v);
    }
}

// The value that a little-endian wire value `w` holds.
template <WireInteger T>
constexpr T from_little(T w) {
    return to_little(w);
}

// Writes `v` at `out` (bytes: std::byte or std::uint8_t) as sizeof(T)
// little-endian bytes: the values the library exchanges between processes
// in place (lengths, counts, measured figures, the TCP Hello's words), which
// may differ in byte order and type sizes, at a fixed width (never size_t,
// long or int as the host has them).
template <WireInteger T, class Byte>
    requires(sizeof(Byte) == 1)
void store(T v, Byte* out) {
    const T w = to_little(v);
    std::memcpy(out, &w, sizeof w);
}

// The integer that store<T> wrote at `in`.
template <WireInteger T, class Byte>
    requires(sizeof(Byte) == 1)
T load(const Byte* in) {
    T w{};
    std::memcpy(&w, in, sizeof w);
    return from_little(w);
}

// A length or a count as it travels: 8 bytes, whatever size_t is.
using U64 = std::array<std::byte, sizeof(std::uint64_t)>;

inline U64 u64(std::uint64_t v) {
    U64 b;
    store(v, b.data());
    return b;
}
inline std::uint64_t u64_of(const U64& b) { return load<std::uint64_t>(b.data()); }

// A double as it travels: the little-endian bytes of its bits.
inline U64 real(double v) { return u64(std::bit_cast<std::uint64_t>(v)); }
inline double real_of(const U64& b) { return std::bit_cast<double>(u64_of(b)); }

}  // namespace strata::base
