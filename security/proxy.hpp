// Proxy credentials: RFC 3820 proxy certificates, as Globus GSI uses them for
// single sign-on.
//
// A proxy is a short-lived certificate that the user's own key signs for a
// fresh key pair. Its subject is the issuer's subject plus one CN (the
// proxy's serial number), and its critical proxyCertInfo extension names a
// policy: impersonation (id-ppl-inheritAll: the bearer acts with all the
// user's rights), limited (Globus' OID: not allowed to start jobs), or
// independent (no rights of the issuer). A proxy file holds, in PEM, the
// proxy certificate, its unencrypted private key, then the issuing chain up
// to the user's certificate; it is mode 0600, so the key protects itself by
// file permission and expiry instead of a passphrase.
//
// Where the proxy is: $X509_USER_PROXY, else /tmp/x509up_u<uid> (Globus'
// default).
#pragma once

#include "security/x509.hpp"

#include <chrono>
#include <cstdint>
#include <memory>
#include <filesystem>
#include <string>
#include <vector>

namespace strata::security {

enum class ProxyPolicy { impersonation, limited, independent, unknown };

struct ProxyRequest {
    X509* issuer = nullptr;  // the user's certificate, or a proxy (further delegation)
    EVP_PKEY* issuer_key = nullptr;
    EVP_PKEY* subject_key = nullptr;  // the proxy's own key; its public half goes in
    // The end, from now (tests forge expired proxies with a negative one).
    std::chrono::seconds lifetime{12 * 3600};
    // Not-before, from now: five minutes back allows for clock skew.
    std::chrono::seconds start{-300};
    ProxyPolicy policy = ProxyPolicy::impersonation;
};

// A proxy certificate signed SHA-256 by the issuer. Its end is capped at the
// issuer's (a proxy never outlives what signed it); `capped` says so.
base::Result<X509Ptr> proxy_create(const ProxyRequest& req, bool* capped = nullptr);

struct ProxyCredential {
    X509Ptr cert;                // the proxy
    PkeyPtr key;                 // its private key
    std::vector<X509Ptr> chain;  // its issuer first, ending with the user's certificate
};

// Reads a proxy file. Refuses one that others can read (with the chmod that
// fixes it), one without a key or whose key does not match.
base::Result<ProxyCredential> proxy_load(const std::filesystem::path& file);

// The PEM text of a proxy file: certificate, key, chain.
base::Result<std::string> proxy_pem(const ProxyCredential& cred);

// $X509_USER_PROXY, else /tmp/x509up_u<uid>.
std::filesystem::path proxy_default_path();

bool cert_is_proxy(X509* cert);
// The policy of a proxy certificate (unknown for a certificate that is none).
ProxyPolicy proxy_policy(X509* cert);
const char* proxy_policy_text(ProxyPolicy policy);

// The end-entity certificate of a chain (leaf first): the first that is not
// a proxy. Its subject is the identity a proxy acts for.
X509* chain_identity(const std::vector<X509*>& chain);

// Delegation (as GSI does it): the receiving side makes a key pair and sends
// only its public half; the delegating side signs a proxy for it with its own
// credential and sends back the certificates. No private key travels.

// The PEM SubjectPublicKeyInfo of a key (what the receiver sends).
base::Result<std::string> public_key_pem(EVP_PKEY* key);

// The delegating side: a proxy for `public_key_pem`, signed by `signer`
// (whose chain up to the user's certificate is `chain`), as PEM text of the
// proxy followed by `signer` and `chain`.
base::Result<std::string> proxy_delegate(X509* signer, EVP_PKEY* signer_key, const std::vector<X509*>& chain,
                                         const std::string& public_key_pem, ProxyPolicy policy,
                                         std::chrono::seconds lifetime);

// The receiving side: checks that `certificates_pem` is a proxy for
// `own_key` whose chain `trust` verifies (proxy rules, lifetimes, revocation)
// and whose identity is `identity`, and makes the credential of it.
base::Result<ProxyCredential> delegation_accept(X509_STORE* trust, EVP_PKEY* own_key,
                                                const std::string& certificates_pem, const std::string& identity);

// The trusted CAs of a directory in the X509_CERT_DIR layout, with their
// revocation lists, as the TLS contexts verify (security/tls.hpp).
struct X509StoreFree {
    void operator()(X509_STORE* s) const { X509_STORE_free(s); }
};
using X509StorePtr = std::unique_ptr<X509_STORE, X509StoreFree>;
base::Result<X509StorePtr> trust_store_load(const std::filesystem::path& ca_dir);

// Verifies `certs` (leaf first, then what issued it) against `trust` with
// the proxy rules, lifetimes and revocation; returns the chain's identity
// (the end-entity subject in the Globus form), or why it does not verify.
base::Result<std::string> chain_verify(X509_STORE* trust, const std::vector<X509*>& certs);

// A SHA-256 signature of `data` by `key`, and its check against the public
// key of `cert`.
base::Result<std::vector<std::uint8_t>> signature_make(EVP_PKEY* key, const std::vector<std::uint8_t>& data);
bool signature_check(X509* cert, const std::vector<std::uint8_t>& data, const std::vector<std::uint8_t>& signature);

// Whether a verified chain may start jobs for its identity; the failure says
// why not: a limited proxy in it, or one whose policy gives it none of its
// issuer's rights. The count of proxies in the chain (up to the refused one)
// goes to `proxies` either way.
base::Status proxy_chain_check(const std::vector<X509*>& chain, int& proxies);

}  // namespace strata::security
