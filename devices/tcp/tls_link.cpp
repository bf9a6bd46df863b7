#include "devices/tcp/tls_link.hpp"

#include <openssl/err.h>

#include <cerrno>
#include <cstring>

namespace strata::dev::tcp {

namespace {

constexpr unsigned char kIdentity[] = "strata-link";
constexpr unsigned char kCipher[] = {0x13, 0x01};  // TLS_AES_128_GCM_SHA256

int link_index() {
    static const int index = SSL_get_ex_new_index(0, nullptr, nullptr, nullptr, nullptr);
    return index;
}

std::string openssl_error() {
    const unsigned long e = ERR_get_error();
    ERR_clear_error();
    if (e == 0) return "TLS failure";
    char text[256];
    ERR_error_string_n(e, text, sizeof text);
    return text;
}

}  // namespace

// The PSK as a session, the way TLS 1.3 external PSKs reach OpenSSL.
struct TlsCallbacks {
    static SSL_SESSION* session(SSL* ssl) {
        const auto* link = static_cast<const TlsLink*>(SSL_get_ex_data(ssl, link_index()));
        const SSL_CIPHER* cipher = SSL_CIPHER_find(ssl, kCipher);
        SSL_SESSION* s = SSL_SESSION_new();
        if (link == nullptr || cipher == nullptr || s == nullptr ||
            SSL_SESSION_set1_master_key(s, link->key_.data(), link->key_.size()) != 1 ||
            SSL_SESSION_set_cipher(s, cipher) != 1 || SSL_SESSION_set_protocol_version(s, TLS1_3_VERSION) != 1) {
            SSL_SESSION_free(s);
            return nullptr;
        }
        return s;
    }
    static int use(SSL* ssl, const EVP_MD* /*md*/, const unsigned char** id, size_t* idlen, SSL_SESSION** out) {
        *out = session(ssl);
        *id = kIdentity;
        *idlen = sizeof kIdentity - 1;
        return *out != nullptr ? 1 : 0;
    }
    static int find(SSL* ssl, const unsigned char* id, size_t idlen, SSL_SESSION** out) {
        *out = nullptr;
        if (idlen != sizeof kIdentity - 1 || std::memcmp(id, kIdentity, idlen) != 0) return 1;  // unknown: no PSK
        *out = session(ssl);
        return *out != nullptr ? 1 : 0;
    }
};

base::Result<std::unique_ptr<TlsLink>> TlsLink::create(bool server, int fd, const Key& key) {
    static SSL_CTX* contexts[2] = {nullptr, nullptr};
    SSL_CTX*& ctx = contexts[server ? 1 : 0];
    if (ctx == nullptr) {
        ctx = SSL_CTX_new(server ? TLS_server_method() : TLS_client_method());
        if (ctx == nullptr || SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION) != 1 ||
            SSL_CTX_set_ciphersuites(ctx, "TLS_AES_128_GCM_SHA256") != 1) {
            base::Error failed{"cannot set up TLS for rank links: " + openssl_error()};
            SSL_CTX_free(ctx);
            ctx = nullptr;
            return failed;
        }
        SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
        // Whole socket reads instead of a header and a body per record; the
        // device reads until TLS says `again`, so nothing stays behind unseen.
        SSL_CTX_set_read_ahead(ctx, 1);
        // Sessions are not resumed: every link has its own key anyway.
        SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
        SSL_CTX_set_num_tickets(ctx, 0);
        if (server)
            SSL_CTX_set_psk_find_session_callback(ctx, &TlsCallbacks::find);
        else
            SSL_CTX_set_psk_use_session_callback(ctx, &TlsCallbacks::use);
    }
    std::unique_ptr<TlsLink> link(new TlsLink());
    link->key_ = key;
    link->ssl_ = SSL_new(ctx);
    if (link->ssl_ == nullptr || SSL_set_fd(link->ssl_, fd) != 1 ||
        SSL_set_ex_data(link->ssl_, link_index(), link.get()) != 1) {
        return base::Error{"cannot set up TLS for a rank link: " + openssl_error()};
    }
    if (server)
        SSL_set_accept_state(link->ssl_);
    else
        SSL_set_connect_state(link->ssl_);
    return link;
}

TlsLink::~TlsLink() {
    OPENSSL_cleanse(key_.data(), key_.size());
    SSL_free(ssl_);
}

TlsLink::Step TlsLink::handshake() {
    const int ret = SSL_do_handshake(ssl_);
    if (ret == 1) return Step::done;
    const int e = SSL_get_error(ssl_, ret);
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) return Step::again;
    error_ = "TLS handshake failed: " + openssl_error();
    return Step::failed;
}

ssize_t TlsLink::result(int ret, bool writing) {
    const int e = SSL_get_error(ssl_, ret);
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
        errno = EAGAIN;
        return -1;
    }
    if (!writing && e == SSL_ERROR_ZERO_RETURN) return 0;
    if (!writing && e == SSL_ERROR_SYSCALL && ERR_peek_error() == 0) return 0;  // closed without close_notify
    error_ = "TLS: " + openssl_error();
    return kFailed;
}

ssize_t TlsLink::writev(const iovec* iov, int n) {
    // Small pieces (a header and a short payload) go out as one record: one
    // encryption and one system call, as the plain path's one sendmsg(). The
    // same bytes are gathered again when a write must be retried.
    constexpr std::size_t kRecord = 16 * 1024;
    std::size_t gathered = 0;
    int pieces = 0;
    while (pieces < n && gathered + iov[pieces].iov_len <= kRecord) gathered += iov[pieces++].iov_len;
    if (pieces > 1) {
        gather_.resize(gathered);
        std::size_t at = 0;
        for (int i = 0; i < pieces; ++i) {
            std::memcpy(gather_.data() + at, iov[i].iov_base, iov[i].iov_len);
            at += iov[i].iov_len;
        }
        std::size_t wrote = 0;
        const int ret = SSL_write_ex(ssl_, gather_.data(), gathered, &wrote);
        if (ret != 1) return result(ret, true);
        return static_cast<ssize_t>(wrote);
    }
    std::size_t total = 0;
    for (int i = 0; i < n; ++i) {
        if (iov[i].iov_len == 0) continue;
        std::size_t wrote = 0;
        const int ret = SSL_write_ex(ssl_, iov[i].iov_base, iov[i].iov_len, &wrote);
        if (ret != 1) {
            if (total > 0) return static_cast<ssize_t>(total);
            return result(ret, true);
        }
        total += wrote;
        if (wrote < iov[i].iov_len) break;
    }
    return static_cast<ssize_t>(total);
}

ssize_t TlsLink::read(void* buf, std::size_t n) {
    std::size_t got = 0;
    const int ret = SSL_read_ex(ssl_, buf, n, &got);
    if (ret == 1) return static_cast<ssize_t>(got);
    return result(ret, false);
}

}  // namespace strata::dev::tcp
