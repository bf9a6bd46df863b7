#include "security/cert_authority.hpp"
#include "tests/unit/security/scratch_dir.hpp"

#include <catch2/catch.hpp>

#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>

#include <unistd.h>

namespace fs = std::filesystem;
using namespace strata::security;
namespace base = strata::base;
using strata::test::ScratchDir;

namespace {

struct StoreFree {
    void operator()(X509_STORE* p) const { X509_STORE_free(p); }
};
struct StoreCtxFree {
    void operator()(X509_STORE_CTX* p) const { X509_STORE_CTX_free(p); }
};

// X509_verify_cert against a store that finds CAs in a hashed directory
// (X509_LOOKUP_hash_dir, as X509_CERT_DIR users do). 0 is X509_V_OK.
int verify_with_dir(const fs::path& capath, X509* cert, int purpose) {
    std::unique_ptr<X509_STORE, StoreFree> store(X509_STORE_new());
    X509_LOOKUP* lookup = X509_STORE_add_lookup(store.get(), X509_LOOKUP_hash_dir());
    if (!lookup || X509_LOOKUP_add_dir(lookup, capath.c_str(), X509_FILETYPE_PEM) != 1) return -1;
    std::unique_ptr<X509_STORE_CTX, StoreCtxFree> ctx(X509_STORE_CTX_new());
    if (X509_STORE_CTX_init(ctx.get(), store.get(), cert, nullptr) != 1) return -1;
    if (purpose != 0) X509_STORE_CTX_set_purpose(ctx.get(), purpose);
    if (X509_verify_cert(ctx.get()) == 1) return X509_V_OK;
    return X509_STORE_CTX_get_error(ctx.get());
}

std::string subject_of(X509* cert) { return name_to_globus(X509_get_subject_name(cert)); }

fs::perms mode_of(const fs::path& p) { return fs::status(p).permissions() & fs::perms::mask; }

constexpr fs::perms kOwnerRw = fs::perms::owner_read | fs::perms::owner_write;

std::string openssl_on_path() {
    const char* path = std::getenv("PATH");
    std::stringstream dirs(path ? path : "");
    std::string dir;
    while (std::getline(dirs, dir, ':')) {
        fs::path candidate = fs::path(dir.empty() ? "." : dir) / "openssl";
        if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
    }
    return {};
}

std::string shell_quote(const std::string& s) {
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

struct Grid {
    ScratchDir scratch;
    fs::path ca_dir = scratch.path() / "ca";
    fs::path cert_dir = scratch.path() / "certificates";
    CaCreated made;
    CertAuthority ca;

    Grid() {
        CaCreateOptions opts;
        opts.dir = ca_dir;
        opts.cert_dir = cert_dir;
        opts.subject = "/O=Strata Grid/OU=Testing/CN=Strata Test CA";
        base::Result<CaCreated> created = ca_create(opts);
        REQUIRE(created.ok());
        made = created.value();
        base::Result<CertAuthority> loaded = ca_load(ca_dir);
        REQUIRE(loaded.ok());
        ca = std::move(loaded.value());
    }

    Issued issue(CertKind kind, const std::string& name, const std::string& out) {
        IssueOptions opts;
        opts.kind = kind;
        opts.name = name;
        opts.out_dir = scratch.path() / out;
        base::Result<Issued> issued = cert_issue(ca, opts);
        REQUIRE(issued.ok());
        return issued.value();
    }
};

X509Ptr load(const fs::path& p) {
    base::Result<X509Ptr> cert = cert_load_pem(p);
    REQUIRE(cert.ok());
    return std::move(cert.value());
}

}  // namespace

TEST_CASE("create-ca writes a self-signed CA trusted through the hashed directory", "[security][ca]") {
    Grid grid;
    CHECK(grid.made.cert_file == grid.ca_dir / "cacert.pem");
    CHECK(grid.made.subject == "/O=Strata Grid/OU=Testing/CN=Strata Test CA");
    CHECK(mode_of(grid.made.key_file) == kOwnerRw);
    CHECK(mode_of(grid.ca_dir) == fs::perms::owner_all);

    X509Ptr cert = load(grid.made.cert_file);
    std::string hash = cert_subject_hash(cert.get());
    CHECK(grid.made.installed == grid.cert_dir / (hash + ".0"));
    CHECK(fs::exists(grid.cert_dir / (hash + ".0")));
    CHECK(fs::exists(grid.cert_dir / (hash + ".signing_policy")));
    CHECK(X509_check_ca(cert.get()) == 1);
    CHECK(X509_check_issued(cert.get(), cert.get()) == X509_V_OK);
    CHECK(verify_with_dir(grid.cert_dir, cert.get(), 0) == X509_V_OK);

    // Installing the same CA again reuses its entry; another CA with the same
    // subject (same hash) gets the next number.
    base::Result<fs::path> again = cert_dir_install(grid.cert_dir, cert.get(), "/O=Strata Grid");
    REQUIRE(again.ok());
    CHECK(again.value() == grid.cert_dir / (hash + ".0"));
    CaCreateOptions twin;
    twin.dir = grid.scratch.path() / "twin";
    twin.cert_dir = grid.cert_dir;
    twin.subject = grid.made.subject;
    base::Result<CaCreated> twin_made = ca_create(twin);
    REQUIRE(twin_made.ok());
    CHECK(twin_made.value().installed == grid.cert_dir / (hash + ".1"));
    CHECK(verify_with_dir(grid.cert_dir, cert.get(), 0) == X509_V_OK);

    // One signing_policy entry for the DN they share.
    std::ifstream in(grid.cert_dir / (hash + ".signing_policy"));
    std::string policy{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    CHECK_THAT(policy, Catch::Contains("access_id_CA X509 '" + grid.made.subject + "'"));
    CHECK_THAT(policy, Catch::Contains("cond_subjects globus '\"/O=Strata Grid/OU=Testing/*\"'"));
    CHECK(policy.find("access_id_CA") == policy.rfind("access_id_CA"));
}

TEST_CASE("replacing a CA with --force takes the old one's trusted entry", "[security][ca]") {
    Grid grid;
    Issued old_user = grid.issue(CertKind::user, "Jane Doe", "jane");
    X509Ptr old_cert = load(old_user.cert_file);
    CHECK(verify_with_dir(grid.cert_dir, old_cert.get(), 0) == X509_V_OK);

    CaCreateOptions opts;
    opts.dir = grid.ca_dir;
    opts.cert_dir = grid.cert_dir;
    opts.subject = grid.made.subject;
    opts.overwrite = true;
    base::Result<CaCreated> replaced = ca_create(opts);
    REQUIRE(replaced.ok());
    CHECK(replaced.value().installed == grid.made.installed);
    fs::path second = grid.made.installed;
    CHECK_FALSE(fs::exists(second.replace_extension(".1")));
    CHECK(verify_with_dir(grid.cert_dir, old_cert.get(), 0) != X509_V_OK);
    CHECK(verify_with_dir(grid.cert_dir, load(replaced.value().cert_file).get(), 0) == X509_V_OK);
}

TEST_CASE("host certificates verify against the CA with server and client EKUs", "[security][ca]") {
    Grid grid;
    Issued host = grid.issue(CertKind::host, "node1.example.org", "host1");
    CHECK(host.cert_file == grid.scratch.path() / "host1" / "hostcert.pem");
    CHECK(host.key_file == grid.scratch.path() / "host1" / "hostkey.pem");
    CHECK(mode_of(host.key_file) == kOwnerRw);

    X509Ptr cert = load(host.cert_file);
    CHECK(subject_of(cert.get()) == "/O=Strata Grid/OU=Testing/CN=host/node1.example.org");
    CHECK(host.subject == subject_of(cert.get()));
    CHECK(name_to_globus(X509_get_issuer_name(cert.get())) == grid.made.subject);
    CHECK(X509_check_ca(cert.get()) == 0);
    CHECK((X509_get_extended_key_usage(cert.get()) & (XKU_SSL_SERVER | XKU_SSL_CLIENT)) ==
          (XKU_SSL_SERVER | XKU_SSL_CLIENT));
    CHECK(X509_check_host(cert.get(), "node1.example.org", 0, 0, nullptr) == 1);
    CHECK(X509_check_host(cert.get(), "node2.example.org", 0, 0, nullptr) == 0);
    CHECK(verify_with_dir(grid.cert_dir, cert.get(), X509_PURPOSE_SSL_SERVER) == X509_V_OK);
    CHECK(verify_with_dir(grid.cert_dir, cert.get(), X509_PURPOSE_SSL_CLIENT) == X509_V_OK);

    base::Result<PkeyPtr> key = key_load_pem(host.key_file);
    REQUIRE(key.ok());
    CHECK(X509_check_private_key(cert.get(), key.value().get()) == 1);

    Issued by_address = grid.issue(CertKind::host, "192.0.2.7", "host2");
    X509Ptr addr_cert = load(by_address.cert_file);
    CHECK(X509_check_ip_asc(addr_cert.get(), "192.0.2.7", 0) == 1);
    CHECK(verify_with_dir(grid.cert_dir, addr_cert.get(), X509_PURPOSE_SSL_SERVER) == X509_V_OK);
}

TEST_CASE("user certificates verify as clients only", "[security][ca]") {
    Grid grid;
    Issued user = grid.issue(CertKind::user, "Jane Doe", "jane");
    CHECK(user.cert_file == grid.scratch.path() / "jane" / "usercert.pem");
    CHECK(mode_of(user.key_file) == kOwnerRw);
    X509Ptr cert = load(user.cert_file);
    CHECK(subject_of(cert.get()) == "/O=Strata Grid/OU=Testing/OU=Users/CN=Jane Doe");
    CHECK(gridmap_quote(user.subject) == "\"/O=Strata Grid/OU=Testing/OU=Users/CN=Jane Doe\"");
    CHECK(X509_get_extended_key_usage(cert.get()) == XKU_SSL_CLIENT);
    CHECK(verify_with_dir(grid.cert_dir, cert.get(), X509_PURPOSE_SSL_CLIENT) == X509_V_OK);
    CHECK(verify_with_dir(grid.cert_dir, cert.get(), X509_PURPOSE_SSL_SERVER) ==
          X509_V_ERR_INVALID_PURPOSE);

    // Another CA's directory does not vouch for it.
    ScratchDir other;
    CaCreateOptions opts;
    opts.dir = other.path() / "ca";
    opts.cert_dir = other.path() / "certificates";
    opts.subject = "/O=Elsewhere/CN=Other CA";
    REQUIRE(ca_create(opts).ok());
    CHECK(verify_with_dir(opts.cert_dir, cert.get(), 0) == X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY);
}

TEST_CASE("the openssl command accepts the certificates through -CApath", "[security][ca]") {
    std::string openssl = openssl_on_path();
    if (openssl.empty()) {
        WARN("skipped: no openssl program on PATH");
        return;
    }
    Grid grid;
    Issued host = grid.issue(CertKind::host, "node1", "host");
    Issued user = grid.issue(CertKind::user, "Jane Doe", "user");
    fs::path log = grid.scratch.path() / "verify.log";
    std::string command = shell_quote(openssl) + " verify -CApath " + shell_quote(grid.cert_dir.string()) +
                          " " + shell_quote(grid.made.cert_file.string()) + " " +
                          shell_quote(host.cert_file.string()) + " " + shell_quote(user.cert_file.string()) +
                          " >" + shell_quote(log.string()) + " 2>&1";
    INFO(command);
    CHECK(std::system(command.c_str()) == 0);

    // And it rejects them without the CA.
    fs::path empty = grid.scratch.path() / "empty";
    fs::create_directory(empty);
    std::string without = shell_quote(openssl) + " verify -CApath " + shell_quote(empty.string()) + " " +
                          shell_quote(user.cert_file.string()) + " >" + shell_quote(log.string()) + " 2>&1";
    CHECK(std::system(without.c_str()) != 0);
}

TEST_CASE("existing files are not overwritten without the overwrite flag", "[security][ca]") {
    Grid grid;
    Issued first = grid.issue(CertKind::user, "Jane Doe", "jane");
    X509Ptr before = load(first.cert_file);

    IssueOptions opts;
    opts.kind = CertKind::user;
    opts.name = "John Roe";
    opts.out_dir = grid.scratch.path() / "jane";
    base::Result<Issued> refused = cert_issue(grid.ca, opts);
    CHECK_FALSE(refused.ok());
    CHECK_THAT(refused.error(), Catch::Contains(first.cert_file.string()));
    CHECK_THAT(refused.error(), Catch::Contains("--force"));
    X509Ptr after = load(first.cert_file);
    CHECK(X509_cmp(before.get(), after.get()) == 0);

    opts.overwrite = true;
    base::Result<Issued> replaced = cert_issue(grid.ca, opts);
    REQUIRE(replaced.ok());
    CHECK(subject_of(load(first.cert_file).get()) == "/O=Strata Grid/OU=Testing/OU=Users/CN=John Roe");
    CHECK(mode_of(first.key_file) == kOwnerRw);

    CaCreateOptions ca_again;
    ca_again.dir = grid.ca_dir;
    ca_again.cert_dir = grid.cert_dir;
    base::Result<CaCreated> ca_refused = ca_create(ca_again);
    CHECK_FALSE(ca_refused.ok());
    CHECK_THAT(ca_refused.error(), Catch::Contains("already exists"));
    CHECK_THAT(ca_refused.error(), Catch::Contains(grid.ca_dir.string()));
}

TEST_CASE("a missing CA is reported with the command that creates it", "[security][ca]") {
    ScratchDir dir;
    base::Result<CertAuthority> ca = ca_load(dir.path() / "ca");
    CHECK_FALSE(ca.ok());
    CHECK_THAT(ca.error(), Catch::Contains((dir.path() / "ca" / "cacert.pem").string()));
    CHECK_THAT(ca.error(), Catch::Contains("strata-ca create-ca --dir " + (dir.path() / "ca").string()));
}

TEST_CASE("bad host names and a mismatched CA key are refused", "[security][ca]") {
    Grid grid;
    IssueOptions opts;
    opts.kind = CertKind::host;
    opts.out_dir = grid.scratch.path() / "bad";
    for (const char* name : {"", "bad/name", "two words", "-leading.dash"}) {
        opts.name = name;
        base::Result<Issued> r = cert_issue(grid.ca, opts);
        CHECK_FALSE(r.ok());
    }
    CHECK_FALSE(fs::exists(grid.scratch.path() / "bad" / "hostcert.pem"));

    // Replace the CA key with another key: loading names the key file.
    base::Result<PkeyPtr> stranger = key_create();
    REQUIRE(stranger.ok());
    base::Result<std::string> pem = key_to_pem(stranger.value().get());
    REQUIRE(pem.ok());
    std::vector<FileContent> swap{{grid.made.key_file, pem.value()}};
    REQUIRE(files_write_atomic(swap, true).ok());
    base::Result<CertAuthority> broken = ca_load(grid.ca_dir);
    CHECK_FALSE(broken.ok());
    CHECK_THAT(broken.error(), Catch::Contains(grid.made.key_file.string()));
}
