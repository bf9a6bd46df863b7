#include "relay/protocol.hpp"

#include <cstring>

namespace strata::relay {

std::uint32_t le32(const std::uint8_t* p) {
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= static_cast<std::uint32_t>(p[i]) << (8 * i);
    return v;
}

std::uint64_t le64(const std::uint8_t* p) {
    return static_cast<std::uint64_t>(le32(p)) | static_cast<std::uint64_t>(le32(p + 4)) << 32;
}

void le32_put(std::uint8_t* p, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}

void le64_put(std::uint8_t* p, std::uint64_t v) {
    le32_put(p, static_cast<std::uint32_t>(v));
    le32_put(p + 4, static_cast<std::uint32_t>(v >> 32));
}

std::optional<Endpoint> endpoint_parse(const std::string& text) {
    // a.b.c.d:port, each part decimal without sign, bounded.
    Endpoint e;
    std::size_t at = 0;
    const auto number = [&](std::uint32_t max, char end) -> std::optional<std::uint32_t> {
        std::uint32_t v = 0;
        std::size_t digits = 0;
        while (at < text.size() && text[at] >= '0' && text[at] <= '9' && digits < 6) {
            v = v * 10 + static_cast<std::uint32_t>(text[at] - '0');
            ++at;
            ++digits;
        }
        if (digits == 0 || v > max) return std::nullopt;
        if (end != '\0') {
            if (at >= text.size() || text[at] != end) return std::nullopt;
            ++at;
        }
        return v;
    };
    for (int part = 0; part < 4; ++part) {
        const auto byte = number(255, part < 3 ? '.' : ':');
        if (!byte) return std::nullopt;
        e.address = e.address << 8 | *byte;
    }
    const auto port = number(65535, '\0');
    if (!port || *port == 0 || at != text.size()) return std::nullopt;
    e.port = static_cast<std::uint16_t>(*port);
    return e;
}

std::string endpoint_text(const Endpoint& e) {
    std::string out;
    for (int shift = 24; shift >= 0; shift -= 8) {
        out += std::to_string((e.address >> shift) & 0xff);
        out += shift > 0 ? '.' : ':';
    }
    out += std::to_string(e.port);
    return out;
}

// Open: magic, kind, from, to, stream, port (u32), token (u64), address (u32),
// 4 zero bytes, nonce: 4 * 6 + 8 + 8 + 32 = 72.
std::array<std::uint8_t, kOpenSize> open_encode(const Open& o) {
    std::array<std::uint8_t, kOpenSize> out{};
    le32_put(&out[0], kOpenMagic);
    le32_put(&out[4], static_cast<std::uint32_t>(o.kind));
    le32_put(&out[8], o.from);
    le32_put(&out[12], o.to);
    le32_put(&out[16], o.stream);
    le32_put(&out[20], o.relay.port);
    le64_put(&out[24], o.token);
    le32_put(&out[32], o.relay.address);
    std::memcpy(&out[40], o.nonce.data(), o.nonce.size());
    return out;
}

std::optional<Open> open_decode(std::span<const std::uint8_t, kOpenSize> bytes) {
    const std::uint8_t* p = bytes.data();
    if (le32(p) != kOpenMagic || le32(p + 36) != 0) return std::nullopt;
    const std::uint32_t kind = le32(p + 4);
    if (kind < static_cast<std::uint32_t>(Kind::attach) || kind == 4 || kind > static_cast<std::uint32_t>(Kind::hub_link))
        return std::nullopt;
    const std::uint32_t port = le32(p + 20);
    if (port > 65535) return std::nullopt;
    Open o;
    o.kind = static_cast<Kind>(kind);
    o.from = le32(p + 8);
    o.to = le32(p + 12);
    o.stream = le32(p + 16);
    o.relay.port = static_cast<std::uint16_t>(port);
    o.token = le64(p + 24);
    o.relay.address = le32(p + 32);
    std::memcpy(o.nonce.data(), p + 40, o.nonce.size());
    return o;
}

security::Proof open_proof(const std::string& job_key, security::ProofRole role, const Open& o,
                           const security::Nonce& relay_nonce) {
    // The kind and the stream share a word: a stream index is below 2^24.
    const std::uint32_t kind_stream = static_cast<std::uint32_t>(o.kind) << 24 | (o.stream & 0xffffffu);
    return security::proof_make(job_key, role, o.nonce, relay_nonce, kind_stream, o.from, o.to);
}

std::array<std::uint8_t, kNoticeSize> notice_encode(const Notice& n) {
    std::array<std::uint8_t, kNoticeSize> out{};
    le32_put(&out[0], static_cast<std::uint32_t>(n.type));
    le32_put(&out[4], n.from);
    le32_put(&out[8], n.stream);
    le64_put(&out[16], n.token);
    return out;
}

std::optional<Notice> notice_decode(std::span<const std::uint8_t, kNoticeSize> bytes) {
    const std::uint8_t* p = bytes.data();
    const std::uint32_t type = le32(p);
    if (type != static_cast<std::uint32_t>(NoticeType::accept) || le32(p + 12) != 0)
        return std::nullopt;
    Notice n;
    n.type = static_cast<NoticeType>(type);
    n.from = le32(p + 4);
    n.stream = le32(p + 8);
    n.token = le64(p + 16);
    return n;
}

std::array<std::uint8_t, kFrameHeaderSize> frame_header_encode(const FrameHeader& h) {
    std::array<std::uint8_t, kFrameHeaderSize> out{};
    out[0] = static_cast<std::uint8_t>(h.type);
    le32_put(&out[4], h.id);
    le32_put(&out[8], h.length);
    return out;
}

std::optional<FrameHeader> frame_header_decode(std::span<const std::uint8_t, kFrameHeaderSize> bytes) {
    const std::uint8_t* p = bytes.data();
    if (p[1] != 0 || p[2] != 0 || p[3] != 0) return std::nullopt;
    FrameHeader h;
    h.id = le32(p + 4);
    h.length = le32(p + 8);
    bool fits = false;
    switch (p[0]) {
        case static_cast<std::uint8_t>(FrameType::open): fits = h.length == 12; break;
        case static_cast<std::uint8_t>(FrameType::data): fits = h.length >= 1 && h.length <= kChunk; break;
        case static_cast<std::uint8_t>(FrameType::credit): fits = h.length == 4; break;
        case static_cast<std::uint8_t>(FrameType::close): fits = h.length == 0; break;
        case static_cast<std::uint8_t>(FrameType::reset): fits = h.length <= kReasonMax; break;
        case static_cast<std::uint8_t>(FrameType::bye): fits = h.length == 0 && h.id == 0; break;
        default: return std::nullopt;
    }
    if (!fits) return std::nullopt;
    h.type = static_cast<FrameType>(p[0]);
    return h;
}

std::array<std::uint8_t, 12> open_payload_encode(const OpenPayload& o) {
    std::array<std::uint8_t, 12> out{};
    le32_put(&out[0], o.from);
    le32_put(&out[4], o.to);
    le32_put(&out[8], o.stream);
    return out;
}

OpenPayload open_payload_decode(std::span<const std::uint8_t, 12> bytes) {
    return OpenPayload{le32(bytes.data()), le32(bytes.data() + 4), le32(bytes.data() + 8)};
}

}  // namespace strata::relay
