// A small certificate authority for setting up a grid: one CA key and
// self-signed certificate in a directory, and host and user certificates
// issued by it.
//
// Layout of a CA directory: cacert.pem (the CA certificate) and cakey.pem
// (its private key, mode 0600; the directory is created 0700). Issued
// certificates take their subject from the CA's: the CA subject without its
// CN entries, then for hosts "CN=host/<name>" (the Globus convention), for
// users "OU=<ou>/CN=<name>". So the CA "/O=Strata Grid/CN=Strata CA" issues
// "/O=Strata Grid/CN=host/node1" and "/O=Strata Grid/OU=Users/CN=Jane Doe".
#pragma once

#include "security/x509.hpp"

#include <chrono>
#include <filesystem>
#include <string>

namespace strata::security {

struct CertAuthority {
    X509Ptr cert;
    PkeyPtr key;
};

inline std::filesystem::path ca_cert_file(const std::filesystem::path& dir) { return dir / "cacert.pem"; }
inline std::filesystem::path ca_key_file(const std::filesystem::path& dir) { return dir / "cakey.pem"; }

struct CaCreateOptions {
    std::filesystem::path dir;       // receives cacert.pem and cakey.pem
    std::filesystem::path cert_dir;  // trusted CA directory (X509_CERT_DIR layout)
    std::string subject = "/O=Strata Grid/CN=Strata CA";
    std::chrono::days lifetime{3650};
    bool overwrite = false;
};

struct CaCreated {
    std::filesystem::path cert_file;
    std::filesystem::path key_file;
    std::filesystem::path installed;  // <cert_dir>/<hash>.N
    std::string subject;              // Globus form
};

// Refuses (naming the file) when cacert.pem or cakey.pem exists, unless
// overwrite is set.
base::Result<CaCreated> ca_create(const CaCreateOptions& opts);

// Fails with a message saying how to create the CA when it is missing.
base::Result<CertAuthority> ca_load(const std::filesystem::path& dir);

// The CA subject without its CN entries, in Globus form ("/O=Strata Grid").
std::string ca_subject_base(X509* ca_cert);

struct IssueOptions {
    CertKind kind = CertKind::user;   // host or user
    std::string name;                 // host name or address, or the person's name
    std::string ou = "Users";         // users only
    std::filesystem::path out_dir;    // host{cert,key}.pem or user{cert,key}.pem go here
    std::chrono::days lifetime{365};
    bool overwrite = false;
};

struct Issued {
    std::filesystem::path cert_file;
    std::filesystem::path key_file;
    std::string subject;  // Globus form
};

// Makes a key and a certificate signed by the CA and writes both (key 0600)
// or neither. Host names must be DNS names or IP addresses; the
// subjectAltName carries DNS:<name>, plus IP:<name> for an address.
base::Result<Issued> cert_issue(const CertAuthority& ca, const IssueOptions& opts);

struct RevokeOptions {
    std::filesystem::path ca_dir;     // holds crl.pem, the CA's list
    std::filesystem::path cert_dir;   // trusted CA directory: receives <hash>.rN
    std::filesystem::path cert_file;  // the certificate to revoke
    std::chrono::days next_update{30};
};

struct Revocation {
    std::filesystem::path crl_file;   // <ca_dir>/crl.pem
    std::filesystem::path installed;  // <cert_dir>/<hash>.rN
    std::string subject;              // Globus form, of the revoked certificate
    std::string serial;               // hex
    std::size_t revoked_count = 0;    // entries in the new list
};

// Adds the certificate's serial to the CA's revocation list (a v2 CRL, signed
// SHA-256, next update after next_update) and installs the list where
// X509_LOOKUP_hash_dir finds it, so TLS peers that load the directory refuse
// the certificate. Refuses a certificate the CA did not issue. Revoking a
// certificate twice re-signs the list without a second entry.
base::Result<Revocation> cert_revoke(const CertAuthority& ca, const RevokeOptions& opts);

}  // namespace strata::security
