// The Hello a rank's TCP listener reads from whoever connects (devices/tcp/
// handshake.hpp): a decoded Hello must encode back to the same bytes.
#include "devices/tcp/handshake.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace strata::dev::tcp;
    if (size < kHelloSize) return 0;
    const auto hello = hello_decode(std::span<const std::uint8_t, kHelloSize>(data, kHelloSize));
    if (!hello) return 0;
    const auto again = hello_encode(*hello);
    if (std::memcmp(again.data(), data, kHelloSize) != 0) std::abort();
    return 0;
}
