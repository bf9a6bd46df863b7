#include "mpi/hetero/representation.hpp"

#include <bit>
#include <cstddef>
#include <cwchar>
#include <limits>

#include "base/knob.hpp"

namespace strata::mpi {

static_assert(std::numeric_limits<float>::is_iec559 && sizeof(float) == 4, "float must be IEEE 754 binary32");
static_assert(std::numeric_limits<double>::is_iec559 && sizeof(double) == 8, "double must be IEEE 754 binary64");
static_assert(std::endian::native == std::endian::little || std::endian::native == std::endian::big,
              "mixed-endian machines are not supported");

namespace {

const base::KnobInt representation_test{
    "STRATA_REPRESENTATION_TEST", 0,
    "tests only: this process stores the data it sends as a process of another machine would, and says so in its "
    "business card: 1 = the opposite byte order; 2 = the opposite byte order and a 32-bit machine's sizes (long 4, "
    "long double an 8-byte IEEE double)"};

template <class V>
struct PairOf {
    V value;
    int index;
};

template <class V>
constexpr Representation::PairLayout pair_layout() {
    return {static_cast<std::uint8_t>(sizeof(PairOf<V>)), static_cast<std::uint8_t>(offsetof(PairOf<V>, index))};
}

constexpr LongDoubleFormat long_double_format() {
    switch (std::numeric_limits<long double>::digits) {
        case 53: return LongDoubleFormat::ieee_double;
        case 64: return LongDoubleFormat::x87_extended;
        case 113: return LongDoubleFormat::ieee_quad;
        case 106: return LongDoubleFormat::ibm_double_double;
        default: return LongDoubleFormat::other;
    }
}

constexpr const char* kScalarNames[Representation::kScalars] = {"short",     "int",         "long",
                                                                "long long", "long double", "wchar_t"};
constexpr const char* kPairNames[Representation::kPairs] = {"float_int", "double_int", "long_int", "short_int",
                                                            "long_double_int"};
constexpr const char* kFormatNames[] = {"IEEE double", "x87 extended", "IEEE quad", "IBM double-double", "other"};
constexpr std::size_t kFormats = sizeof kFormatNames / sizeof kFormatNames[0];

// bytes(): order, the scalar sizes, long double's format, then each pair's size and int offset.
constexpr std::size_t kBytes = 1 + Representation::kScalars + 1 + 2 * Representation::kPairs;

// A size or offset some machine could have: 1 to 64 bytes.
bool plausible(std::uint8_t n) { return n >= 1 && n <= 64; }

}  // namespace

std::string format_name(LongDoubleFormat f) {
    const auto i = static_cast<std::size_t>(f);
    return i < kFormats ? kFormatNames[i] : "unknown";
}

const Representation& Representation::native() {
    static const Representation r = [] {
        Representation n;
        n.big_endian = std::endian::native == std::endian::big;
        n.sizes = {sizeof(short), sizeof(int), sizeof(long), sizeof(long long), sizeof(long double), sizeof(wchar_t)};
        n.long_double = long_double_format();
        n.pairs = {pair_layout<float>(), pair_layout<double>(), pair_layout<long>(), pair_layout<short>(),
                   pair_layout<long double>()};
        return n;
    }();
    return r;
}

Representation Representation::published() {
    Representation r = native();
    const auto test = representation_test.get();
    if (test != 1 && test != 2) return r;
    r.big_endian = !r.big_endian;
    if (test == 2) {
        r.sizes[kLong] = 4;
        r.sizes[kLongDouble] = 8;
        r.long_double = LongDoubleFormat::ieee_double;
        r.pairs[kLongInt] = {8, 4};
        r.pairs[kLongDoubleInt] = {16, 8};
    }
    return r;
}

std::string Representation::bytes() const {
    std::string out;
    out.reserve(kBytes);
    out.push_back(big_endian ? 'B' : 'L');
    for (std::uint8_t s : sizes) out.push_back(static_cast<char>(s));
    out.push_back(static_cast<char>(long_double));
    for (const PairLayout& p : pairs) {
        out.push_back(static_cast<char>(p.size));
        out.push_back(static_cast<char>(p.int_offset));
    }
    return out;
}

base::Result<Representation> Representation::from_bytes(std::span<const char> bytes) {
    if (bytes.size() != kBytes) {
        return base::Error{"a representation of " + std::to_string(bytes.size()) + " bytes (this build's has " +
                           std::to_string(kBytes) + "): was the peer built from another Strata?"};
    }
    const auto byte = [&](std::size_t i) { return static_cast<std::uint8_t>(bytes[i]); };
    Representation r;
    if (bytes[0] != 'B' && bytes[0] != 'L') return base::Error{"a representation of unknown byte order"};
    r.big_endian = bytes[0] == 'B';
    std::size_t at = 1;
    for (std::uint8_t& s : r.sizes) s = byte(at++);
    if (byte(at) >= kFormats) return base::Error{"a representation with an unknown long double format"};
    r.long_double = static_cast<LongDoubleFormat>(byte(at++));
    for (PairLayout& p : r.pairs) {
        p.size = byte(at++);
        p.int_offset = byte(at++);
    }
    for (std::uint8_t s : r.sizes) {
        if (!plausible(s)) return base::Error{"a representation with a type of " + std::to_string(s) + " bytes"};
    }
    for (const PairLayout& p : r.pairs) {
        if (!plausible(p.size) || p.int_offset >= p.size)
            return base::Error{"a representation with a pair type's int outside the pair"};
    }
    return r;
}

std::string Representation::text() const {
    std::string out = big_endian ? "big-endian; " : "little-endian; ";
    for (int i = 0; i < kScalars; ++i) {
        if (i > 0) out += ", ";
        out += kScalarNames[i];
        out += ' ';
        out += std::to_string(sizes[static_cast<std::size_t>(i)]);
        if (i == kLongDouble) {
            out += " (";
            out += format_name(long_double);
            out += ')';
        }
    }
    out += "; pairs (size, int at):";
    for (int i = 0; i < kPairs; ++i) {
        const PairLayout& p = pairs[static_cast<std::size_t>(i)];
        out += i > 0 ? ", " : " ";
        out += kPairNames[i];
        out += ' ';
        out += std::to_string(p.size);
        out += '/';
        out += std::to_string(p.int_offset);
    }
    return out;
}

std::string unconvertible_refusal(const std::string& who, const Representation& theirs, const Representation& mine,
                                  const std::string& why) {
    std::string text = who;
    text += " stores data in a way this process cannot convert (" + who + ": ";
    text += theirs.text();
    text += "; this process: " + mine.text();
    text += "): " + why;
    return text;
}

}  // namespace strata::mpi
