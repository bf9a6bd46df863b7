// X.509 building blocks: keys, certificates, PEM files and the Globus
// slash-separated form of distinguished names.
//
// Used by the strata-ca tool and, later, by the gatekeeper. Everything here
// is a thin layer over the OpenSSL 3 C API: objects are owned through the
// unique_ptr aliases below, and failures come back as values (a base::Result
// or base::Status holding a message that names the file and says what to do),
// never as exceptions. Keys are EC P-256: small, fast to make and to verify, and
// accepted by every TLS stack the gatekeeper will meet.
//
// Files are written atomically: the content goes to a temporary file in the
// target directory, which is flushed and then renamed over the target, so a
// crash or an error never leaves half a key or certificate behind.
#pragma once

#include "base/result.hpp"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace strata::security {

struct PkeyFree {
    void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
};
struct X509Free {
    void operator()(X509* p) const { X509_free(p); }
};
struct X509NameFree {
    void operator()(X509_NAME* p) const { X509_NAME_free(p); }
};
struct BioFree {
    void operator()(BIO* p) const { BIO_free(p); }
};
using PkeyPtr = std::unique_ptr<EVP_PKEY, PkeyFree>;
using BioPtr = std::unique_ptr<BIO, BioFree>;
using X509Ptr = std::unique_ptr<X509, X509Free>;
using X509NamePtr = std::unique_ptr<X509_NAME, X509NameFree>;

// The text of the oldest queued OpenSSL error (the queue is then cleared),
// or "unknown OpenSSL error".
std::string openssl_error_take();

// The contents of a memory BIO.
std::string bio_text(BIO* bio);

// A whole file; the error names `what` and the path.
base::Result<std::string> file_read(const std::filesystem::path& file, std::string_view what);

// As Globus: a private key (or a proxy, which holds one) that the group or
// others can read is no longer private. Fails with the chmod that fixes it.
base::Status private_file_check(const std::filesystem::path& file, std::string_view what);

// "2026-11-24 16:02:11 UTC".
std::string asn1_time_text(const ASN1_TIME* t);

// A random positive 127-bit serial number.
base::Status serial_set_random(X509* cert);

// Adds an extension given in OpenSSL's configuration syntax
// ("critical,digitalSignature").
base::Status extension_add(X509* cert, X509V3_CTX* ctx, int nid, const std::string& value);

// A new EC P-256 key pair.
base::Result<PkeyPtr> key_create();

// PEM text of a private key (PKCS#8, unencrypted) and of a certificate.
base::Result<std::string> key_to_pem(EVP_PKEY* key);
base::Result<std::string> cert_to_pem(X509* cert);

// An encrypted key asks `passphrase` (OpenSSL's pem_password_cb, given
// `user`); without one only unencrypted keys load.
base::Result<PkeyPtr> key_load_pem(const std::filesystem::path& file, pem_password_cb* passphrase = nullptr,
                                   void* user = nullptr);
base::Result<X509Ptr> cert_load_pem(const std::filesystem::path& file);

// Every certificate in PEM text, in order (other PEM blocks are skipped).
std::vector<X509Ptr> certs_from_pem(std::string_view text);
// The PEM text of certificates, one after the other.
base::Result<std::string> certs_to_pem(const std::vector<X509*>& certs);

// "/O=Strata Grid/OU=Users/CN=Jane Doe": the form grid-mapfiles and Globus
// tools use. Attribute names are OpenSSL short names (the dotted OID when
// there is none); values are UTF-8, written as they are.
std::string name_to_globus(const X509_NAME* name);

// The inverse of name_to_globus. A component without '=' continues the
// previous value ("/CN=host/node1" is one CN, "host/node1"), as in Globus;
// "\/" is a literal slash. Fails on an empty DN or an unknown attribute.
base::Result<X509NamePtr> name_from_globus(std::string_view dn);

// The subject as a grid-mapfile DN: in double quotes, '"' and '\' escaped.
std::string gridmap_quote(std::string_view dn);

enum class CertKind {
    ca,    // basicConstraints CA:TRUE, keyUsage keyCertSign,cRLSign
    host,  // EKU serverAuth,clientAuth, subjectAltName from alt_names
    user,  // EKU clientAuth
};

struct CertRequest {
    CertKind kind = CertKind::user;
    const X509_NAME* subject = nullptr;
    EVP_PKEY* subject_key = nullptr;  // its public half goes into the certificate
    X509* issuer = nullptr;           // nullptr: self-signed by subject_key
    EVP_PKEY* issuer_key = nullptr;   // ignored when self-signed
    std::chrono::days lifetime{365};
    // Host certificates: "DNS:name" / "IP:address" entries.
    std::vector<std::string> alt_names;
};

// A v3 certificate with a random positive 128-bit serial, valid from five
// minutes ago (clock skew between hosts) for the lifetime, signed SHA-256.
base::Result<X509Ptr> cert_create(const CertRequest& req);

// The X509_LOOKUP_hash_dir name of a certificate's subject: 8 hex digits.
std::string cert_subject_hash(X509* cert);

struct FileContent {
    std::filesystem::path path;
    std::string data;
    std::filesystem::perms mode = std::filesystem::perms::owner_read |
                                  std::filesystem::perms::owner_write;
};

// Writes every file or none. Without overwrite, fails naming the first
// existing target before anything is written. Parent directories must exist.
base::Status files_write_atomic(std::span<const FileContent> files, bool overwrite);

// Creates a directory (and its parents) with the given mode for new levels.
base::Status directory_create(const std::filesystem::path& dir, std::filesystem::perms mode);

// Puts a CA certificate into an X509_CERT_DIR-style directory as
// "<subject-hash>.N" (the first N whose file is absent or already holds this
// certificate, as `openssl rehash` numbers them), plus a Globus
// "<subject-hash>.signing_policy" allowing the CA to sign the subjects under
// policy_prefix (a Globus DN such as "/O=Strata Grid"). A file holding
// `replaces` (a CA being replaced under the same subject) is reused rather
// than kept, so the old CA stops being trusted and the numbering has no gap
// (hash_dir lookups stop at the first missing number). Returns the path of
// the certificate file.
base::Result<std::filesystem::path> cert_dir_install(const std::filesystem::path& dir, X509* ca_cert,
                                                     std::string_view policy_prefix, X509* replaces = nullptr);

}  // namespace strata::security
