#include "security/proxy.hpp"

#include "security/tls.hpp"

#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509v3.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace strata::security {

namespace fs = std::filesystem;

namespace {

// Globus' limited-proxy policy language.
constexpr const char* kLimitedOid = "1.3.6.1.4.1.3536.1.1.1.9";

const char* policy_language(ProxyPolicy p) {
    switch (p) {
        case ProxyPolicy::impersonation: return "id-ppl-inheritAll";
        case ProxyPolicy::limited: return kLimitedOid;
        case ProxyPolicy::independent: return "id-ppl-independent";
        case ProxyPolicy::unknown: break;
    }
    return nullptr;
}

}  // namespace

base::Result<X509Ptr> proxy_create(const ProxyRequest& req, bool* capped) {
    auto fail = [](std::string text) { return base::Error{std::move(text)}; };
    const char* language = policy_language(req.policy);
    if (req.issuer == nullptr || req.issuer_key == nullptr || req.subject_key == nullptr || language == nullptr)
        return fail("proxy_create: issuer, issuer key, subject key and a known policy are required");
    if (X509_check_private_key(req.issuer, req.issuer_key) != 1) {
        ERR_clear_error();
        return fail("the private key does not belong to the certificate that is to sign the proxy");
    }
    X509Ptr cert(X509_new());
    if (!cert || X509_set_version(cert.get(), X509_VERSION_3) != 1) return fail(openssl_error_take());
    // The serial, in decimal, is the proxy's CN (RFC 3820 3.4 wants the name
    // unique per issuer; 63 random bits are).
    std::uint64_t serial = 0;
    do {
        if (RAND_bytes(reinterpret_cast<unsigned char*>(&serial), sizeof serial) != 1)
            return fail("the random generator failed: " + openssl_error_take());
        serial &= 0x7fffffffffffffffull;
    } while (serial == 0);
    const std::string cn = std::to_string(serial);
    BIGNUM* bn = nullptr;
    if (BN_dec2bn(&bn, cn.c_str()) == 0 || BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert.get())) == nullptr) {
        BN_free(bn);
        return fail(openssl_error_take());
    }
    BN_free(bn);
    X509NamePtr subject(X509_NAME_dup(X509_get_subject_name(req.issuer)));
    if (!subject ||
        X509_NAME_add_entry_by_NID(subject.get(), NID_commonName, MBSTRING_ASC,
                                   reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0) != 1 ||
        X509_set_subject_name(cert.get(), subject.get()) != 1 ||
        X509_set_issuer_name(cert.get(), X509_get_subject_name(req.issuer)) != 1 ||
        X509_set_pubkey(cert.get(), req.subject_key) != 1)
        return fail(openssl_error_take());
    const long start = static_cast<long>(req.start.count());
    const long end = static_cast<long>(req.lifetime.count());
    if (!X509_gmtime_adj(X509_getm_notBefore(cert.get()), start) ||
        !X509_gmtime_adj(X509_getm_notAfter(cert.get()), end))
        return fail(openssl_error_take());
    const bool cap = ASN1_TIME_compare(X509_get0_notAfter(cert.get()), X509_get0_notAfter(req.issuer)) > 0;
    if (cap && X509_set1_notAfter(cert.get(), X509_get0_notAfter(req.issuer)) != 1) return fail(openssl_error_take());
    if (capped != nullptr) *capped = cap;

    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, req.issuer, cert.get(), nullptr, nullptr, 0);
    if (base::Status s = extension_add(cert.get(), &ctx, NID_key_usage, "critical,digitalSignature"); !s.ok())
        return s.failure();
    // proxyCertInfo by hand: OpenSSL's text form of it needs a config database.
    PROXY_CERT_INFO_EXTENSION* info = PROXY_CERT_INFO_EXTENSION_new();
    ASN1_OBJECT* oid = OBJ_txt2obj(language, 0);
    bool added = false;
    if (info != nullptr && oid != nullptr) {
        ASN1_OBJECT_free(info->proxyPolicy->policyLanguage);
        info->proxyPolicy->policyLanguage = oid;
        oid = nullptr;
        added = X509_add1_ext_i2d(cert.get(), NID_proxyCertInfo, info, 1, X509V3_ADD_DEFAULT) == 1;
    }
    ASN1_OBJECT_free(oid);
    PROXY_CERT_INFO_EXTENSION_free(info);
    if (!added) return fail("cannot make the proxyCertInfo extension: " + openssl_error_take());
    if (X509_sign(cert.get(), req.issuer_key, EVP_sha256()) <= 0)
        return fail("cannot sign the proxy: " + openssl_error_take());
    return cert;
}

base::Result<ProxyCredential> proxy_load(const fs::path& file) {
    if (base::Status s = private_file_check(file, "proxy"); !s.ok()) return s.failure();
    base::Result<std::string> text = file_read(file, "proxy");
    if (!text.ok()) return text.failure();
    ProxyCredential cred;
    std::vector<X509Ptr> certs = certs_from_pem(text.value());
    if (!certs.empty()) {
        cred.cert = std::move(certs.front());
        for (std::size_t i = 1; i < certs.size(); ++i) cred.chain.push_back(std::move(certs[i]));
    }
    {
        BioPtr b(BIO_new_mem_buf(text.value().data(), static_cast<int>(text.value().size())));
        cred.key.reset(b ? PEM_read_bio_PrivateKey(b.get(), nullptr, nullptr, nullptr) : nullptr);
        ERR_clear_error();
    }
    OPENSSL_cleanse(text.value().data(), text.value().size());
    if (!cred.cert || !cert_is_proxy(cred.cert.get()))
        return base::Error{file.string() + " holds no proxy certificate; strata-proxy-init makes one"};
    if (!cred.key)
        return base::Error{"the proxy " + file.string() + " holds no private key; strata-proxy-init makes a new proxy"};
    if (X509_check_private_key(cred.cert.get(), cred.key.get()) != 1) {
        ERR_clear_error();
        return base::Error{"the private key in " + file.string() + " does not belong to its proxy certificate"};
    }
    if (cred.chain.empty()) return base::Error{"the proxy " + file.string() + " lacks the certificate that signed it"};
    return cred;
}

base::Result<std::string> proxy_pem(const ProxyCredential& cred) {
    base::Result<std::string> cert = cert_to_pem(cred.cert.get());
    if (!cert.ok()) return cert;
    base::Result<std::string> key = key_to_pem(cred.key.get());
    if (!key.ok()) return key;
    std::vector<X509*> chain;
    for (const X509Ptr& c : cred.chain) chain.push_back(c.get());
    base::Result<std::string> rest = certs_to_pem(chain);
    if (!rest.ok()) return rest;
    return cert.value() + key.value() + rest.value();
}

fs::path proxy_default_path() {
    if (const char* v = std::getenv("X509_USER_PROXY"); v != nullptr && *v != '\0') return v;
    return "/tmp/x509up_u" + std::to_string(::getuid());
}

bool cert_is_proxy(X509* cert) { return (X509_get_extension_flags(cert) & EXFLAG_PROXY) != 0; }

ProxyPolicy proxy_policy(X509* cert) {
    if (!cert_is_proxy(cert)) return ProxyPolicy::unknown;
    PROXY_CERT_INFO_EXTENSION* info =
        static_cast<PROXY_CERT_INFO_EXTENSION*>(X509_get_ext_d2i(cert, NID_proxyCertInfo, nullptr, nullptr));
    if (info == nullptr) return ProxyPolicy::unknown;
    ProxyPolicy out = ProxyPolicy::unknown;
    const ASN1_OBJECT* language = info->proxyPolicy->policyLanguage;
    const int nid = OBJ_obj2nid(language);
    char oid[80];
    OBJ_obj2txt(oid, sizeof oid, language, 1);
    if (nid == NID_id_ppl_inheritAll)
        out = ProxyPolicy::impersonation;
    else if (nid == NID_Independent)
        out = ProxyPolicy::independent;
    else if (std::string(oid) == kLimitedOid)
        out = ProxyPolicy::limited;
    PROXY_CERT_INFO_EXTENSION_free(info);
    return out;
}

const char* proxy_policy_text(ProxyPolicy policy) {
    switch (policy) {
        case ProxyPolicy::impersonation: return "RFC 3820 compliant impersonation proxy";
        case ProxyPolicy::limited: return "RFC 3820 compliant limited proxy";
        case ProxyPolicy::independent: return "RFC 3820 compliant independent proxy";
        case ProxyPolicy::unknown: break;
    }
    return "proxy with an unknown policy";
}

X509* chain_identity(const std::vector<X509*>& chain) {
    for (X509* c : chain)
        if (!cert_is_proxy(c)) return c;
    return nullptr;
}

base::Status proxy_chain_check(const std::vector<X509*>& chain, int& proxies) {
    proxies = 0;
    for (X509* c : chain) {
        if (!cert_is_proxy(c)) break;
        ++proxies;
        switch (proxy_policy(c)) {
            case ProxyPolicy::impersonation: break;
            case ProxyPolicy::limited:
                return base::Error{"a limited proxy cannot start jobs; make a full proxy with strata-proxy-init"};
            case ProxyPolicy::independent:
                return base::Error{"an independent proxy has none of its issuer's rights and cannot start jobs for it"};
            case ProxyPolicy::unknown: return base::Error{"a proxy with an unknown policy language cannot start jobs"};
        }
    }
    return {};
}

base::Result<std::string> public_key_pem(EVP_PKEY* key) {
    BioPtr b(BIO_new(BIO_s_mem()));
    if (!b || PEM_write_bio_PUBKEY(b.get(), key) != 1)
        return base::Error{"cannot encode a public key: " + openssl_error_take()};
    return bio_text(b.get());
}

base::Result<std::string> proxy_delegate(X509* signer, EVP_PKEY* signer_key, const std::vector<X509*>& chain,
                                         const std::string& public_key_pem, ProxyPolicy policy,
                                         std::chrono::seconds lifetime) {
    BioPtr b(BIO_new_mem_buf(public_key_pem.data(), static_cast<int>(public_key_pem.size())));
    PkeyPtr theirs(b ? PEM_read_bio_PUBKEY(b.get(), nullptr, nullptr, nullptr) : nullptr);
    if (!theirs) {
        ERR_clear_error();
        return base::Error{"the delegation request holds no public key"};
    }
    ProxyRequest req;
    req.issuer = signer;
    req.issuer_key = signer_key;
    req.subject_key = theirs.get();
    req.lifetime = lifetime;
    req.policy = policy;
    base::Result<X509Ptr> proxy = proxy_create(req);
    if (!proxy.ok()) return proxy.failure();
    std::vector<X509*> all{proxy.value().get(), signer};
    all.insert(all.end(), chain.begin(), chain.end());
    return certs_to_pem(all);
}

base::Result<X509StorePtr> trust_store_load(const std::filesystem::path& ca_dir) {
    X509StorePtr store(X509_STORE_new());
    X509_LOOKUP* lookup = store ? X509_STORE_add_lookup(store.get(), X509_LOOKUP_hash_dir()) : nullptr;
    if (lookup == nullptr || X509_LOOKUP_add_dir(lookup, ca_dir.c_str(), X509_FILETYPE_PEM) != 1)
        return base::Error{"cannot read the trusted CAs in " + ca_dir.string() + ": " + openssl_error_take()};
    X509_STORE_set_flags(store.get(), X509_V_FLAG_CRL_CHECK | X509_V_FLAG_CRL_CHECK_ALL | X509_V_FLAG_ALLOW_PROXY_CERTS);
    return store;
}

base::Result<std::string> chain_verify(X509_STORE* trust, const std::vector<X509*>& certs) {
    if (certs.empty()) return base::Error{"no certificate"};
    STACK_OF(X509)* untrusted = sk_X509_new_null();
    for (std::size_t i = 1; i < certs.size(); ++i) sk_X509_push(untrusted, certs[i]);
    X509_STORE_CTX* ctx = X509_STORE_CTX_new();
    std::string error;
    std::string identity;
    if (ctx == nullptr || X509_STORE_CTX_init(ctx, trust, certs[0], untrusted) != 1) {
        error = "cannot verify the certificates: " + openssl_error_take();
    } else {
        X509_STORE_CTX_set_flags(ctx, X509_V_FLAG_ALLOW_PROXY_CERTS);
        X509_STORE_CTX_set_verify_cb(ctx, [](int ok, X509_STORE_CTX* c) { return tls_verify_step(ok != 0, c) ? 1 : 0; });
        if (X509_verify_cert(ctx) != 1) {
            error = X509_verify_cert_error_string(X509_STORE_CTX_get_error(ctx));
        } else {
            STACK_OF(X509)* got = X509_STORE_CTX_get0_chain(ctx);
            std::vector<X509*> chain;
            for (int i = 0; i < sk_X509_num(got); ++i) chain.push_back(sk_X509_value(got, i));
            X509* who = chain_identity(chain);
            if (who == nullptr) error = "the chain has no end-entity certificate";
            else identity = name_to_globus(X509_get_subject_name(who));
        }
    }
    X509_STORE_CTX_free(ctx);
    sk_X509_free(untrusted);
    ERR_clear_error();
    if (!error.empty()) return base::Error{error};
    return identity;
}

base::Result<std::vector<std::uint8_t>> signature_make(EVP_PKEY* key, const std::vector<std::uint8_t>& data) {
    EVP_MD_CTX* md = EVP_MD_CTX_new();
    std::size_t n = 0;
    std::vector<std::uint8_t> out;
    bool ok = md != nullptr && EVP_DigestSignInit(md, nullptr, EVP_sha256(), nullptr, key) == 1 &&
              EVP_DigestSign(md, nullptr, &n, data.data(), data.size()) == 1;
    if (ok) {
        out.resize(n);
        ok = EVP_DigestSign(md, out.data(), &n, data.data(), data.size()) == 1;
        out.resize(n);
    }
    EVP_MD_CTX_free(md);
    if (!ok) return base::Error{"cannot sign: " + openssl_error_take()};
    return out;
}

bool signature_check(X509* cert, const std::vector<std::uint8_t>& data, const std::vector<std::uint8_t>& signature) {
    EVP_MD_CTX* md = EVP_MD_CTX_new();
    const bool ok = md != nullptr &&
                    EVP_DigestVerifyInit(md, nullptr, EVP_sha256(), nullptr, X509_get0_pubkey(cert)) == 1 &&
                    EVP_DigestVerify(md, signature.data(), signature.size(), data.data(), data.size()) == 1;
    EVP_MD_CTX_free(md);
    ERR_clear_error();
    return ok;
}

base::Result<ProxyCredential> delegation_accept(X509_STORE* trust, EVP_PKEY* own_key,
                                                const std::string& certificates_pem, const std::string& identity) {
    std::vector<X509Ptr> certs = certs_from_pem(certificates_pem);
    if (certs.size() < 2 || !cert_is_proxy(certs[0].get())) {
        return base::Error{"the delegated credential is not a proxy with its issuer"};
    }
    if (EVP_PKEY_eq(X509_get0_pubkey(certs[0].get()), own_key) != 1) {
        return base::Error{"the delegated proxy is not for the key this site made"};
    }
    std::vector<X509*> raw;
    for (const X509Ptr& c : certs) raw.push_back(c.get());
    const base::Result<std::string> who = chain_verify(trust, raw);
    if (!who) return base::Error{"the delegated proxy does not verify: " + who.error()};
    if (*who != identity)
        return base::Error{"the delegated proxy acts for another identity than the one that submitted the job"};
    EVP_PKEY_up_ref(own_key);
    ProxyCredential cred;
    cred.key.reset(own_key);
    cred.cert = std::move(certs[0]);
    for (std::size_t i = 1; i < certs.size(); ++i) cred.chain.push_back(std::move(certs[i]));
    return cred;
}

}  // namespace strata::security
