// The one wire format of Strata's control messages (the wire-up protocol
// between mpirun and its processes, the gatekeeper protocol, the client/server
// conversation between two jobs): little-endian integers, length-prefixed
// strings and lists, and messages declared as field lists that one template
// encodes and decodes.
//
// Frame: u32 payload length, u8 type, payload. In a payload an integer of up
// to 32 bits (and a bool, 0 or 1, and an enumeration) is a u32; a u64 is its
// low then its high u32; a string, a byte vector and a byte array are a u32
// length and the bytes (an array's length must be its size); a list is a u32
// count and its items; a pair is its two values; a struct is its fields in
// order.
//
// A message type declares its fields once, next to it, as a function found
// by argument-dependent lookup:
//
//   struct Abort { std::int32_t code = 1; std::string message; };
//   constexpr auto wire_fields(std::type_identity<Abort>) {
//       return std::tuple{wire::field("code", &Abort::code), wire::field("message", &Abort::message)};
//   }
//
// and may add `std::string wire_check(const Abort&)`, what is wrong with a
// decoded value beyond its fields ("" when nothing). Enumerations are always
// declared with their range (`wire::within("op", &Names::op, first, last)`),
// and integers may be. `wire::decode<Abort>(payload)` reads a payload whole:
// it fails once, on the first short or invalid field or on bytes left over,
// saying which field and why; every length is checked against what is left
// and no count is trusted for a reservation, so a hostile payload can only
// fail to decode. `wire::frame(type, m)` writes the frame.
#pragma once

#include "base/result.hpp"

#include <algorithm>
#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace strata::base::wire {

// ---- bytes

// A payload, or any byte string a message carries.
using Bytes = std::vector<std::uint8_t>;

class Writer {
public:
    void u32(std::uint32_t v) {
        for (int i = 0; i < 4; ++i) out_.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
    }
    void u64(std::uint64_t v) {
        u32(static_cast<std::uint32_t>(v));
        u32(static_cast<std::uint32_t>(v >> 32));
    }
    // A u32 length, then the bytes.
    void bytes(const void* data, std::size_t n) {
        // Room first, growing geometrically (GCC 12 at -O3 otherwise sees
        // false overflows in the insert below).
        if (out_.capacity() - out_.size() < 4 + n) out_.reserve(std::max(2 * out_.capacity(), out_.size() + 4 + n));
        u32(static_cast<std::uint32_t>(n));
        const auto* p = static_cast<const std::uint8_t*>(data);
        out_.insert(out_.end(), p, p + n);
    }
    void str(std::string_view s) { bytes(s.data(), s.size()); }
    std::vector<std::uint8_t>& out() { return out_; }

private:
    std::vector<std::uint8_t> out_;
};

// Reads a payload; the first failure sticks (later reads return zeros and
// empty values) and keeps its reason.
class Reader {
public:
    explicit Reader(std::span<const std::uint8_t> in) : in_(in) {}

    std::uint32_t u32() {
        if (!need(4, "a 4-byte integer")) return 0;
        std::uint32_t v = 0;
        for (int i = 0; i < 4; ++i) v |= static_cast<std::uint32_t>(in_[at_ + static_cast<std::size_t>(i)]) << (8 * i);
        at_ += 4;
        return v;
    }
    std::uint64_t u64() {
        const std::uint64_t low = u32();
        return low | static_cast<std::uint64_t>(u32()) << 32;
    }
    // A u32 length and that many bytes, or nothing when they are not all there.
    std::span<const std::uint8_t> bytes() {
        const std::uint32_t n = u32();
        if (!need(n, "the bytes its length gives")) return {};
        const std::span<const std::uint8_t> out = in_.subspan(at_, n);
        at_ += n;
        return out;
    }

    bool ok() const { return error_.empty(); }
    // Fails the read with `why` unless it failed already.
    void fail(std::string why) {
        if (ok()) error_ = why.empty() ? "invalid" : std::move(why);
    }
    // Puts `prefix` before the reason of a failure (the field being read).
    void prefix(std::string_view prefix) { error_.insert(0, prefix); }
    // The whole payload read, or the first failure's reason.
    Status finish() const {
        if (!ok()) return Error{error_};
        if (at_ != in_.size()) return Error{std::to_string(in_.size() - at_) + " bytes left over after the message"};
        return {};
    }

private:
    bool need(std::size_t n, const char* what) {
        if (!ok()) return false;
        if (in_.size() - at_ >= n) return true;
        fail("cut short at byte " + std::to_string(at_) + ": " + what + " needs " + std::to_string(n) + ", " +
             std::to_string(in_.size() - at_) + " left");
        return false;
    }

    std::span<const std::uint8_t> in_;
    std::size_t at_ = 0;
    std::string error_;
};

// ---- fields

template <class T, class M>
struct Field {
    const char* name;
    M T::*member;
};

// A field whose value must lie in [first, last] (an enumeration's kinds, a
// bounded count).
template <class T, class M>
struct Within {
    const char* name;
    M T::*member;
    M first;
    M last;
};

template <class T, class M>
constexpr Field<T, M> field(const char* name, M T::*member) {
    static_assert(!std::is_enum_v<M>, "give an enumeration its range: wire::within(name, member, first, last)");
    return {name, member};
}

template <class T, class M>
constexpr Within<T, M> within(const char* name, M T::*member, M first, M last) {
    return {name, member, first, last};
}

// A type whose fields are declared (wire_fields found by lookup).
template <class T>
concept Fielded = requires { wire_fields(std::type_identity<T>{}); };

// ---- values

template <class T>
concept Word = std::integral<T> && sizeof(T) <= 4;

template <class T>
struct IsVector : std::false_type {};
template <class T>
struct IsVector<std::vector<T>> : std::true_type {};

template <class T>
struct IsPair : std::false_type {};
template <class A, class B>
struct IsPair<std::pair<A, B>> : std::true_type {};

template <class T>
struct IsByteArray : std::false_type {};
template <std::size_t N>
struct IsByteArray<std::array<std::uint8_t, N>> : std::true_type {};

template <class T>
void put(Writer& w, const T& v);
template <class T>
void get(Reader& r, T& v);

template <class T>
void put_fields(Writer& w, const T& m) {
    std::apply([&](const auto&... f) { (put(w, m.*(f.member)), ...); }, wire_fields(std::type_identity<T>{}));
}

template <class T>
void put(Writer& w, const T& v) {
    if constexpr (std::is_same_v<T, bool>) {
        w.u32(v ? 1 : 0);
    } else if constexpr (std::is_enum_v<T>) {
        w.u32(static_cast<std::uint32_t>(v));
    } else if constexpr (Word<T>) {
        w.u32(static_cast<std::uint32_t>(v));
    } else if constexpr (std::is_same_v<T, std::uint64_t>) {
        w.u64(v);
    } else if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, std::vector<std::uint8_t>> ||
                         IsByteArray<T>::value) {
        w.bytes(v.data(), v.size());
    } else if constexpr (IsVector<T>::value) {
        w.u32(static_cast<std::uint32_t>(v.size()));
        for (const auto& item : v) put(w, item);
    } else if constexpr (IsPair<T>::value) {
        put(w, v.first);
        put(w, v.second);
    } else {
        static_assert(Fielded<T>, "a message's field has a type the wire format does not know");
        put_fields(w, v);
    }
}

// A u32 that must fit T: a 32-bit integer takes any, a bool 0 or 1, a
// smaller unsigned one what it holds.
template <Word T>
T word_get(Reader& r) {
    static_assert(sizeof(T) == 4 || std::is_unsigned_v<T>, "a signed field narrower than 32 bits");
    const std::uint32_t raw = r.u32();
    if constexpr (sizeof(T) < 4) {
        if (raw > static_cast<std::uint32_t>(std::numeric_limits<T>::max())) r.fail(std::to_string(raw) + " does not fit");
    }
    return static_cast<T>(raw);
}

template <class T>
void list_get(Reader& r, std::vector<T>& v) {
    v.clear();
    const std::uint32_t n = r.u32();
    // No reserve: `n` is untrusted; the loop stops at the first failure.
    for (std::uint32_t i = 0; r.ok() && i < n; ++i) {
        T item{};
        get(r, item);
        if (r.ok()) v.push_back(std::move(item));
    }
}

template <class T>
std::string check_of(const T& m) {
    if constexpr (requires { wire_check(m); }) {
        return wire_check(m);
    } else {
        return {};
    }
}

template <class T, class F>
void field_get(Reader& r, T& m, const F& f) {
    if (!r.ok()) return;
    get(r, m.*(f.member));
    if constexpr (requires { f.last; }) {
        const auto& v = m.*(f.member);
        if (r.ok() && (v < f.first || v > f.last)) r.fail("out of range");
    }
    if (!r.ok()) r.prefix(std::string("'") + f.name + "': ");
}

template <class T>
void get_fields(Reader& r, T& m) {
    std::apply([&](const auto&... f) { (field_get(r, m, f), ...); }, wire_fields(std::type_identity<T>{}));
    if (!r.ok()) return;
    if (std::string why = check_of(m); !why.empty()) r.fail(std::move(why));
}

template <class T>
void get(Reader& r, T& v) {
    if constexpr (std::is_enum_v<T>) {
        v = static_cast<T>(r.u32());  // checked by its field's range
    } else if constexpr (Word<T>) {
        v = word_get<T>(r);
    } else if constexpr (std::is_same_v<T, std::uint64_t>) {
        v = r.u64();
    } else if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, std::vector<std::uint8_t>>) {
        const std::span<const std::uint8_t> b = r.bytes();
        v.assign(b.begin(), b.end());
    } else if constexpr (IsByteArray<T>::value) {
        const std::span<const std::uint8_t> b = r.bytes();
        if (r.ok() && b.size() != v.size()) r.fail(std::to_string(b.size()) + " bytes where " + std::to_string(v.size()) + " belong");
        if (r.ok()) std::copy(b.begin(), b.end(), v.begin());
    } else if constexpr (IsVector<T>::value) {
        list_get(r, v);
    } else if constexpr (IsPair<T>::value) {
        get(r, v.first);
        get(r, v.second);
    } else {
        static_assert(Fielded<T>, "a message's field has a type the wire format does not know");
        get_fields(r, v);
    }
}

// ---- messages and frames

inline constexpr std::size_t kHeaderBytes = 5;  // u32 payload length, u8 type

// The payload of `m`, alone.
template <class T>
std::vector<std::uint8_t> payload(const T& m) {
    Writer w;
    put(w, m);
    return std::move(w.out());
}

// The frame of `m` with type `type`.
template <class T>
std::vector<std::uint8_t> frame(std::uint8_t type, const T& m) {
    Writer w;
    w.out().resize(kHeaderBytes);
    put(w, m);
    std::vector<std::uint8_t>& out = w.out();
    const auto length = static_cast<std::uint32_t>(out.size() - kHeaderBytes);
    for (std::size_t i = 0; i < 4; ++i) out[i] = static_cast<std::uint8_t>(length >> (8 * i));
    out[4] = type;
    return std::move(out);
}

// The frame of `m` in a protocol that gives each message's frame type as
// kType (its kTypeOf<M>; the enumeration's zero: not one of its messages).
template <auto kType, class T>
std::vector<std::uint8_t> frame_of(const T& m) {
    static_assert(kType != decltype(kType){}, "not a message of this protocol");
    return frame(static_cast<std::uint8_t>(kType), m);
}

// A frame without payload.
inline std::vector<std::uint8_t> frame_empty(std::uint8_t type) { return {0, 0, 0, 0, type}; }

// Reads a whole payload as a T.
template <class T>
Result<T> decode(std::span<const std::uint8_t> payload) {
    Reader r(payload);
    T m{};
    get(r, m);
    if (Status s = r.finish(); !s) return Error{s.error()};
    return m;
}

// A frame taken from a stream: its type byte and raw payload.
struct RawFrame {
    std::uint8_t type = 0;
    std::vector<std::uint8_t> payload;
};

// Splits a byte stream into frames. Types outside [first_type, last_type] and
// payloads above max_payload are refused as soon as the header is complete,
// so a hostile peer cannot make us buffer an oversized frame first.
class FrameSplitter {
public:
    FrameSplitter(std::uint8_t first_type, std::uint8_t last_type, std::uint32_t max_payload)
        : first_(first_type), last_(last_type), max_(max_payload) {}

    void feed(const std::uint8_t* data, std::size_t n) { buf_.insert(buf_.end(), data, data + n); }

    // The next complete frame, if any. Sets `bad` and returns nullopt on a
    // refused header; the stream must then be dropped.
    std::optional<RawFrame> next(bool& bad) {
        bad = false;
        if (buf_.size() < kHeaderBytes) return std::nullopt;
        std::uint32_t len = 0;
        for (std::size_t i = 0; i < 4; ++i) len |= static_cast<std::uint32_t>(buf_[i]) << (8 * i);
        if (len > max_ || buf_[4] < first_ || buf_[4] > last_) {
            bad = true;
            return std::nullopt;
        }
        if (buf_.size() - kHeaderBytes < len) return std::nullopt;
        const auto begin = buf_.begin() + static_cast<std::ptrdiff_t>(kHeaderBytes);
        RawFrame f{buf_[4], std::vector<std::uint8_t>(begin, begin + len)};
        buf_.erase(buf_.begin(), begin + len);
        return f;
    }

private:
    std::uint8_t first_;
    std::uint8_t last_;
    std::uint32_t max_;
    std::vector<std::uint8_t> buf_;
};

}  // namespace strata::base::wire
