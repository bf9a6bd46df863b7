#include "security/tls.hpp"

#include "security/proxy.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace strata::security {

namespace fs = std::filesystem;
namespace ssl = boost::asio::ssl;

base::Result<TlsCredential> user_credential_find() {
    TlsCredential cred;
    std::string error;
    const char* home = std::getenv("HOME");
    auto pick = [&](const char* var, const char* under_home, fs::path& into) {
        if (const char* v = std::getenv(var); v != nullptr && *v != '\0') {
            into = v;
        } else if (home != nullptr && *home != '\0') {
            into = fs::path(home) / under_home;
        } else if (error.empty()) {
            error = std::string("cannot find the user credential: set ") + var + " or HOME";
        }
    };
    auto done = [&]() -> base::Result<TlsCredential> {
        if (!error.empty()) return base::Error{error};
        return cred;
    };
    pick("X509_CERT_DIR", ".strata/certificates", cred.ca_dir);
    const char* named = std::getenv("X509_USER_PROXY");
    const fs::path proxy = proxy_default_path();
    std::error_code ec;
    if (fs::exists(proxy, ec)) {
        cred.cert = cred.key = proxy;
        cred.proxy = true;
        return done();
    }
    if (named != nullptr && *named != '\0') {
        return base::Error{"X509_USER_PROXY names " + proxy.string() +
                           ", which does not exist; make a proxy there with strata-proxy-init, or unset "
                           "X509_USER_PROXY"};
    }
    pick("X509_USER_CERT", ".strata/usercert.pem", cred.cert);
    pick("X509_USER_KEY", ".strata/userkey.pem", cred.key);
    return done();
}

base::Result<std::shared_ptr<ssl::context>> tls_context_make(TlsRole role, const TlsCredential& cred) {
    auto ctx = std::make_shared<ssl::context>(role == TlsRole::client ? ssl::context::tls_client
                                                                      : ssl::context::tls_server);
    SSL_CTX* native = ctx->native_handle();
    SSL_CTX_set_min_proto_version(native, TLS1_2_VERSION);
    ctx->set_options(ssl::context::default_workarounds | ssl::context::no_compression);
    for (const auto& [what, file] : {std::pair<const char*, const fs::path*>{"certificate", &cred.cert},
                                     {"private key", &cred.key}}) {
        if (::access(file->c_str(), R_OK) != 0) {
            return base::Error{std::string("cannot read the ") + what + " " + file->string() + ": " +
                               std::strerror(errno)};
        }
    }
    if (base::Status s = private_file_check(cred.key, cred.proxy ? "proxy" : "private key"); !s.ok()) {
        return s.failure();
    }
    ERR_clear_error();
    if (SSL_CTX_use_certificate_chain_file(native, cred.cert.c_str()) != 1) {
        return base::Error{"cannot use the certificate " + cred.cert.string() + ": " + openssl_error_take()};
    }
    if (SSL_CTX_use_PrivateKey_file(native, cred.key.c_str(), SSL_FILETYPE_PEM) != 1) {
        if (ERR_GET_REASON(ERR_peek_error()) == X509_R_KEY_VALUES_MISMATCH) {
            ERR_clear_error();
            return base::Error{"the private key " + cred.key.string() + " does not belong to the certificate " +
                               cred.cert.string()};
        }
        return base::Error{"cannot use the private key " + cred.key.string() + ": " + openssl_error_take()};
    }
    if (X509* leaf = SSL_CTX_get0_certificate(native);
        leaf != nullptr && X509_cmp_current_time(X509_get0_notAfter(leaf)) < 0) {
        return base::Error{std::string(cred.proxy ? "the proxy " : "the certificate ") + cred.cert.string() +
                           " expired on " + asn1_time_text(X509_get0_notAfter(leaf)) +
                           (cred.proxy ? "; make a new one with strata-proxy-init" : "")};
    }
    std::error_code ec;
    if (!fs::is_directory(cred.ca_dir, ec)) {
        return base::Error{"the trusted-CA directory " + cred.ca_dir.string() +
                           " does not exist (strata-ca create-ca makes one; X509_CERT_DIR names another)"};
    }
    if (SSL_CTX_load_verify_dir(native, cred.ca_dir.c_str()) != 1) {
        return base::Error{"cannot use the trusted-CA directory " + cred.ca_dir.string() + ": " + openssl_error_take()};
    }
    X509_STORE_set_flags(SSL_CTX_get_cert_store(native),
                         X509_V_FLAG_CRL_CHECK | X509_V_FLAG_CRL_CHECK_ALL | X509_V_FLAG_ALLOW_PROXY_CERTS);
    // Both sides insist on a certificate from the other.
    SSL_CTX_set_verify(native, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT,
                       [](int preverified, X509_STORE_CTX* store) {
                           return tls_verify_step(preverified != 0, store) ? 1 : 0;
                       });
    return ctx;
}

namespace {

// The names OpenSSL's hash-directory lookup reads: 8 hex digits, '.', an
// optional 'r' (a revocation list) and a number.
bool hash_name(const std::string& name) {
    if (name.size() < 10 || name[8] != '.') return false;
    for (std::size_t i = 0; i < 8; ++i)
        if (std::isxdigit(static_cast<unsigned char>(name[i])) == 0) return false;
    std::size_t i = name[9] == 'r' ? 10 : 9;
    if (i == name.size()) return false;
    for (; i < name.size(); ++i)
        if (std::isdigit(static_cast<unsigned char>(name[i])) == 0) return false;
    return true;
}

}  // namespace

CaDirStamp ca_dir_stamp(const fs::path& ca_dir) {
    CaDirStamp out;
    std::error_code ec;
    for (fs::directory_iterator it(ca_dir, ec), end; !ec && it != end; it.increment(ec)) {
        std::string name = it->path().filename().string();
        struct stat st {};
        if (!hash_name(name) || ::stat(it->path().c_str(), &st) != 0) continue;
        auto ns = [](const timespec& t) { return static_cast<std::int64_t>(t.tv_sec) * 1000000000 + t.tv_nsec; };
        out.files.push_back({std::move(name), static_cast<std::uintmax_t>(st.st_size), ns(st.st_mtim), ns(st.st_ctim),
                             static_cast<std::uint64_t>(st.st_ino)});
    }
    std::sort(out.files.begin(), out.files.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    return out;
}

std::vector<std::string> CaDirStamp::changed_since(const CaDirStamp& before) const {
    std::vector<std::string> out;
    auto a = before.files.begin();
    auto b = files.begin();
    while (a != before.files.end() || b != files.end()) {
        if (b == files.end() || (a != before.files.end() && a->name < b->name)) {
            out.push_back((a++)->name);
        } else if (a == before.files.end() || b->name < a->name) {
            out.push_back((b++)->name);
        } else {
            if (!(*a == *b)) out.push_back(b->name);
            ++a;
            ++b;
        }
    }
    return out;
}

namespace {

// The subject of a refused peer certificate, kept with the connection: OpenSSL
// drops the certificate itself when verification fails.
int presented_index() {
    static const int index = SSL_get_ex_new_index(
        0, nullptr, nullptr, nullptr,
        [](void*, void* ptr, CRYPTO_EX_DATA*, int, long, void*) { delete static_cast<std::string*>(ptr); });
    return index;
}

}  // namespace

bool tls_verify_step(bool preverified, X509_STORE_CTX* ctx) {
    if (!preverified && X509_STORE_CTX_get_error(ctx) == X509_V_ERR_UNABLE_TO_GET_CRL) {
        X509_STORE_CTX_set_error(ctx, X509_V_OK);
        return true;
    }
    if (!preverified) {
        auto* ssl = static_cast<SSL*>(X509_STORE_CTX_get_ex_data(ctx, SSL_get_ex_data_X509_STORE_CTX_idx()));
        X509* leaf = X509_STORE_CTX_get0_cert(ctx);
        if (ssl != nullptr && leaf != nullptr && SSL_get_ex_data(ssl, presented_index()) == nullptr)
            SSL_set_ex_data(ssl, presented_index(), new std::string(name_to_globus(X509_get_subject_name(leaf))));
    }
    return preverified;
}

std::string tls_peer_subject(SSL* ssl) {
    if (SSL_get0_peer_certificate(ssl) == nullptr || SSL_get_verify_result(ssl) != X509_V_OK) return {};
    X509* identity = chain_identity(tls_peer_chain(ssl));
    return identity != nullptr ? name_to_globus(X509_get_subject_name(identity)) : std::string();
}

std::string tls_presented_subject(SSL* ssl) {
    if (X509* peer = SSL_get0_peer_certificate(ssl)) return name_to_globus(X509_get_subject_name(peer));
    const auto* refused = static_cast<const std::string*>(SSL_get_ex_data(ssl, presented_index()));
    return refused != nullptr ? *refused : std::string();
}

std::vector<X509*> tls_peer_chain(SSL* ssl) {
    std::vector<X509*> out;
    STACK_OF(X509)* chain = SSL_get0_verified_chain(ssl);
    for (int i = 0; chain != nullptr && i < sk_X509_num(chain); ++i) out.push_back(sk_X509_value(chain, i));
    return out;
}

base::Status tls_verify_status(SSL* ssl) {
    const long rc = SSL_get_verify_result(ssl);
    if (rc == X509_V_OK) return {};
    return base::Error{X509_verify_cert_error_string(rc)};
}

}  // namespace strata::security
