#include "security/digest.hpp"

#include <new>

namespace strata::security {

Sha256::Sha256() : ctx_(EVP_MD_CTX_new()) {
    // Only allocation can fail here; there is no sensible way on without a digest.
    if (!ctx_ || EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr) != 1) throw std::bad_alloc();
}

void Sha256::update(const void* data, std::size_t n) { EVP_DigestUpdate(ctx_.get(), data, n); }

std::string Sha256::hex() {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    EVP_DigestFinal_ex(ctx_.get(), md, &len);
    static const char* digits = "0123456789abcdef";
    std::string out;
    for (unsigned int i = 0; i < len; ++i) {
        out += digits[md[i] >> 4];
        out += digits[md[i] & 15];
    }
    return out;
}

}  // namespace strata::security
