#include "security/challenge.hpp"

#include <catch2/catch.hpp>

#include <set>
#include <string>

using namespace strata::security;

namespace {

Nonce counting(std::uint8_t from) {
    Nonce n{};
    for (std::size_t i = 0; i < n.size(); ++i) n[i] = static_cast<std::uint8_t>(from + i);
    return n;
}

std::string hex(const Proof& p) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    for (std::uint8_t b : p) {
        out.push_back(kHex[b >> 4]);
        out.push_back(kHex[b & 15]);
    }
    return out;
}

}  // namespace

TEST_CASE("a proof is HMAC-SHA256 over the documented layout", "[security][challenge]") {
    // Computed independently: Python's hmac.new(key, b"strata link connector\0"
    // + bytes(range(32)) + bytes(range(32, 64)) + struct.pack("<II", 1, 0), sha256).
    const std::string key(64, 'k');
    CHECK(hex(proof_make(key, ProofRole::link_connector, counting(0), counting(32), 1, 0)) ==
          "4791df3fe155ec43b334fd79991120e26201e034fad5d7e74facf4362e348f4c");
    // A third word (a TCP link's stream index) follows: struct.pack("<III", 1, 0, 2).
    CHECK(hex(proof_make(key, ProofRole::link_connector, counting(0), counting(32), 1, 0, 2)) ==
          "a5cfaac4c4d030c96754005ebacbc10cbceb9fe7a0a17386ca47a11e5e24c217");
}

TEST_CASE("a proof changes with every input", "[security][challenge]") {
    const std::string key(64, 'a');
    const Nonce c = counting(0);
    const Nonce a = counting(100);
    std::set<std::string> seen;
    seen.insert(hex(proof_make(key, ProofRole::link_connector, c, a, 1, 2)));
    // Each role: a proof cannot be reflected back as the other side's.
    seen.insert(hex(proof_make(key, ProofRole::link_acceptor, c, a, 1, 2)));
    seen.insert(hex(proof_make(key, ProofRole::control_rank, c, a, 1, 2)));
    seen.insert(hex(proof_make(key, ProofRole::control_mpirun, c, a, 1, 2)));
    // Another key, either nonce (a replay meets a new acceptor nonce), the bound numbers.
    seen.insert(hex(proof_make(std::string(64, 'b'), ProofRole::link_connector, c, a, 1, 2)));
    seen.insert(hex(proof_make(key, ProofRole::link_connector, counting(1), a, 1, 2)));
    seen.insert(hex(proof_make(key, ProofRole::link_connector, c, counting(101), 1, 2)));
    seen.insert(hex(proof_make(key, ProofRole::link_connector, c, a, 2, 1)));
    seen.insert(hex(proof_make(key, ProofRole::link_connector, c, a, 1, 3)));
    // A third word, and each value of it.
    seen.insert(hex(proof_make(key, ProofRole::link_connector, c, a, 1, 2, 1)));
    seen.insert(hex(proof_make(key, ProofRole::link_connector, c, a, 1, 2, 2)));
    CHECK(seen.size() == 11);
    // And it is a function of them.
    CHECK(proof_equal(proof_make(key, ProofRole::link_connector, c, a, 1, 2),
                      proof_make(key, ProofRole::link_connector, c, a, 1, 2)));
}

TEST_CASE("nonces are fresh", "[security][challenge]") {
    Nonce x{};
    Nonce y{};
    REQUIRE(nonce_fill(x));
    REQUIRE(nonce_fill(y));
    CHECK(x != y);
    CHECK(x != Nonce{});
}

TEST_CASE("proof_equal compares every byte", "[security][challenge]") {
    Proof p = proof_make("key", ProofRole::control_rank, counting(0), counting(1), 0, 0);
    for (std::size_t i = 0; i < p.size(); ++i) {
        Proof q = p;
        q[i] ^= 1;
        CHECK_FALSE(proof_equal(p, q));
    }
}
