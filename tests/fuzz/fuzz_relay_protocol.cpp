// What a relay reads from whoever connects and from its peer relays
// (relay/protocol.hpp): an Open, a Notice, a frame header, an endpoint.
// Whatever decodes must encode back to the same bytes (an endpoint: to the
// same text), and nothing may crash on the way.
#include "relay/protocol.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

using namespace strata::relay;

template <std::size_t N, class Decode, class Encode>
void round_trip(const std::uint8_t* data, std::size_t size, Decode decode, Encode encode) {
    if (size < N) return;
    const auto decoded = decode(std::span<const std::uint8_t, N>(data, N));
    if (!decoded) return;
    const auto again = encode(*decoded);
    if (std::memcmp(again.data(), data, N) != 0) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    round_trip<kOpenSize>(data, size, open_decode, open_encode);
    round_trip<kNoticeSize>(data, size, notice_decode, notice_encode);
    round_trip<kFrameHeaderSize>(data, size, frame_header_decode, frame_header_encode);
    const std::string text(reinterpret_cast<const char*>(data), size);
    if (const auto e = endpoint_parse(text)) {
        // Any text that parses prints as one that parses to the same endpoint.
        if (endpoint_parse(endpoint_text(*e)) != e) std::abort();
    }
    return 0;
}
