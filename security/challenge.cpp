#include "security/challenge.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <initializer_list>
#include <string_view>
#include <vector>

namespace strata::security {

namespace {

std::string_view role_name(ProofRole role) {
    switch (role) {
        case ProofRole::control_mpirun: return "strata control mpirun";
        case ProofRole::control_rank: return "strata control rank";
        case ProofRole::control_names: return "strata control names";
        case ProofRole::link_acceptor: return "strata link acceptor";
        case ProofRole::link_connector: return "strata link connector";
        case ProofRole::link_tls_key: return "strata link tls key";
        case ProofRole::relay_acceptor: return "strata relay acceptor";
        case ProofRole::relay_connector: return "strata relay connector";
        case ProofRole::port_acceptor: return "strata port acceptor";
        case ProofRole::port_connector: return "strata port connector";
        case ProofRole::port_set_key: return "strata port set key";
        case ProofRole::port_credential: return "strata port credential";
    }
    return {};
}

void le32_append(std::vector<std::uint8_t>& out, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}

}  // namespace

bool nonce_fill(Nonce& out) { return RAND_bytes(out.data(), static_cast<int>(out.size())) == 1; }

namespace {

Proof proof_of(const std::string& key, ProofRole role, const Nonce& connector, const Nonce& acceptor,
               std::initializer_list<std::uint32_t> words) {
    const std::string_view name = role_name(role);
    std::vector<std::uint8_t> message(name.begin(), name.end());
    message.push_back(0);
    message.insert(message.end(), connector.begin(), connector.end());
    message.insert(message.end(), acceptor.begin(), acceptor.end());
    for (const std::uint32_t w : words) le32_append(message, w);
    Proof proof{};
    unsigned int length = 0;
    HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), message.data(), message.size(), proof.data(),
         &length);
    return proof;
}

}  // namespace

Proof proof_make(const std::string& key, ProofRole role, const Nonce& connector, const Nonce& acceptor,
                 std::uint32_t a, std::uint32_t b) {
    return proof_of(key, role, connector, acceptor, {a, b});
}

Proof proof_make(const std::string& key, ProofRole role, const Nonce& connector, const Nonce& acceptor,
                 std::uint32_t a, std::uint32_t b, std::uint32_t c) {
    return proof_of(key, role, connector, acceptor, {a, b, c});
}

bool proof_equal(const Proof& x, const Proof& y) { return CRYPTO_memcmp(x.data(), y.data(), x.size()) == 0; }

}  // namespace strata::security
