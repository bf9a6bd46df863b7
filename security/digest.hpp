// SHA-256 of bytes and files, as lowercase hex (for checking staged files).
#pragma once

#include "security/x509.hpp"

#include <openssl/evp.h>

#include <cstddef>
#include <memory>
#include <string>

namespace strata::security {

class Sha256 {
public:
    Sha256();
    void update(const void* data, std::size_t n);
    std::string hex();  // finishes; call once

private:
    struct Free {
        void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
    };
    std::unique_ptr<EVP_MD_CTX, Free> ctx_;
};

}  // namespace strata::security
