// The Hello that opens every TCP connection between ranks (tcp_method.hpp):
// the first bytes a rank's listener reads from whoever connects, before
// anything is proven, so its decoding is fuzzed (tests/fuzz/fuzz_tcp_hello.cpp).
// Layout, little endian: magic "STR3", from rank, to rank, stream, 32-byte
// nonce. Stream 0 is a link's first connection; 1 and up are the extra
// connections its sender opens to stripe large payloads (stripes.hpp).
#pragma once

#include "security/challenge.hpp"

#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>

namespace strata::dev::tcp {

inline constexpr std::uint32_t kHelloMagic = 0x33525453;  // "STR3"
inline constexpr std::size_t kHelloSize = 16 + security::kNonceBytes;

struct Hello {
    std::uint32_t from = 0;
    std::uint32_t to = 0;
    std::uint32_t stream = 0;
    security::Nonce nonce{};
};

inline std::array<std::uint8_t, kHelloSize> hello_encode(const Hello& h) {
    std::array<std::uint8_t, kHelloSize> out{};
    const std::uint32_t words[4] = {kHelloMagic, h.from, h.to, h.stream};
    for (std::size_t w = 0; w < 4; ++w)
        for (std::size_t i = 0; i < 4; ++i) out[4 * w + i] = static_cast<std::uint8_t>(words[w] >> (8 * i));
    std::memcpy(out.data() + 16, h.nonce.data(), h.nonce.size());
    return out;
}

// nullopt when the bytes are not a Strata Hello (another magic).
inline std::optional<Hello> hello_decode(std::span<const std::uint8_t, kHelloSize> bytes) {
    auto word = [&](std::size_t at) {
        std::uint32_t v = 0;
        for (int i = 0; i < 4; ++i) v |= static_cast<std::uint32_t>(bytes[at + static_cast<std::size_t>(i)]) << (8 * i);
        return v;
    };
    if (word(0) != kHelloMagic) return std::nullopt;
    Hello h;
    h.from = word(4);
    h.to = word(8);
    h.stream = word(12);
    std::memcpy(h.nonce.data(), bytes.data() + 16, h.nonce.size());
    return h;
}

}  // namespace strata::dev::tcp
