// TLS on one rank-to-rank TCP link (STRATA_DATA_TLS), keyed by the job.
//
// Both ends already proved the job key by the challenge-response
// (security/challenge.hpp); from it and that exchange's nonces each derives
// the same 32-byte key, which serves as a TLS 1.3 external PSK. So there are
// no certificates between ranks, every link has its own key, and the key
// exchange still runs (psk_dhe_ke: ECDHE), which gives forward secrecy.
// Cipher: TLS_AES_128_GCM_SHA256 (AES-NI where there is one).
//
// The socket stays non-blocking; every call returns at once, and TLS may
// hold decrypted bytes that the socket no longer signals (read() until it
// says `again`).
#pragma once

#include <openssl/ssl.h>

#include <sys/types.h>
#include <sys/uio.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/result.hpp"

namespace strata::dev::tcp {

class TlsLink {
public:
    using Key = std::array<std::uint8_t, 32>;
    enum class Step { done, again, failed };
    // What writev() and read() return when the link failed (see error()): a
    // value no system call returns, so a TLS link answers exactly as a plain
    // socket does (bytes, 0, -1 with errno) plus this one outcome, and the
    // device's read and write paths stay one comparison per call.
    static constexpr ssize_t kFailed = -2;

    // Fails when OpenSSL cannot set up the link.
    static base::Result<std::unique_ptr<TlsLink>> create(bool server, int fd, const Key& key);
    ~TlsLink();
    TlsLink(const TlsLink&) = delete;
    TlsLink& operator=(const TlsLink&) = delete;

    Step handshake();
    // Bytes taken from the iovecs in order (> 0), -1 when the socket is full
    // (errno EAGAIN), kFailed when the link failed.
    ssize_t writev(const iovec* iov, int n);
    // Bytes read (> 0), 0 when the peer closed, -1 when nothing is there
    // (errno EAGAIN), kFailed when the link failed.
    ssize_t read(void* buf, std::size_t n);
    // Whether the handshake waits for the socket to take bytes.
    bool wants_write() const { return SSL_want_write(ssl_) != 0; }
    const std::string& error() const { return error_; }

private:
    TlsLink() = default;
    ssize_t result(int ret, bool writing);

    SSL* ssl_ = nullptr;
    Key key_{};
    std::vector<char> gather_;
    std::string error_;
    friend struct TlsCallbacks;
};

}  // namespace strata::dev::tcp
