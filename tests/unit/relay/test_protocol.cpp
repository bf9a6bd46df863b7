// relay/protocol.hpp: every message encodes and decodes back, and the
// decoders refuse what is not one.
#include <catch2/catch.hpp>

#include "relay/protocol.hpp"

using namespace strata::relay;

namespace {

std::span<const std::uint8_t, kOpenSize> as_open(const std::array<std::uint8_t, kOpenSize>& a) { return a; }

Open open_sample() {
    Open o;
    o.kind = Kind::pair;
    o.from = 3;
    o.to = 0x01020304;
    o.stream = 9;
    o.token = 0x1122334455667788ull;
    for (std::size_t i = 0; i < o.nonce.size(); ++i) o.nonce[i] = static_cast<std::uint8_t>(i * 7);
    o.relay = Endpoint{0x0a000001, 4567};
    return o;
}

}  // namespace

TEST_CASE("relay protocol: an Open encodes and decodes back", "[relay][protocol]") {
    const Open o = open_sample();
    const auto bytes = open_encode(o);
    const auto back = open_decode(as_open(bytes));
    REQUIRE(back);
    CHECK(back->kind == o.kind);
    CHECK(back->from == o.from);
    CHECK(back->to == o.to);
    CHECK(back->stream == o.stream);
    CHECK(back->token == o.token);
    CHECK(back->nonce == o.nonce);
    CHECK(back->relay == o.relay);
    CHECK(le32(bytes.data()) == kOpenMagic);
}

TEST_CASE("relay protocol: open_decode refuses another magic, kind, pad or port", "[relay][protocol]") {
    const auto good = open_encode(open_sample());
    auto bad = good;
    bad[0] ^= 1;
    CHECK_FALSE(open_decode(as_open(bad)));
    for (const std::uint32_t kind : {0u, 4u, 11u, 0xffffffffu}) {
        bad = good;
        le32_put(&bad[4], kind);
        CHECK_FALSE(open_decode(as_open(bad)));
    }
    bad = good;
    bad[37] = 1;  // the pad
    CHECK_FALSE(open_decode(as_open(bad)));
    bad = good;
    le32_put(&bad[20], 65536);  // the port
    CHECK_FALSE(open_decode(as_open(bad)));
}

TEST_CASE("relay protocol: proofs bind the Open's kind, ranks and stream", "[relay][protocol]") {
    const Open o = open_sample();
    const strata::security::Nonce relay_nonce{};
    const auto proof = open_proof("key", strata::security::ProofRole::relay_connector, o, relay_nonce);
    Open other = o;
    other.kind = Kind::egress;
    CHECK_FALSE(strata::security::proof_equal(
        proof, open_proof("key", strata::security::ProofRole::relay_connector, other, relay_nonce)));
    other = o;
    other.stream = 10;
    CHECK_FALSE(strata::security::proof_equal(
        proof, open_proof("key", strata::security::ProofRole::relay_connector, other, relay_nonce)));
    CHECK_FALSE(strata::security::proof_equal(
        proof, open_proof("key", strata::security::ProofRole::relay_acceptor, o, relay_nonce)));
    CHECK_FALSE(strata::security::proof_equal(
        proof, open_proof("other key", strata::security::ProofRole::relay_connector, o, relay_nonce)));
}

TEST_CASE("relay protocol: a Notice encodes and decodes back; others are refused", "[relay][protocol]") {
    const Notice n{NoticeType::accept, 5, 6, 0xabcdef0123456789ull};
    const auto bytes = notice_encode(n);
    const auto back = notice_decode(bytes);
    REQUIRE(back);
    CHECK(back->type == n.type);
    CHECK(back->from == n.from);
    CHECK(back->stream == n.stream);
    CHECK(back->token == n.token);
    auto bad = bytes;
    le32_put(&bad[0], 2);  // no Notice of type 2
    CHECK_FALSE(notice_decode(bad));
    bad = bytes;
    bad[12] = 1;  // the pad
    CHECK_FALSE(notice_decode(bad));
}

TEST_CASE("relay protocol: frame headers allow each type's lengths only", "[relay][protocol]") {
    const auto fits = [](FrameType t, std::uint32_t length) {
        const auto bytes = frame_header_encode(FrameHeader{t, 42, length});
        const auto back = frame_header_decode(bytes);
        if (back) CHECK((back->type == t && back->id == 42 && back->length == length));
        return back.has_value();
    };
    CHECK(fits(FrameType::open, 12));
    CHECK_FALSE(fits(FrameType::open, 11));
    CHECK(fits(FrameType::data, 1));
    CHECK(fits(FrameType::data, kChunk));
    CHECK_FALSE(fits(FrameType::data, 0));
    CHECK_FALSE(fits(FrameType::data, kChunk + 1));
    CHECK(fits(FrameType::credit, 4));
    CHECK_FALSE(fits(FrameType::credit, 8));
    CHECK(fits(FrameType::close, 0));
    CHECK_FALSE(fits(FrameType::close, 1));
    CHECK(fits(FrameType::reset, 0));
    CHECK(fits(FrameType::reset, kReasonMax));
    CHECK_FALSE(fits(FrameType::reset, kReasonMax + 1));
    CHECK_FALSE(fits(FrameType::bye, 0));  // on stream 42: a bye is the link's, id 0
    CHECK(frame_header_decode(frame_header_encode(FrameHeader{FrameType::bye, 0, 0})));
    CHECK_FALSE(frame_header_decode(frame_header_encode(FrameHeader{FrameType::bye, 0, 1})));
    auto bad = frame_header_encode(FrameHeader{FrameType::close, 1, 0});
    bad[0] = 7;
    CHECK_FALSE(frame_header_decode(bad));
    bad[0] = static_cast<std::uint8_t>(FrameType::close);
    bad[2] = 1;
    CHECK_FALSE(frame_header_decode(bad));
}

TEST_CASE("relay protocol: endpoints parse and print back; others are refused", "[relay][protocol]") {
    const auto e = endpoint_parse("10.1.2.255:65535");
    REQUIRE(e);
    CHECK(e->address == 0x0a0102ffu);
    CHECK(e->port == 65535);
    CHECK(endpoint_text(*e) == "10.1.2.255:65535");
    for (const char* bad : {"", "1.2.3.4", "1.2.3:80", "256.0.0.1:80", "1.2.3.4:0", "1.2.3.4:65536", "1.2.3.4:80x",
                            " 1.2.3.4:80", "1.2.3.4.5:80", "-1.2.3.4:80", "1.2.3.4:0000080"})
        CHECK_FALSE(endpoint_parse(bad));
}

TEST_CASE("relay protocol: OPEN payloads encode and decode back", "[relay][protocol]") {
    const OpenPayload p{1, 2, 3};
    const auto back = open_payload_decode(open_payload_encode(p));
    CHECK((back.from == 1 && back.to == 2 && back.stream == 3));
}
