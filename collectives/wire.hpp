// The wire form of the values the library itself exchanges between processes
// after MPI_Init (lengths, counts, measured figures, the contributions that
// build a communicator), which may differ in byte order and type sizes: an
// integer travels little-endian at a fixed width (never size_t, long or int
// as the host has them), a double as the little-endian bytes of its IEEE 754
// bits. User data is converted by its receiver by datatype instead.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "base/little_endian.hpp"

namespace strata::coll::wire {

// Writes `v` at `out` as sizeof(T) little-endian bytes.
template <base::WireInteger T>
void store(T v, std::byte* out) {
    const T w = base::to_little(v);
    std::memcpy(out, &w, sizeof w);
}

// The integer that store<T> wrote at `in`.
template <base::WireInteger T>
T load(const std::byte* in) {
    T w{};
    std::memcpy(&w, in, sizeof w);
    return base::from_little(w);
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

}  // namespace strata::coll::wire
