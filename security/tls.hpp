// TLS for the gatekeeper protocol: both sides present a certificate, and each
// accepts only a peer whose chain ends at a CA in the trusted-CA directory
// (the X509_CERT_DIR layout strata-ca writes). TLS 1.2 is the minimum.
// Revocation lists in that directory (<hash>.rN, as `strata-ca revoke` and
// `openssl rehash` name them) are honoured for every certificate of the
// chain: a revoked certificate is refused, and so is one whose CA's list has
// expired or is not validly signed. A CA that publishes no list there is
// accepted without one (as Globus does).
//
// Where credentials are found, as Globus tools look for them:
//   a proxy           $X509_USER_PROXY, else /tmp/x509up_u<uid> if it exists
//                     (security/proxy.hpp; strata-proxy-init makes one)
//   user certificate  $X509_USER_CERT, else ~/.strata/usercert.pem
//   user key          $X509_USER_KEY,  else ~/.strata/userkey.pem
//   trusted CAs       $X509_CERT_DIR,  else ~/.strata/certificates
#pragma once

#include "security/x509.hpp"

#include <boost/asio/ssl/context.hpp>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace strata::security {

enum class TlsRole { client, server };

struct TlsCredential {
    std::filesystem::path cert;
    std::filesystem::path key;
    std::filesystem::path ca_dir;
    bool proxy = false;  // cert and key are one proxy file
};

// The user's credential from the environment and defaults above: the proxy
// when there is one, else the certificate and key. Fails when
// X509_USER_PROXY names a missing file, or no home directory is known and a
// variable is unset.
base::Result<TlsCredential> user_credential_find();

// A context that presents `cred.cert`/`cred.key` and verifies the peer
// against `cred.ca_dir`. Fails, naming the file, when one cannot be read, the
// key can be read by anyone but its owner (with the chmod that fixes it), the
// key does not belong to the certificate, or the certificate has expired.
// Proxy certificates are accepted in the peer's chain (RFC 3820 rules).
base::Result<std::shared_ptr<boost::asio::ssl::context>> tls_context_make(TlsRole role, const TlsCredential& cred);

// What a context reads from a trusted-CA directory: the certificates (<hash>.N)
// and revocation lists (<hash>.rN), each by name, size, times and inode (of
// the file a link names). OpenSSL reads these files when a handshake first
// needs them and then keeps them for the context's lifetime (a list rewritten
// in place is never read again), so a server that must honour a new list
// compares stamps before it accepts a connection and makes a new context when
// they differ. A directory that cannot be read has an empty stamp.
struct CaDirStamp {
    struct File {
        std::string name;
        std::uintmax_t size = 0;
        std::int64_t mtime_ns = 0;
        std::int64_t ctime_ns = 0;  // also moves when a file is replaced with one of the same mtime
        std::uint64_t inode = 0;
        bool operator==(const File&) const = default;
    };
    std::vector<File> files;  // by name

    bool operator==(const CaDirStamp&) const = default;
    // The names added, removed or changed since `before`, for messages.
    std::vector<std::string> changed_since(const CaDirStamp& before) const;
};
CaDirStamp ca_dir_stamp(const std::filesystem::path& ca_dir);

// Every verification callback runs this first (a TLS stream that sets its
// own callback, e.g. for host names, calls it before its own check): it
// forgives only "no revocation list for this CA".
bool tls_verify_step(bool preverified, X509_STORE_CTX* ctx);

// The verified peer's end-entity subject in the Globus form
// ("/O=Strata Grid/OU=Users/CN=Jane Doe"): for a proxy chain, the identity
// the proxies act for. Empty when there is none.
std::string tls_peer_subject(SSL* ssl);

// The subject of the certificate the peer presented, verified or not (for
// logging a refusal); empty when it presented none.
std::string tls_presented_subject(SSL* ssl);

// The verified peer chain, leaf first (owned by the connection).
std::vector<X509*> tls_peer_chain(SSL* ssl);

// Whether the peer's certificate was accepted (or never checked); the
// failure says why it was refused (the X509 verification result), for
// messages.
base::Status tls_verify_status(SSL* ssl);

}  // namespace strata::security
