// The envelope's wire form (adi/envelope.hpp): the header's layout with every
// multi-byte field little-endian, whatever the host.
#include <catch2/catch.hpp>

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>

#include "adi/envelope.hpp"

using namespace strata::adi;

namespace {

std::array<std::uint8_t, sizeof(Header)> memory_of(const Header& h) {
    std::array<std::uint8_t, sizeof(Header)> out{};
    std::memcpy(out.data(), &h, sizeof h);
    return out;
}

Header known() {
    Header h{};
    h.type = Packet::rts;
    h.flags = 0x5a;
    h.reserved = 0x0102;
    h.context = 0x03040506;
    h.source = -2;
    h.tag = 0x0708090a;
    h.length = 0x1122334455667788ull;
    h.sender_req = 0x0102030405060708ull;
    h.receiver_req = 0xa1a2a3a4a5a6a7a8ull;
    return h;
}

// known()'s header as it travels.
constexpr std::array<std::uint8_t, 40> kKnownWire = {
    0x03, 0x5a, 0x02, 0x01,                          // type, flags, reserved
    0x06, 0x05, 0x04, 0x03,                          // context
    0xfe, 0xff, 0xff, 0xff,                          // source
    0x0a, 0x09, 0x08, 0x07,                          // tag
    0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,  // length
    0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,  // sender_req
    0xa8, 0xa7, 0xa6, 0xa5, 0xa4, 0xa3, 0xa2, 0xa1,  // receiver_req
};

}  // namespace

TEST_CASE("envelope: a header's wire form is its fields little-endian, in order") {
    Header w = known();
    to_wire(w);
    CHECK(memory_of(w) == kKnownWire);
    Header scratch{};
    CHECK(memory_of(wire_bytes(known(), scratch)) == kKnownWire);
}

TEST_CASE("envelope: a header read back from its wire form has the values sent") {
    Header w{};
    std::memcpy(&w, kKnownWire.data(), sizeof w);
    from_wire(w);
    const Header& h = w;
    const Header k = known();
    CHECK(h.type == k.type);
    CHECK(h.flags == k.flags);
    CHECK(h.reserved == k.reserved);
    CHECK(h.context == k.context);
    CHECK(h.source == k.source);
    CHECK(h.tag == k.tag);
    CHECK(h.length == k.length);
    CHECK(h.sender_req == k.sender_req);
    CHECK(h.receiver_req == k.receiver_req);
}

TEST_CASE("envelope: on a little-endian host the sender's header goes as it is") {
    const Header h = known();
    Header scratch{};
    const Header& w = wire_bytes(h, scratch);
    if constexpr (std::endian::native == std::endian::little) {
        CHECK(&w == &h);  // nothing copied on the send path
    } else {
        CHECK(&w == &scratch);
    }
}
