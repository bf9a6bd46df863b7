// The one way Strata reads an integer written as text: a setting, a field of
// a file, a command-line value, a port in a peer's card.
//
// parse_int reads the whole text as a decimal integer of type T within
// [low, high] (by default, every value of T). It takes decimal digits,
// leading zeros included, after one '-' where T is signed, and nothing else:
// an empty text, a '+', a space anywhere, a trailing "abc" and a value
// outside [low, high] or outside T are all refused. An unsigned T takes no
// sign at all, so "-1" is malformed there rather than too small; a count
// that wants "-1" to read as "not a number" is parsed as unsigned. There is
// no locale, no exception and no errno.
//
// The result says why a text was refused, so that each caller words its own
// message (which names the input and the range it wanted):
//
//   const base::ParsedInt<int> port = base::parse_int<int>(text, 1, 65535);
//   if (!port) return base::Error{"bad port '" + text + "'; expected a number from 1 to 65535"};
//   use(*port);
#pragma once

#include <charconv>
#include <concepts>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>

namespace strata::base {

template <class T>
concept Integer = std::integral<T> && !std::same_as<T, bool>;

enum class IntFault {
    none,
    malformed,  // empty, or not decimal digits (after one '-' for a signed type)
    below,      // a number, below `low` (or below the type)
    above,      // a number, above `high` (or above the type)
};

template <Integer T>
struct ParsedInt {
    T value{};  // only when ok()
    IntFault fault = IntFault::malformed;

    bool ok() const { return fault == IntFault::none; }
    explicit operator bool() const { return ok(); }
    T operator*() const { return value; }
    std::optional<T> as_optional() const { return ok() ? std::optional<T>(value) : std::nullopt; }
};

template <Integer T>
ParsedInt<T> parse_int(std::string_view text, T low = std::numeric_limits<T>::min(),
                       T high = std::numeric_limits<T>::max()) {
    ParsedInt<T> out;
    if (text.empty()) return out;
    const char* const last = text.data() + text.size();
    T v{};
    const auto [end, ec] = std::from_chars(text.data(), last, v);
    if (end != last || ec == std::errc::invalid_argument) return out;
    if (ec == std::errc::result_out_of_range) {
        out.fault = text.front() == '-' ? IntFault::below : IntFault::above;
    } else if (v < low) {
        out.fault = IntFault::below;
    } else if (v > high) {
        out.fault = IntFault::above;
    } else {
        out.value = v;
        out.fault = IntFault::none;
    }
    return out;
}

// The whole text as hexadecimal digits (either case; no "0x", no sign, no
// space) of an unsigned T, as Strata writes addresses and ids; nullopt on
// anything else or a value above T.
template <Integer T>
    requires std::is_unsigned_v<T>
std::optional<T> parse_hex(std::string_view text) {
    if (text.empty()) return std::nullopt;
    const char* const last = text.data() + text.size();
    T v{};
    const auto [end, ec] = std::from_chars(text.data(), last, v, 16);
    if (ec != std::errc() || end != last) return std::nullopt;
    return v;
}

// "123", "64K", "8M", "1G" (K, M and G in either case: 2^10, 2^20, 2^30), from
// 0 to what an int64_t holds; nullopt on anything else.
std::optional<std::int64_t> parse_size(std::string_view text);

// "LOW:HIGH", two ports with 1 <= LOW <= HIGH <= 65535; nullopt on anything else.
std::optional<std::pair<int, int>> parse_port_range(std::string_view text);

}  // namespace strata::base
