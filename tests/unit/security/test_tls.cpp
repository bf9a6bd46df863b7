#include "security/cert_authority.hpp"
#include "security/tls.hpp"
#include "tests/unit/security/test_credential.hpp"

#include <catch2/catch.hpp>

#include <sys/stat.h>

namespace fs = std::filesystem;
using namespace strata::security;

namespace {

// A CA and a user credential in a scratch directory.
struct Credential {
    strata::test::TestUser user;
    TlsCredential cred{user.issued.cert_file, user.issued.key_file, user.ca_dir};
    strata::test::ScratchDir& scratch = user.scratch;
};

}  // namespace

TEST_CASE("tls: a context from a complete credential", "[security][tls]") {
    Credential c;
    for (TlsRole role : {TlsRole::client, TlsRole::server}) {
        auto ctx = tls_context_make(role, c.cred);
        CHECK(ctx.error == "");
        CHECK(ctx.value != nullptr);
    }
}

TEST_CASE("tls: a key others can read is refused, with the fix", "[security][tls]") {
    Credential c;
    for (unsigned mode : {0640u, 0604u, 0644u}) {
        REQUIRE(::chmod(c.cred.key.c_str(), mode) == 0);
        auto ctx = tls_context_make(TlsRole::client, c.cred);
        char text[8];
        std::snprintf(text, sizeof text, "%04o", mode);
        CHECK(ctx.error == "the private key " + c.cred.key.string() + " can be read by others (mode " + text +
                               "); make it private with: chmod 600 " + c.cred.key.string());
    }
    REQUIRE(::chmod(c.cred.key.c_str(), 0400) == 0);
    CHECK(tls_context_make(TlsRole::client, c.cred).ok());
}

TEST_CASE("tls: missing files and a foreign key are named", "[security][tls]") {
    Credential c;
    TlsCredential missing = c.cred;
    missing.cert = c.scratch.path() / "nope.pem";
    CHECK(tls_context_make(TlsRole::client, missing).error ==
          "cannot read the certificate " + missing.cert.string() + ": No such file or directory");
    TlsCredential no_dir = c.cred;
    no_dir.ca_dir = c.scratch.path() / "no-such-dir";
    CHECK(tls_context_make(TlsRole::server, no_dir).error.rfind("the trusted-CA directory " + no_dir.ca_dir.string() +
                                                                    " does not exist",
                                                                0) == 0);
    // Another credential's key does not belong to this certificate.
    Credential other;
    TlsCredential mixed = c.cred;
    mixed.key = other.cred.key;
    CHECK(tls_context_make(TlsRole::client, mixed).error ==
          "the private key " + mixed.key.string() + " does not belong to the certificate " + mixed.cert.string());
}
