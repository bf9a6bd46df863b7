#include "security/x509.hpp"
#include "tests/unit/security/scratch_dir.hpp"

#include <catch2/catch.hpp>

#include <openssl/x509v3.h>

#include <fstream>
#include <iterator>

namespace fs = std::filesystem;
using namespace strata::security;
namespace base = strata::base;
using strata::test::ScratchDir;

namespace {

std::string file_text(const fs::path& p) {
    std::ifstream in(p);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST_CASE("a multi-component DN round-trips through the Globus form", "[security][x509]") {
    const std::string dn = "/C=NL/O=Strata Grid/OU=Physics/OU=Users/CN=Jane Doe";
    base::Result<X509NamePtr> name = name_from_globus(dn);
    REQUIRE(name.ok());
    CHECK(X509_NAME_entry_count(name.value().get()) == 5);
    CHECK(name_to_globus(name.value().get()) == dn);

    // The same text OpenSSL's legacy one-line form gives for ASCII names.
    char oneline[256];
    X509_NAME_oneline(name.value().get(), oneline, sizeof oneline);
    CHECK(std::string(oneline) == dn);
}

TEST_CASE("a component without '=' continues the previous value, as Globus host DNs do",
          "[security][x509]") {
    base::Result<X509NamePtr> name = name_from_globus("/O=Strata Grid/CN=host/node1.example.org");
    REQUIRE(name.ok());
    REQUIRE(X509_NAME_entry_count(name.value().get()) == 2);
    char cn[128];
    X509_NAME_get_text_by_NID(name.value().get(), NID_commonName, cn, sizeof cn);
    CHECK(std::string(cn) == "host/node1.example.org");
    CHECK(name_to_globus(name.value().get()) == "/O=Strata Grid/CN=host/node1.example.org");
}

TEST_CASE("UTF-8 values are kept as they are", "[security][x509]") {
    const std::string dn = "/O=Strata Grid/CN=J\xc3\xbcrgen M\xc3\xbcller";
    base::Result<X509NamePtr> name = name_from_globus(dn);
    REQUIRE(name.ok());
    CHECK(name_to_globus(name.value().get()) == dn);
}

TEST_CASE("malformed DNs are refused with the DN in the message", "[security][x509]") {
    base::Result<X509NamePtr> no_slash = name_from_globus("O=Strata Grid");
    CHECK_FALSE(no_slash.ok());
    CHECK_THAT(no_slash.error(), Catch::Contains("slash form"));
    base::Result<X509NamePtr> bad_attr = name_from_globus("/O=Strata/XYZZY=1");
    CHECK_FALSE(bad_attr.ok());
    CHECK_THAT(bad_attr.error(), Catch::Contains("XYZZY"));
    CHECK_FALSE(name_from_globus("/O=").ok());
    CHECK_FALSE(name_from_globus("/junk/O=x").ok());
    CHECK_FALSE(name_from_globus("/O=a//CN=b").ok());
    CHECK_FALSE(name_from_globus("/O=a/").ok());
}

TEST_CASE("grid-mapfile quoting escapes quotes and backslashes", "[security][x509]") {
    CHECK(gridmap_quote("/O=Strata Grid/CN=Jane Doe") == "\"/O=Strata Grid/CN=Jane Doe\"");
    CHECK(gridmap_quote("/CN=a\"b\\c") == "\"/CN=a\\\"b\\\\c\"");
}

TEST_CASE("a self-signed CA certificate has the CA extensions and verifies", "[security][x509]") {
    base::Result<PkeyPtr> key = key_create();
    REQUIRE(key.ok());
    CHECK(EVP_PKEY_is_a(key.value().get(), "EC"));
    base::Result<X509NamePtr> subject = name_from_globus("/O=Strata Grid/CN=Test CA");
    REQUIRE(subject.ok());
    CertRequest req;
    req.kind = CertKind::ca;
    req.subject = subject.value().get();
    req.subject_key = key.value().get();
    req.lifetime = std::chrono::days{10};
    base::Result<X509Ptr> cert = cert_create(req);
    REQUIRE(cert.ok());
    X509* c = cert.value().get();
    CHECK(X509_verify(c, key.value().get()) == 1);
    CHECK(X509_check_ca(c) == 1);
    CHECK((X509_get_key_usage(c) & (KU_KEY_CERT_SIGN | KU_CRL_SIGN)) == (KU_KEY_CERT_SIGN | KU_CRL_SIGN));
    CHECK(X509_get0_subject_key_id(c) != nullptr);
    int crit = 0;
    auto* bc = static_cast<BASIC_CONSTRAINTS*>(X509_get_ext_d2i(c, NID_basic_constraints, &crit, nullptr));
    REQUIRE(bc != nullptr);
    CHECK(bc->ca != 0);
    CHECK(crit == 1);
    BASIC_CONSTRAINTS_free(bc);

    // Serial numbers are random, positive, and differ between certificates.
    base::Result<X509Ptr> again = cert_create(req);
    REQUIRE(again.ok());
    const ASN1_INTEGER* s1 = X509_get0_serialNumber(c);
    const ASN1_INTEGER* s2 = X509_get0_serialNumber(again.value().get());
    CHECK(ASN1_INTEGER_cmp(s1, s2) != 0);
    CHECK(ASN1_STRING_type(s1) == V_ASN1_INTEGER);
    CHECK(ASN1_STRING_length(s1) >= 8);
}

TEST_CASE("PEM save and load round-trip", "[security][x509]") {
    ScratchDir dir;
    REQUIRE_FALSE(dir.path().empty());
    base::Result<PkeyPtr> key = key_create();
    REQUIRE(key.ok());
    base::Result<std::string> pem = key_to_pem(key.value().get());
    REQUIRE(pem.ok());
    std::vector<FileContent> files{{dir.path() / "key.pem", pem.value()}};
    REQUIRE(files_write_atomic(files, false).ok());
    CHECK(fs::status(dir.path() / "key.pem").permissions() ==
          (fs::perms::owner_read | fs::perms::owner_write));
    base::Result<PkeyPtr> loaded = key_load_pem(dir.path() / "key.pem");
    REQUIRE(loaded.ok());
    CHECK(EVP_PKEY_eq(loaded.value().get(), key.value().get()) == 1);

    base::Result<X509Ptr> missing = cert_load_pem(dir.path() / "nothing.pem");
    CHECK_FALSE(missing.ok());
    CHECK_THAT(missing.error(), Catch::Contains((dir.path() / "nothing.pem").string()));
    base::Result<X509Ptr> not_cert = cert_load_pem(dir.path() / "key.pem");
    CHECK_FALSE(not_cert.ok());
    CHECK_THAT(not_cert.error(), Catch::Contains("no PEM certificate"));
}

TEST_CASE("atomic writes refuse existing files and leave nothing half-written", "[security][x509]") {
    ScratchDir dir;
    REQUIRE_FALSE(dir.path().empty());
    std::vector<FileContent> first{{dir.path() / "a.pem", "old a"}, {dir.path() / "b.pem", "old b"}};
    REQUIRE(files_write_atomic(first, false).ok());

    // b exists: neither file changes, and no temporary file stays behind.
    fs::remove(dir.path() / "a.pem");
    std::vector<FileContent> second{{dir.path() / "a.pem", "new a"}, {dir.path() / "b.pem", "new b"}};
    base::Status refused = files_write_atomic(second, false);
    CHECK_FALSE(refused.ok());
    CHECK_THAT(refused.error(), Catch::Contains((dir.path() / "b.pem").string()));
    CHECK_THAT(refused.error(), Catch::Contains("--force"));
    CHECK_FALSE(fs::exists(dir.path() / "a.pem"));
    CHECK(file_text(dir.path() / "b.pem") == "old b");

    REQUIRE(files_write_atomic(second, true).ok());
    CHECK(file_text(dir.path() / "a.pem") == "new a");
    CHECK(file_text(dir.path() / "b.pem") == "new b");

    // A target in a missing directory fails before anything is renamed.
    std::vector<FileContent> third{{dir.path() / "c.pem", "c"}, {dir.path() / "no" / "d.pem", "d"}};
    CHECK_FALSE(files_write_atomic(third, true).ok());
    CHECK_FALSE(fs::exists(dir.path() / "c.pem"));
    size_t entries = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path())) ++entries;
    CHECK(entries == 2);
}
