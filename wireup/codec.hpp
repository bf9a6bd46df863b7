// The framing shared by the launcher's protocols (wire-up between mpirun and
// its processes; the gatekeeper protocol between mpirun and a site).
//
// Frame: u32 payload length (little endian), u8 type, payload. Integers are
// little endian; a string is a u32 length followed by its bytes; a list is a
// u32 count followed by its items. Readers check every length against what is
// left, so a malformed or hostile payload can only fail to decode.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace strata::codec {

class Writer {
public:
    explicit Writer(std::uint8_t type) {
        out_.resize(5);
        out_[4] = type;
    }
    void u32(std::uint32_t v) {
        for (int i = 0; i < 4; ++i) out_.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
    }
    void str(const std::string& s) {
        u32(static_cast<std::uint32_t>(s.size()));
        out_.insert(out_.end(), s.begin(), s.end());
    }
    void bytes(const void* data, std::size_t n) {
        u32(static_cast<std::uint32_t>(n));
        const auto* p = static_cast<const std::uint8_t*>(data);
        out_.insert(out_.end(), p, p + n);
    }
    void strings(const std::vector<std::string>& v) {
        u32(static_cast<std::uint32_t>(v.size()));
        for (const auto& s : v) str(s);
    }
    void pairs(const std::vector<std::pair<std::string, std::string>>& v) {
        u32(static_cast<std::uint32_t>(v.size()));
        for (const auto& [k, val] : v) {
            str(k);
            str(val);
        }
    }
    std::vector<std::uint8_t> finish() {
        const auto len = static_cast<std::uint32_t>(out_.size() - 5);
        for (int i = 0; i < 4; ++i) out_[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(len >> (8 * i));
        return std::move(out_);
    }

private:
    std::vector<std::uint8_t> out_;
};

// The first failed read sticks, so a decoder can read a whole message and test
// `done()` once at the end.
class Reader {
public:
    explicit Reader(const std::vector<std::uint8_t>& p) : p_(p) {}
    std::uint32_t u32() {
        if (!ok_ || p_.size() - pos_ < 4) {
            ok_ = false;
            return 0;
        }
        std::uint32_t v = 0;
        for (int i = 0; i < 4; ++i) v |= static_cast<std::uint32_t>(p_[pos_ + static_cast<std::size_t>(i)]) << (8 * i);
        pos_ += 4;
        return v;
    }
    std::string str() {
        const std::uint32_t n = u32();
        if (!ok_ || p_.size() - pos_ < n) {
            ok_ = false;
            return {};
        }
        std::string s(reinterpret_cast<const char*>(p_.data() + pos_), n);
        pos_ += n;
        return s;
    }
    // A byte string that must be exactly N long (nonces, proofs).
    template <std::size_t N>
    std::array<std::uint8_t, N> fixed() {
        std::array<std::uint8_t, N> out{};
        const std::uint32_t n = u32();
        if (!ok_ || n != N || p_.size() - pos_ < N) {
            ok_ = false;
            return out;
        }
        for (std::size_t i = 0; i < N; ++i) out[i] = p_[pos_ + i];
        pos_ += N;
        return out;
    }
    // No reserve(n) in the lists: n is untrusted; the loops stop at the first
    // short read.
    std::vector<std::string> strings() {
        std::vector<std::string> v;
        const std::uint32_t n = u32();
        for (std::uint32_t i = 0; ok_ && i < n; ++i) {
            std::string s = str();
            if (ok_) v.push_back(std::move(s));
        }
        return v;
    }
    std::vector<std::pair<std::string, std::string>> pairs() {
        std::vector<std::pair<std::string, std::string>> v;
        const std::uint32_t n = u32();
        for (std::uint32_t i = 0; ok_ && i < n; ++i) {
            std::string k = str();
            std::string val = str();
            if (ok_) v.emplace_back(std::move(k), std::move(val));
        }
        return v;
    }
    bool ok() const { return ok_; }
    bool done() const { return ok_ && pos_ == p_.size(); }

private:
    const std::vector<std::uint8_t>& p_;
    std::size_t pos_ = 0;
    bool ok_ = true;
};

// A decoded frame: its type byte and raw payload.
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
        if (buf_.size() < 5) return std::nullopt;
        std::uint32_t len = 0;
        for (int i = 0; i < 4; ++i) len |= static_cast<std::uint32_t>(buf_[static_cast<std::size_t>(i)]) << (8 * i);
        if (len > max_ || buf_[4] < first_ || buf_[4] > last_) {
            bad = true;
            return std::nullopt;
        }
        if (buf_.size() - 5 < len) return std::nullopt;
        RawFrame f{buf_[4], std::vector<std::uint8_t>(buf_.begin() + 5, buf_.begin() + 5 + len)};
        buf_.erase(buf_.begin(), buf_.begin() + 5 + len);
        return f;
    }

private:
    std::uint8_t first_;
    std::uint8_t last_;
    std::uint32_t max_;
    std::vector<std::uint8_t> buf_;
};

}  // namespace strata::codec
