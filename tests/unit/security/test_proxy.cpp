#include "security/cert_authority.hpp"
#include "security/proxy.hpp"
#include "tests/unit/security/test_credential.hpp"

#include <catch2/catch.hpp>

#include <sys/stat.h>

namespace fs = std::filesystem;
using namespace strata::security;
namespace base = strata::base;

namespace {

// Jane Doe's certificate and key, in memory.
struct User {
    strata::test::TestUser files;
    strata::test::ScratchDir& scratch = files.scratch;
    X509Ptr cert;
    PkeyPtr key;

    explicit User(int days = 365) : files(days) {
        cert = std::move(cert_load_pem(files.issued.cert_file).value());
        key = std::move(key_load_pem(files.issued.key_file).value());
        REQUIRE(cert);
        REQUIRE(key);
    }

    ProxyCredential proxy(ProxyPolicy policy = ProxyPolicy::impersonation, long lifetime = 3600) {
        base::Result<PkeyPtr> fresh = key_create();
        REQUIRE(fresh.ok());
        ProxyRequest req;
        req.issuer = cert.get();
        req.issuer_key = key.get();
        req.subject_key = fresh.value().get();
        req.lifetime = std::chrono::seconds(lifetime);
        req.policy = policy;
        base::Result<X509Ptr> made = proxy_create(req);
        REQUIRE(made.ok());
        ProxyCredential c;
        c.cert = std::move(made.value());
        c.key = std::move(fresh.value());
        c.chain.emplace_back(X509_dup(cert.get()));
        return c;
    }
};

}  // namespace

TEST_CASE("proxy: subject, issuer, policy and identity", "[security][proxy]") {
    User u;
    ProxyCredential p = u.proxy();
    const std::string user = name_to_globus(X509_get_subject_name(u.cert.get()));
    const std::string subject = name_to_globus(X509_get_subject_name(p.cert.get()));
    REQUIRE(subject.rfind(user + "/CN=", 0) == 0);
    CHECK(subject.find_first_not_of("0123456789", user.size() + 4) == std::string::npos);
    CHECK(name_to_globus(X509_get_issuer_name(p.cert.get())) == user);
    CHECK(cert_is_proxy(p.cert.get()));
    CHECK_FALSE(cert_is_proxy(u.cert.get()));
    CHECK(proxy_policy(p.cert.get()) == ProxyPolicy::impersonation);
    CHECK(X509_verify(p.cert.get(), X509_get0_pubkey(u.cert.get())) == 1);
    CHECK(chain_identity({p.cert.get(), u.cert.get()}) == u.cert.get());
    int proxies = -1;
    CHECK(proxy_chain_check({p.cert.get(), u.cert.get()}, proxies).ok());
    CHECK(proxies == 1);
}

TEST_CASE("proxy: limited and independent policies are refused for jobs", "[security][proxy]") {
    User u;
    int proxies = 0;
    ProxyCredential limited = u.proxy(ProxyPolicy::limited);
    CHECK(proxy_policy(limited.cert.get()) == ProxyPolicy::limited);
    CHECK(proxy_chain_check({limited.cert.get(), u.cert.get()}, proxies).error().find("limited proxy") !=
          std::string::npos);
    ProxyCredential independent = u.proxy(ProxyPolicy::independent);
    CHECK(proxy_policy(independent.cert.get()) == ProxyPolicy::independent);
    CHECK(proxy_chain_check({independent.cert.get(), u.cert.get()}, proxies).error().find("independent") !=
          std::string::npos);
}

TEST_CASE("proxy: never outlives its issuer", "[security][proxy]") {
    User u(1);
    base::Result<PkeyPtr> fresh = key_create();
    ProxyRequest req;
    req.issuer = u.cert.get();
    req.issuer_key = u.key.get();
    req.subject_key = fresh.value().get();
    req.lifetime = std::chrono::hours(48);
    bool capped = false;
    base::Result<X509Ptr> made = proxy_create(req, &capped);
    REQUIRE(made.ok());
    CHECK(capped);
    CHECK(ASN1_TIME_compare(X509_get0_notAfter(made.value().get()), X509_get0_notAfter(u.cert.get())) == 0);
    // Another key cannot sign for this certificate.
    base::Result<PkeyPtr> other = key_create();
    req.issuer_key = other.value().get();
    CHECK_FALSE(proxy_create(req).ok());
}

TEST_CASE("proxy: a file round trip, and what a proxy file must hold", "[security][proxy]") {
    User u;
    ProxyCredential p = u.proxy();
    base::Result<std::string> pem = proxy_pem(p);
    REQUIRE(pem.ok());
    const fs::path file = u.scratch.path() / "proxy.pem";
    const FileContent content{file, pem.value()};
    REQUIRE(files_write_atomic({&content, 1}, false).ok());
    base::Result<ProxyCredential> back = proxy_load(file);
    REQUIRE(back.ok());
    CHECK(X509_cmp(back.value().cert.get(), p.cert.get()) == 0);
    REQUIRE(back.value().chain.size() == 1);
    CHECK(X509_cmp(back.value().chain[0].get(), u.cert.get()) == 0);
    CHECK(EVP_PKEY_eq(back.value().key.get(), p.key.get()) == 1);

    ::chmod(file.c_str(), 0640);
    CHECK(proxy_load(file).error().find("chmod 600 " + file.string()) != std::string::npos);
    ::chmod(file.c_str(), 0600);

    // The user's own certificate is no proxy; a proxy without its key is refused.
    const fs::path plain = u.scratch.path() / "plain.pem";
    const FileContent user_only{plain, cert_to_pem(u.cert.get()).value() + key_to_pem(u.key.get()).value()};
    REQUIRE(files_write_atomic({&user_only, 1}, false).ok());
    CHECK(proxy_load(plain).error().find("holds no proxy certificate") != std::string::npos);
    const fs::path keyless = u.scratch.path() / "keyless.pem";
    const FileContent no_key{keyless, cert_to_pem(p.cert.get()).value() + cert_to_pem(u.cert.get()).value()};
    REQUIRE(files_write_atomic({&no_key, 1}, false).ok());
    CHECK(proxy_load(keyless).error().find("holds no private key") != std::string::npos);
}
