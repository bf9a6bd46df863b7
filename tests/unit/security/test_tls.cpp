#include "security/cert_authority.hpp"
#include "security/tls.hpp"
#include "tests/unit/security/test_credential.hpp"

#include <catch2/catch.hpp>
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>

#include <sys/stat.h>

#include <fstream>

namespace fs = std::filesystem;
using namespace strata::security;
namespace base = strata::base;

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
        CHECK(ctx.error() == "");
        CHECK(ctx.value() != nullptr);
    }
}

TEST_CASE("tls: a key others can read is refused, with the fix", "[security][tls]") {
    Credential c;
    for (unsigned mode : {0640u, 0604u, 0644u}) {
        REQUIRE(::chmod(c.cred.key.c_str(), mode) == 0);
        auto ctx = tls_context_make(TlsRole::client, c.cred);
        char text[8];
        std::snprintf(text, sizeof text, "%04o", mode);
        CHECK(ctx.error() == "the private key " + c.cred.key.string() + " can be read by others (mode " + text +
                                 "); make it private with: chmod 600 " + c.cred.key.string());
    }
    REQUIRE(::chmod(c.cred.key.c_str(), 0400) == 0);
    CHECK(tls_context_make(TlsRole::client, c.cred).ok());
}

TEST_CASE("tls: missing files and a foreign key are named", "[security][tls]") {
    Credential c;
    TlsCredential missing = c.cred;
    missing.cert = c.scratch.path() / "nope.pem";
    CHECK(tls_context_make(TlsRole::client, missing).error() ==
          "cannot read the certificate " + missing.cert.string() + ": No such file or directory");
    TlsCredential no_dir = c.cred;
    no_dir.ca_dir = c.scratch.path() / "no-such-dir";
    CHECK(tls_context_make(TlsRole::server, no_dir)
              .error()
              .rfind("the trusted-CA directory " + no_dir.ca_dir.string() + " does not exist", 0) == 0);
    // Another credential's key does not belong to this certificate.
    Credential other;
    TlsCredential mixed = c.cred;
    mixed.key = other.cred.key;
    CHECK(tls_context_make(TlsRole::client, mixed).error() ==
          "the private key " + mixed.key.string() + " does not belong to the certificate " + mixed.cert.string());
}

namespace {

// The X509 verification result for `cert_file` against a context's trusted
// CAs and revocation lists, as a handshake would check a client's chain.
int verify_with(boost::asio::ssl::context& ctx, const fs::path& cert_file) {
    auto cert = cert_load_pem(cert_file);
    REQUIRE(cert.ok());
    X509_STORE* trusted = SSL_CTX_get_cert_store(ctx.native_handle());
    X509_STORE_CTX* store_ctx = X509_STORE_CTX_new();
    REQUIRE(X509_STORE_CTX_init(store_ctx, trusted, cert.value().get(), nullptr) == 1);
    X509_STORE_CTX_set_verify_cb(store_ctx,
                                 [](int ok, X509_STORE_CTX* c) { return tls_verify_step(ok != 0, c) ? 1 : 0; });
    X509_verify_cert(store_ctx);
    const int result = X509_STORE_CTX_get_error(store_ctx);
    X509_STORE_CTX_free(store_ctx);
    return result;
}

Issued user_issue(const Credential& c, const std::string& name) {
    base::Result<CertAuthority> ca = ca_load(c.scratch.path() / "ca");
    REQUIRE(ca.ok());
    IssueOptions opts;
    opts.name = name;
    opts.out_dir = c.scratch.path() / name;
    base::Result<Issued> made = cert_issue(ca.value(), opts);
    REQUIRE(made.ok());
    return made.value();
}

void revoke(const Credential& c, const Issued& who) {
    base::Result<CertAuthority> ca = ca_load(c.scratch.path() / "ca");
    REQUIRE(ca.ok());
    RevokeOptions opts;
    opts.ca_dir = c.scratch.path() / "ca";
    opts.cert_dir = c.cred.ca_dir;
    opts.cert_file = who.cert_file;
    REQUIRE(cert_revoke(ca.value(), opts).ok());
}

}  // namespace

// What lets a gatekeeper honour a second revocation without a restart: the
// list is rewritten under the same name, the stamp sees it, and a new context
// reads it.
TEST_CASE("tls: the trusted-CA directory's stamp sees a list rewritten in place", "[security][tls]") {
    Credential c;
    const Issued bob = user_issue(c, "Bob");
    const Issued carl = user_issue(c, "Carl");
    const CaDirStamp before = ca_dir_stamp(c.cred.ca_dir);
    REQUIRE(before.files.size() == 1);  // the CA's <hash>.0
    const std::string list = before.files[0].name.substr(0, 8) + ".r0";
    // Files OpenSSL does not read do not count.
    std::ofstream(c.cred.ca_dir / "README") << "notes\n";
    std::ofstream(c.cred.ca_dir / (before.files[0].name.substr(0, 8) + ".signing_policy"), std::ios::app) << "\n";
    CHECK(ca_dir_stamp(c.cred.ca_dir) == before);

    revoke(c, carl);
    const CaDirStamp one = ca_dir_stamp(c.cred.ca_dir);
    CHECK(one.changed_since(before) == std::vector<std::string>{list});
    auto first = tls_context_make(TlsRole::server, c.cred);
    REQUIRE(first.ok());
    CHECK(verify_with(*first.value(), carl.cert_file) == X509_V_ERR_CERT_REVOKED);
    CHECK(verify_with(*first.value(), bob.cert_file) == X509_V_OK);

    revoke(c, bob);  // the same file, with both
    const CaDirStamp two = ca_dir_stamp(c.cred.ca_dir);
    CHECK(two != one);
    CHECK(two.changed_since(one) == std::vector<std::string>{list});
    auto second = tls_context_make(TlsRole::server, c.cred);
    REQUIRE(second.ok());
    CHECK(verify_with(*second.value(), bob.cert_file) == X509_V_ERR_CERT_REVOKED);
    CHECK(verify_with(*second.value(), c.cred.cert) == X509_V_OK);

    fs::remove(c.cred.ca_dir / list);
    CHECK(ca_dir_stamp(c.cred.ca_dir).changed_since(two) == std::vector<std::string>{list});
    CHECK(ca_dir_stamp(c.cred.ca_dir) == before);
    CHECK(ca_dir_stamp(c.scratch.path() / "no-such-dir").files.empty());
}
