#include "security/cert_authority.hpp"

#include <openssl/err.h>
#include <openssl/objects.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include <arpa/inet.h>
#include <unistd.h>

#include <ctime>
#include <vector>

namespace strata::security {

namespace fs = std::filesystem;

namespace {

constexpr fs::perms kPrivateDir = fs::perms::owner_all;
constexpr fs::perms kPublicDir = fs::perms::owner_all | fs::perms::group_read |
                                 fs::perms::group_exec | fs::perms::others_read |
                                 fs::perms::others_exec;
constexpr fs::perms kKeyMode = fs::perms::owner_read | fs::perms::owner_write;
constexpr fs::perms kCertMode = kKeyMode | fs::perms::group_read | fs::perms::others_read;

bool is_address(const std::string& name) {
    unsigned char buf[16];
    return inet_pton(AF_INET, name.c_str(), buf) == 1 || inet_pton(AF_INET6, name.c_str(), buf) == 1;
}

bool is_dns_name(const std::string& name) {
    if (name.empty() || name.size() > 253 || name.front() == '.' || name.front() == '-') return false;
    size_t label = 0;
    for (char c : name) {
        bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (c == '.') {
            if (label == 0) return false;
            label = 0;
        } else if (alnum || c == '-') {
            if (++label > 63) return false;
        } else {
            return false;
        }
    }
    return true;
}

bool has_control_chars(const std::string& s) {
    for (unsigned char c : s) {
        if (c < 0x20 || c == 0x7f) return true;
    }
    return false;
}

// The CA subject without CN entries, as a new name to extend.
X509NamePtr name_base(X509* ca_cert) {
    const X509_NAME* ca_name = X509_get_subject_name(ca_cert);
    X509NamePtr base(X509_NAME_new());
    for (int i = 0; base && i < X509_NAME_entry_count(ca_name); ++i) {
        const X509_NAME_ENTRY* e = X509_NAME_get_entry(ca_name, i);
        if (OBJ_obj2nid(X509_NAME_ENTRY_get_object(e)) == NID_commonName) continue;
        X509_NAME_add_entry(base.get(), e, -1, 0);
    }
    return base;
}

base::Status name_add(X509_NAME* name, const char* field, const std::string& value) {
    if (X509_NAME_add_entry_by_txt(name, field, MBSTRING_UTF8,
                                   reinterpret_cast<const unsigned char*>(value.c_str()), -1, -1,
                                   0) != 1) {
        return base::Error{"cannot use \"" + value + "\" as " + field + ": " + openssl_error_take()};
    }
    return {};
}

// Signs `req` and writes its subject key and the certificate, both or neither.
base::Result<X509Ptr> sign_and_write(const CertRequest& req, const fs::path& key_file, const fs::path& cert_file,
                                     bool overwrite) {
    base::Result<X509Ptr> cert = cert_create(req);
    if (!cert.ok()) return cert;
    base::Result<std::string> cert_pem = cert_to_pem(cert.value().get());
    if (!cert_pem.ok()) return cert_pem.failure();
    base::Result<std::string> key_pem = key_to_pem(req.subject_key);
    if (!key_pem.ok()) return key_pem.failure();
    std::vector<FileContent> files{{key_file, std::move(key_pem.value()), kKeyMode},
                                   {cert_file, std::move(cert_pem.value()), kCertMode}};
    if (base::Status s = files_write_atomic(files, overwrite); !s.ok()) return s.failure();
    return cert;
}

}  // namespace

base::Result<CaCreated> ca_create(const CaCreateOptions& opts) {
    auto fail = [](std::string text) { return base::Error{std::move(text)}; };
    base::Result<X509NamePtr> subject = name_from_globus(opts.subject);
    if (!subject.ok()) return fail(subject.error() + " (--subject)");
    if (opts.lifetime.count() <= 0) return fail("the CA lifetime must be at least one day (--days)");
    if (base::Status s = directory_create(opts.dir, kPrivateDir); !s.ok()) return s.failure();

    CaCreated made{ca_cert_file(opts.dir), ca_key_file(opts.dir), {}, {}};
    // With overwrite, the CA being replaced loses its place among the trusted.
    X509Ptr replaced;
    std::error_code exists_ec;
    if (opts.overwrite && fs::exists(made.cert_file, exists_ec)) {
        base::Result<X509Ptr> old = cert_load_pem(made.cert_file);
        if (old.ok()) replaced = std::move(old.value());
    }
    if (!opts.overwrite) {
        for (const fs::path& f : {made.cert_file, made.key_file}) {
            std::error_code ec;
            if (fs::exists(fs::symlink_status(f, ec))) {
                return fail("a CA already exists in " + opts.dir.string() + " (" + f.string() +
                            "); use it, choose another --dir, or pass --force to replace it "
                            "(certificates it issued will stop verifying)");
            }
        }
    }
    // Check the trusted directory first: a CA nobody trusts is no use.
    if (base::Status s = directory_create(opts.cert_dir, kPublicDir); !s.ok()) {
        return fail(s.error() + " (the trusted-CA directory; choose another with --certdir)");
    }
    if (::access(opts.cert_dir.c_str(), W_OK) != 0) {
        return fail("cannot write in the trusted-CA directory " + opts.cert_dir.string() +
                    "; choose another with --certdir or unset X509_CERT_DIR");
    }
    base::Result<PkeyPtr> key = key_create();
    if (!key.ok()) return key.failure();
    CertRequest req;
    req.kind = CertKind::ca;
    req.subject = subject.value().get();
    req.subject_key = key.value().get();
    req.lifetime = opts.lifetime;
    base::Result<X509Ptr> cert = sign_and_write(req, made.key_file, made.cert_file, opts.overwrite);
    if (!cert.ok()) return cert.failure();

    base::Result<fs::path> installed =
        cert_dir_install(opts.cert_dir, cert.value().get(), ca_subject_base(cert.value().get()), replaced.get());
    if (!installed.ok()) {
        return fail("the CA is in " + opts.dir.string() + " but it could not be trusted: " + installed.error());
    }
    made.installed = installed.value();
    made.subject = name_to_globus(X509_get_subject_name(cert.value().get()));
    return made;
}

base::Result<CertAuthority> ca_load(const fs::path& dir) {
    auto fail = [](std::string text) { return base::Error{std::move(text)}; };
    fs::path cert_file = ca_cert_file(dir);
    fs::path key_file = ca_key_file(dir);
    std::error_code ec;
    for (const fs::path& f : {cert_file, key_file}) {
        if (!fs::exists(f, ec)) {
            return fail("no CA in " + dir.string() + ": " + f.string() +
                        " does not exist; run `strata-ca create-ca --dir " + dir.string() +
                        "` first, or point --ca at an existing CA directory");
        }
    }
    CertAuthority ca;
    base::Result<X509Ptr> cert = cert_load_pem(cert_file);
    if (!cert.ok()) return cert.failure();
    base::Result<PkeyPtr> key = key_load_pem(key_file);
    if (!key.ok()) return key.failure();
    if (X509_check_private_key(cert.value().get(), key.value().get()) != 1) {
        ERR_clear_error();
        return fail(key_file.string() + " is not the key of " + cert_file.string() +
                    "; restore the matching pair or create a new CA");
    }
    ca.cert = std::move(cert.value());
    ca.key = std::move(key.value());
    return ca;
}

std::string ca_subject_base(X509* ca_cert) {
    X509NamePtr base = name_base(ca_cert);
    return base ? name_to_globus(base.get()) : std::string{};
}

base::Result<Issued> cert_issue(const CertAuthority& ca, const IssueOptions& opts) {
    auto fail = [](std::string text) { return base::Error{std::move(text)}; };
    bool host = opts.kind == CertKind::host;
    if (opts.kind == CertKind::ca) return fail("cert_issue makes host and user certificates only");
    if (opts.lifetime.count() <= 0) return fail("the lifetime must be at least one day (--days)");

    std::vector<std::string> alt_names;
    if (host) {
        bool address = is_address(opts.name);
        if (!address && !is_dns_name(opts.name)) {
            return fail("\"" + opts.name +
                        "\" is not a host name or IP address (--name); use letters, digits, "
                        "'-' and '.', such as node1.example.org");
        }
        alt_names.push_back("DNS:" + opts.name);
        if (address) alt_names.push_back("IP:" + opts.name);
    } else {
        if (opts.name.empty() || has_control_chars(opts.name)) {
            return fail("give the user's name with --name, such as --name \"Jane Doe\"");
        }
        if (opts.ou.empty() || has_control_chars(opts.ou)) return fail("the --ou value is empty");
    }

    X509NamePtr subject = name_base(ca.cert.get());
    if (!subject) return fail(openssl_error_take());
    if (!host) {
        if (base::Status s = name_add(subject.get(), "OU", opts.ou); !s.ok()) return s.failure();
    }
    if (base::Status s = name_add(subject.get(), "CN", host ? "host/" + opts.name : opts.name); !s.ok()) {
        return s.failure();
    }

    if (base::Status s = directory_create(opts.out_dir, host ? kPublicDir : kPrivateDir); !s.ok()) {
        return s.failure();
    }
    Issued made{opts.out_dir / (host ? "hostcert.pem" : "usercert.pem"),
                opts.out_dir / (host ? "hostkey.pem" : "userkey.pem"), {}};
    if (!opts.overwrite) {
        for (const fs::path& f : {made.cert_file, made.key_file}) {
            std::error_code ec;
            if (fs::exists(fs::symlink_status(f, ec))) {
                return fail(f.string() + " already exists; move it away, choose another --out, "
                            "or pass --force to replace it");
            }
        }
    }

    base::Result<PkeyPtr> key = key_create();
    if (!key.ok()) return key.failure();
    CertRequest req;
    req.kind = opts.kind;
    req.subject = subject.get();
    req.subject_key = key.value().get();
    req.issuer = ca.cert.get();
    req.issuer_key = ca.key.get();
    req.lifetime = opts.lifetime;
    req.alt_names = std::move(alt_names);
    base::Result<X509Ptr> cert = sign_and_write(req, made.key_file, made.cert_file, opts.overwrite);
    if (!cert.ok()) return cert.failure();
    made.subject = name_to_globus(subject.get());
    return made;
}

namespace {

struct CrlFree {
    void operator()(X509_CRL* c) const { X509_CRL_free(c); }
};
using CrlPtr = std::unique_ptr<X509_CRL, CrlFree>;

base::Result<CrlPtr> crl_load_pem(const fs::path& file) {
    base::Result<std::string> text = file_read(file, "revocation list");
    if (!text.ok()) return text.failure();
    BioPtr bio(BIO_new_mem_buf(text.value().data(), static_cast<int>(text.value().size())));
    CrlPtr crl(bio ? PEM_read_bio_X509_CRL(bio.get(), nullptr, nullptr, nullptr) : nullptr);
    if (!crl) return base::Error{"cannot read the revocation list " + file.string() + ": " + openssl_error_take()};
    return crl;
}

base::Result<std::string> crl_to_pem(X509_CRL* crl) {
    BioPtr bio(BIO_new(BIO_s_mem()));
    if (!bio || PEM_write_bio_X509_CRL(bio.get(), crl) != 1)
        return base::Error{"cannot encode the revocation list: " + openssl_error_take()};
    return bio_text(bio.get());
}

std::string serial_hex(const ASN1_INTEGER* serial) {
    BIGNUM* bn = ASN1_INTEGER_to_BN(serial, nullptr);
    char* hex = bn != nullptr ? BN_bn2hex(bn) : nullptr;
    std::string out = hex != nullptr ? hex : "?";
    OPENSSL_free(hex);
    BN_free(bn);
    return out;
}

}  // namespace

base::Result<Revocation> cert_revoke(const CertAuthority& ca, const RevokeOptions& opts) {
    base::Result<X509Ptr> cert = cert_load_pem(opts.cert_file);
    if (!cert.ok()) return cert.failure();
    X509* victim = cert.value().get();
    if (X509_check_issued(ca.cert.get(), victim) != X509_V_OK ||
        X509_verify(victim, X509_get0_pubkey(ca.cert.get())) != 1) {
        ERR_clear_error();
        return base::Error{opts.cert_file.string() + " was not issued by the CA " +
                           name_to_globus(X509_get_subject_name(ca.cert.get())) + "; only its issuer can revoke it"};
    }
    Revocation out;
    out.subject = name_to_globus(X509_get_subject_name(victim));
    out.serial = serial_hex(X509_get0_serialNumber(victim));
    out.crl_file = opts.ca_dir / "crl.pem";

    CrlPtr crl(X509_CRL_new());
    if (!crl || X509_CRL_set_version(crl.get(), X509_CRL_VERSION_2) != 1 ||
        X509_CRL_set_issuer_name(crl.get(), X509_get_subject_name(ca.cert.get())) != 1)
        return base::Error{"cannot make a revocation list: " + openssl_error_take()};
    // Keep what the CA revoked before.
    bool already = false;
    std::error_code ec;
    if (fs::exists(out.crl_file, ec)) {
        base::Result<CrlPtr> old = crl_load_pem(out.crl_file);
        if (!old.ok()) return old.failure();
        STACK_OF(X509_REVOKED)* entries = X509_CRL_get_REVOKED(old.value().get());
        for (int i = 0; i < sk_X509_REVOKED_num(entries); ++i) {
            X509_REVOKED* e = sk_X509_REVOKED_value(entries, i);
            if (ASN1_INTEGER_cmp(X509_REVOKED_get0_serialNumber(e), X509_get0_serialNumber(victim)) == 0)
                already = true;
            X509_REVOKED* copy = X509_REVOKED_dup(e);
            if (copy == nullptr || X509_CRL_add0_revoked(crl.get(), copy) != 1) {
                X509_REVOKED_free(copy);
                return base::Error{"cannot copy the revocation list " + out.crl_file.string() + ": " +
                                   openssl_error_take()};
            }
        }
    }
    const std::time_t now = std::time(nullptr);
    if (!already) {
        X509_REVOKED* entry = X509_REVOKED_new();
        ASN1_TIME* when = ASN1_TIME_set(nullptr, now);
        // The setter copies the serial; its parameter is not const only by age.
        auto* serial = const_cast<ASN1_INTEGER*>(X509_get0_serialNumber(victim));
        const bool ok = entry != nullptr && when != nullptr && X509_REVOKED_set_serialNumber(entry, serial) == 1 &&
                        X509_REVOKED_set_revocationDate(entry, when) == 1 && X509_CRL_add0_revoked(crl.get(), entry) == 1;
        ASN1_TIME_free(when);
        if (!ok) {
            X509_REVOKED_free(entry);
            return base::Error{"cannot add to the revocation list: " + openssl_error_take()};
        }
    }
    ASN1_TIME* last = ASN1_TIME_set(nullptr, now - 300);  // clock skew, as for certificates
    ASN1_TIME* next = ASN1_TIME_set(
        nullptr, now + static_cast<std::time_t>(std::chrono::seconds(opts.next_update).count()));
    const bool timed = last != nullptr && next != nullptr && X509_CRL_set1_lastUpdate(crl.get(), last) == 1 &&
                       X509_CRL_set1_nextUpdate(crl.get(), next) == 1;
    ASN1_TIME_free(last);
    ASN1_TIME_free(next);
    if (!timed || X509_CRL_sort(crl.get()) != 1 || X509_CRL_sign(crl.get(), ca.key.get(), EVP_sha256()) == 0)
        return base::Error{"cannot sign the revocation list: " + openssl_error_take()};
    out.revoked_count = static_cast<std::size_t>(sk_X509_REVOKED_num(X509_CRL_get_REVOKED(crl.get())));
    base::Result<std::string> pem = crl_to_pem(crl.get());
    if (!pem.ok()) return pem.failure();

    // <hash>.rN: the first N that is free or already holds this CA's list.
    const std::string hash = cert_subject_hash(ca.cert.get());
    for (int n = 0;; ++n) {
        out.installed = opts.cert_dir / (hash + ".r" + std::to_string(n));
        if (!fs::exists(out.installed, ec)) break;
        base::Result<CrlPtr> there = crl_load_pem(out.installed);
        if (there.ok() &&
            X509_NAME_cmp(X509_CRL_get_issuer(there.value().get()), X509_get_subject_name(ca.cert.get())) == 0)
            break;
    }
    std::vector<FileContent> files{{out.crl_file, pem.value(), kCertMode}, {out.installed, pem.value(), kCertMode}};
    if (base::Status s = files_write_atomic(files, true); !s.ok()) return s.failure();
    return out;
}

}  // namespace strata::security
