#include "base/numbers.hpp"

namespace strata::base {

std::optional<std::int64_t> parse_size(std::string_view text) {
    int shift = 0;
    if (!text.empty()) {
        switch (text.back()) {
            case 'k': case 'K': shift = 10; break;
            case 'm': case 'M': shift = 20; break;
            case 'g': case 'G': shift = 30; break;
            default: break;
        }
    }
    if (shift != 0) text.remove_suffix(1);
    const ParsedInt<std::int64_t> n = parse_int<std::int64_t>(text, 0, INT64_MAX >> shift);
    if (!n) return std::nullopt;
    return *n << shift;
}

std::optional<std::pair<int, int>> parse_port_range(std::string_view text) {
    const std::size_t colon = text.find(':');
    if (colon == std::string_view::npos) return std::nullopt;
    const ParsedInt<int> low = parse_int<int>(text.substr(0, colon), 1, 65535);
    if (!low) return std::nullopt;
    const ParsedInt<int> high = parse_int<int>(text.substr(colon + 1), *low, 65535);
    if (!high) return std::nullopt;
    return std::pair{*low, *high};
}

}  // namespace strata::base
