#include "wireup/port.hpp"

#include "wireup/emulation.hpp"
#include "security/proxy.hpp"
#include "security/tls.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace strata::wireup::port {

namespace {

constexpr std::string_view kPrefix = "strata-port:1:";
constexpr char kHex[] = "0123456789abcdef";

void hex_append(std::string& out, const std::uint8_t* p, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
        out += kHex[p[i] >> 4];
        out += kHex[p[i] & 15];
    }
}

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

// Exactly 2 * n lower-case hexadecimal digits into `out`.
bool hex_read(std::string_view text, std::uint8_t* out, std::size_t n) {
    if (text.size() != 2 * n) return false;
    for (std::size_t i = 0; i < n; ++i) {
        const int hi = hex_digit(text[2 * i]);
        const int lo = hex_digit(text[2 * i + 1]);
        if (hi < 0 || lo < 0) return false;
        out[i] = static_cast<std::uint8_t>(hi << 4 | lo);
    }
    return true;
}

std::string errno_text(int e) { return std::strerror(e); }

// Waits for `events` on `fd` in slices of at most 10 ms, calling `idle`
// between them; false at the deadline.
bool wait_for(int fd, short events, std::optional<Channel::Clock::time_point> deadline, const Channel::Idle& idle) {
    for (;;) {
        pollfd p{fd, events, 0};
        if (::poll(&p, 1, 10) > 0) return true;
        if (idle) idle();
        if (deadline && Channel::Clock::now() >= *deadline) return false;
    }
}

}  // namespace

std::string name_format(const Name& n) {
    std::string out(kPrefix);
    out += n.address;
    out += ':';
    std::uint8_t id[8];
    for (int i = 0; i < 8; ++i) id[i] = static_cast<std::uint8_t>(n.id >> (56 - 8 * i));
    hex_append(out, id, sizeof id);
    out += ':';
    hex_append(out, n.secret.data(), n.secret.size());
    return out;
}

base::Result<Name> name_parse(std::string_view text) {
    if (text.substr(0, kPrefix.size()) != kPrefix) {
        return base::Error{"not a Strata port name (they start with 'strata-port:1:', as MPI_Open_port writes them)"};
    }
    text.remove_prefix(kPrefix.size());
    const std::size_t secret_at = text.rfind(':');
    if (secret_at == std::string_view::npos || secret_at == 0) return base::Error{"the port name is cut short"};
    const std::size_t id_at = text.rfind(':', secret_at - 1);
    if (id_at == std::string_view::npos || id_at == 0) return base::Error{"the port name is cut short"};
    Name n;
    std::uint8_t id[8];
    if (!hex_read(text.substr(id_at + 1, secret_at - id_at - 1), id, sizeof id))
        return base::Error{"the port name's id is not 16 hexadecimal digits"};
    for (const std::uint8_t b : id) n.id = n.id << 8 | b;
    if (!hex_read(text.substr(secret_at + 1), n.secret.data(), n.secret.size()))
        return base::Error{"the port name's secret is not 64 hexadecimal digits"};
    n.address = std::string(text.substr(0, id_at));
    return n;
}

double emulated_latency(const std::string& mine, const std::string& theirs, const std::string& my_site,
                        const std::string& their_site) {
    if (mine.empty() || mine != theirs || my_site == their_site) return 0;
    const base::Result<Emulation> e = emulation_parse(mine);
    if (!e) return 0;
    const std::optional<LinkShape> shape = e->link(0, my_site, their_site);
    return shape ? shape->latency_s : 0;
}

security::Proof port_proof(const Secret& secret, security::ProofRole role, const security::Nonce& client,
                           const security::Nonce& server) {
    const std::string key(secret.begin(), secret.end());
    return security::proof_make(key, role, client, server, 0, 0);
}

std::string set_key(const Secret& secret, const security::Nonce& client, const security::Nonce& server) {
    const security::Proof k = port_proof(secret, security::ProofRole::port_set_key, client, server);
    return std::string(k.begin(), k.end());
}

base::Status Channel::send(const std::vector<std::uint8_t>& frame) {
    std::size_t at = 0;
    while (at < frame.size()) {
        const ssize_t n = ::send(fd_.get(), frame.data() + at, frame.size() - at, MSG_NOSIGNAL);
        if (n > 0) {
            at += static_cast<std::size_t>(n);
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            pollfd p{fd_.get(), POLLOUT, 0};
            ::poll(&p, 1, 100);
        } else {
            return base::Error{"the connection broke: " + errno_text(errno)};
        }
    }
    return {};
}

base::Result<base::wire::RawFrame> Channel::receive(Clock::time_point deadline, const Idle& idle) {
    for (;;) {
        bool bad = false;
        if (std::optional<base::wire::RawFrame> f = split_.next(bad)) return std::move(*f);
        if (bad) return base::Error{"the other side sent something that is not a Strata port message"};
        if (!wait_for(fd_.get(), POLLIN, deadline, idle)) return base::Error{"timed out"};
        std::uint8_t buf[4096];
        const ssize_t n = ::recv(fd_.get(), buf, sizeof buf, 0);
        if (n > 0) {
            split_.feed(buf, static_cast<std::size_t>(n));
        } else if (n == 0) {
            return base::Error{"the other side closed the connection"};
        } else if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK) {
            return base::Error{"the connection broke: " + errno_text(errno)};
        }
    }
}

base::Result<Channel> dial(const std::vector<std::string>& addresses, int port, Channel::Clock::time_point deadline,
                           const Channel::Idle& idle) {
    std::string failures;
    for (const std::string& a : addresses) {
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_port = htons(static_cast<std::uint16_t>(port));
        if (inet_pton(AF_INET, a.c_str(), &addr.sin_addr) != 1) continue;
        base::UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
        if (!fd) return base::Error{"cannot create a TCP socket: " + errno_text(errno)};
        int err = 0;
        if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
            err = errno;
            if (err == EINPROGRESS) {
                if (!wait_for(fd.get(), POLLOUT, deadline, idle)) return base::Error{"timed out connecting to " + a};
                socklen_t len = sizeof err;
                getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &len);
            }
        }
        if (err == 0) {
            int one = 1;
            setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            return Channel(std::move(fd));
        }
        failures += failures.empty() ? "" : "; ";
        failures += a + ":" + std::to_string(port) + ": " + errno_text(err);
    }
    if (failures.empty()) return base::Error{"the port name holds no IPv4 address"};
    return base::Error{"nothing listens at the port (" + failures + "); was it closed?"};
}

base::Result<Channel> accept_next(int fd, std::optional<Channel::Clock::time_point> deadline,
                                  const Channel::Idle& idle) {
    for (;;) {
        const int c = ::accept4(fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (c >= 0) {
            int one = 1;
            setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            return Channel(base::UniqueFd(c));
        }
        if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR && errno != ECONNABORTED)
            return base::Error{"cannot accept on the port: " + errno_text(errno)};
        if (!wait_for(fd, POLLIN, deadline, idle)) return base::Error{"timed out"};
    }
}

namespace {

std::vector<std::uint8_t> signed_bytes(const Secret& secret, const security::Nonce& client,
                                       const security::Nonce& server) {
    const security::Proof p = port_proof(secret, security::ProofRole::port_credential, client, server);
    return std::vector<std::uint8_t>(p.begin(), p.end());
}

}  // namespace

base::Result<std::optional<Credential>> credential_find() {
    // Where Globus tools look (security/tls.hpp), as mpirun and the gatekeeper find theirs.
    base::Result<security::TlsCredential> where = security::user_credential_find();
    if (!where) {
        const char* named = std::getenv("X509_USER_PROXY");
        if (named != nullptr && *named != '\0') return where.failure();  // a proxy named but missing
        return std::optional<Credential>();                              // no HOME: nothing to present
    }
    Credential c;
    if (where->proxy) {
        base::Result<security::ProxyCredential> p = security::proxy_load(where->cert);
        if (!p) return p.failure();
        std::vector<X509*> certs{p->cert.get()};
        for (const auto& x : p->chain) certs.push_back(x.get());
        base::Result<std::string> pem = security::certs_to_pem(certs);
        if (!pem) return pem.failure();
        c.certificates = std::move(*pem);
        c.key = std::move(p->key);
        return std::optional<Credential>(std::move(c));
    }
    std::error_code ec;
    if (!std::filesystem::exists(where->cert, ec) || !std::filesystem::exists(where->key, ec))
        return std::optional<Credential>();
    if (base::Status mine = security::private_file_check(where->key, "the user key"); !mine) return mine.failure();
    base::Result<security::PkeyPtr> k = security::key_load_pem(where->key);
    if (!k) return std::optional<Credential>();  // encrypted: a connect does not ask for the pass phrase
    base::Result<std::string> pem = security::file_read(where->cert, "the user certificate");
    if (!pem) return pem.failure();
    c.certificates = std::move(*pem);
    c.key = std::move(*k);
    return std::optional<Credential>(std::move(c));
}

base::Result<std::vector<std::uint8_t>> credential_sign(const Credential& c, const Secret& secret,
                                                        const security::Nonce& client, const security::Nonce& server) {
    return security::signature_make(c.key.get(), signed_bytes(secret, client, server));
}

base::Result<std::string> credential_check(const std::string& certificates, const std::vector<std::uint8_t>& signature,
                                           const Secret& secret, const security::Nonce& client,
                                           const security::Nonce& server) {
    std::vector<security::X509Ptr> certs = security::certs_from_pem(certificates);
    if (certs.empty()) return base::Error{"the client's credential holds no certificate"};
    if (!security::signature_check(certs[0].get(), signed_bytes(secret, client, server), signature))
        return base::Error{"the client's credential did not sign this conversation"};
    base::Result<security::TlsCredential> where = security::user_credential_find();
    if (!where) return base::Error{"no trusted CAs to check the client's credential: " + where.error()};
    const std::filesystem::path& ca_dir = where->ca_dir;
    base::Result<security::X509StorePtr> trust = security::trust_store_load(ca_dir);
    if (!trust) return trust.failure();
    std::vector<X509*> raw;
    for (const auto& x : certs) raw.push_back(x.get());
    base::Result<std::string> who = security::chain_verify(trust->get(), raw);
    if (!who) return base::Error{"the client's certificate does not verify against " + ca_dir.string() + ": " + who.error()};
    return who;
}

}  // namespace strata::wireup::port
