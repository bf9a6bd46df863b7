#include "security/job_key.hpp"

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include <array>
#include <cstddef>

namespace strata::security {

base::Result<std::string> job_key_create() {
    std::array<unsigned char, 32> bytes{};
    if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1)
        return base::Error{"cannot create the job key: OpenSSL's random generator failed"};
    static constexpr char kHex[] = "0123456789abcdef";
    std::string key;
    key.reserve(bytes.size() * 2);
    for (unsigned char b : bytes) {
        key.push_back(kHex[b >> 4]);
        key.push_back(kHex[b & 0x0f]);
    }
    OPENSSL_cleanse(bytes.data(), bytes.size());
    return key;
}

}  // namespace strata::security
