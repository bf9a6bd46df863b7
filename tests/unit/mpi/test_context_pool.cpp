// The wire form of the context mask (mpi/comms/context_pool.hpp): pair p is bit
// p % 8 of byte p / 8 on every machine, and ANDing wire masks byte by byte
// agrees with ANDing the masks.
#include <catch2/catch.hpp>

#include <array>
#include <cstddef>
#include <cstring>

#include "mpi/comms/context_pool.hpp"

using strata::mpi::ContextPool;

namespace {

using MaskBytes = std::array<std::byte, sizeof(ContextPool::Mask)>;

MaskBytes bytes_of(const ContextPool::Mask& m) {
    MaskBytes b;
    std::memcpy(b.data(), m.data(), sizeof m);
    return b;
}

}  // namespace

TEST_CASE("the mask travels as little-endian words", "[context_pool]") {
    ContextPool::Mask m{};
    m[0] = 0x1;                   // pair 0
    m[1] = 0x8000000000000002;    // pairs 65 and 127
    m[127] = 0x0000010000000000;  // pair 127 * 64 + 40
    const MaskBytes wire = bytes_of(ContextPool::to_wire(m));
    MaskBytes expected{};
    expected[0] = std::byte{0x01};
    expected[8] = std::byte{0x02};
    expected[15] = std::byte{0x80};
    expected[127 * 8 + 5] = std::byte{0x01};
    CHECK(wire == expected);
    CHECK(ContextPool::from_wire(ContextPool::to_wire(m)) == m);
}

TEST_CASE("a bytewise AND of wire masks is the wire mask of the AND", "[context_pool]") {
    ContextPool a, b;
    a.take(2);
    a.take(70);
    b.take(3);
    const MaskBytes wa = bytes_of(ContextPool::to_wire(a.mask()));
    const MaskBytes wb = bytes_of(ContextPool::to_wire(b.mask()));
    ContextPool::Mask anded{};
    MaskBytes wand;
    for (std::size_t i = 0; i < wand.size(); ++i) wand[i] = wa[i] & wb[i];
    std::memcpy(anded.data(), wand.data(), sizeof anded);
    const ContextPool::Mask agreed = ContextPool::from_wire(anded);
    CHECK(ContextPool::lowest(agreed) == 4);
    ContextPool::Mask expected{};
    for (std::size_t i = 0; i < expected.size(); ++i) expected[i] = a.mask()[i] & b.mask()[i];
    CHECK(agreed == expected);
}
