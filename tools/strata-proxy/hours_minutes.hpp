// "H:M" or "H" as the proxy tools take a lifetime, in seconds: H from 0 to
// `most_hours`, M from 0 to 59, each plain decimal digits without a sign
// (base::parse_int of an unsigned); nullopt on anything else. A caller that wants the colon, or refuses it,
// looks for it first.
#pragma once

#include "base/numbers.hpp"

#include <optional>
#include <string_view>

namespace strata::proxy_tools {

inline std::optional<long> hours_minutes_parse(std::string_view text, unsigned most_hours) {
    const std::size_t colon = text.find(':');
    const base::ParsedInt<unsigned> hours = base::parse_int<unsigned>(text.substr(0, colon), 0, most_hours);
    if (!hours) return std::nullopt;
    const long seconds = static_cast<long>(*hours) * 3600;
    if (colon == std::string_view::npos) return seconds;
    const base::ParsedInt<unsigned> minutes = base::parse_int<unsigned>(text.substr(colon + 1), 0, 59);
    if (!minutes) return std::nullopt;
    return seconds + static_cast<long>(*minutes) * 60;
}

}  // namespace strata::proxy_tools
