#include "relay_fixture.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <stdexcept>

namespace strata::test {

void LogLines::add(const std::string& line) {
    std::lock_guard<std::mutex> lock(m_);
    lines_.push_back(line);
    changed_.notify_all();
}

bool LogLines::has(const std::string& part) const {
    std::lock_guard<std::mutex> lock(m_);
    for (const auto& l : lines_)
        if (l.find(part) != std::string::npos) return true;
    return false;
}

std::string LogLines::wait_for(const std::string& part) const {
    std::unique_lock<std::mutex> lock(m_);
    for (std::size_t seen = 0;; changed_.wait(lock)) {
        for (; seen < lines_.size(); ++seen)
            if (lines_[seen].find(part) != std::string::npos) return lines_[seen];
    }
}

std::string LogLines::all() const {
    std::lock_guard<std::mutex> lock(m_);
    std::string out;
    for (const auto& l : lines_) out += l + "\n";
    return out;
}

RunningRelay::RunningRelay(const std::string& key, std::optional<relay::Endpoint> wireup)
    : RunningRelay([&] {
          relay::Options o;
          o.job_key = key;
          o.wireup = wireup;
          return o;
      }()) {}

RunningRelay::RunningRelay(relay::Options o) : advertise_(o.advertise) {
    o.listen_address = kLoopback;
    o.log = [this](const std::string& line) { log.add(line); };
    o.report = [this](const std::string& line) { reports.add(line); };
    auto opened = relay::Relay::open(std::move(o));
    if (!opened) throw std::runtime_error(opened.error());
    relay_ = std::move(*opened);
    port_ = relay_->port();
    thread_ = std::thread([this] { (void)relay_->run(); });
}

RunningRelay::~RunningRelay() { kill(); }

void RunningRelay::kill() {
    if (!thread_.joinable()) return;
    relay_->stop();
    thread_.join();
    final_ = relay_->stats();
    relay_.reset();
}

namespace {

int connect_to(int port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(kLoopback);
    a.sin_port = htons(static_cast<std::uint16_t>(port));
    if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) throw std::runtime_error("connect failed");
    return fd;
}

}  // namespace

relay::Open open_of(relay::Kind kind, std::uint32_t from, std::uint32_t to) {
    relay::Open o;
    o.kind = kind;
    o.from = from;
    o.to = to;
    return o;
}

Handshake handshake(int port, const std::string& key, relay::Open open) {
    Handshake h;
    h.fd = connect_to(port);
    security::nonce_fill(open.nonce);
    const auto bytes = relay::open_encode(open);
    write_all(h.fd, bytes.data(), bytes.size());
    std::uint8_t challenge[relay::kChallengeSize];
    if (!read_all(h.fd, challenge, sizeof challenge)) return h;
    security::Nonce nonce{};
    security::Proof proof{};
    std::memcpy(nonce.data(), challenge, nonce.size());
    std::memcpy(proof.data(), challenge + nonce.size(), proof.size());
    h.relay_proved = security::proof_equal(
        proof, relay::open_proof(key, security::ProofRole::relay_acceptor, open, nonce));
    const auto response = relay::open_proof(key, security::ProofRole::relay_connector, open, nonce);
    write_all(h.fd, response.data(), response.size());
    std::uint8_t answer[relay::kAnswerSize];
    if (read_all(h.fd, answer, sizeof answer)) h.answer = static_cast<int>(relay::le32(answer));
    return h;
}

int attach(int port, const std::string& key, std::uint32_t rank) {
    relay::Open o;
    o.kind = relay::Kind::attach;
    o.from = rank;
    const Handshake h = handshake(port, key, o);
    if (h.answer != 1) throw std::runtime_error("attach refused");
    return h.fd;
}

relay::Notice notice_read(int attach_fd) {
    std::array<std::uint8_t, relay::kNoticeSize> bytes{};
    if (!read_all(attach_fd, bytes.data(), bytes.size())) throw std::runtime_error("no notice");
    const auto n = relay::notice_decode(bytes);
    if (!n) throw std::runtime_error("not a notice");
    return *n;
}

Pair pair_open(const RunningRelay& a, const RunningRelay& b, const std::string& key, std::uint32_t from,
               std::uint32_t to, int attach_fd) {
    relay::Open o;
    o.kind = relay::Kind::pair;
    o.from = from;
    o.to = to;
    o.stream = 7;
    o.relay = b.endpoint();
    const Handshake here = handshake(a.port(), key, o);
    if (here.answer != 1) throw std::runtime_error("pair refused");
    const relay::Notice n = notice_read(attach_fd);
    if (n.type != relay::NoticeType::accept || n.from != from || n.stream != 7)
        throw std::runtime_error("not the accept notice expected");
    relay::Open accept;
    accept.kind = relay::Kind::accept;
    accept.from = to;
    accept.to = from;
    accept.stream = n.stream;
    accept.token = n.token;
    const Handshake there = handshake(b.port(), key, accept);
    if (there.answer != 1) throw std::runtime_error("accept refused");
    return Pair{here.fd, there.fd};
}

bool write_all(int fd, const std::uint8_t* data, std::size_t n) {
    while (n > 0) {
        const ssize_t w = ::send(fd, data, n, MSG_NOSIGNAL);
        if (w <= 0) return false;
        data += w;
        n -= static_cast<std::size_t>(w);
    }
    return true;
}

bool read_all(int fd, std::uint8_t* data, std::size_t n) {
    while (n > 0) {
        const ssize_t r = ::recv(fd, data, n, 0);
        if (r <= 0) return false;
        data += r;
        n -= static_cast<std::size_t>(r);
    }
    return true;
}

int read_end(int fd) {
    std::uint8_t b;
    const ssize_t r = ::recv(fd, &b, 1, 0);
    return r > 0 ? 1 : static_cast<int>(r);
}

std::uint8_t pattern(std::uint64_t i, std::uint32_t seed) {
    return static_cast<std::uint8_t>((i * 2654435761u + seed) >> 11 ^ (i >> 16) ^ seed);
}

bool exchange(int fd, std::uint32_t out_seed, std::uint32_t in_seed, std::size_t n) {
    bool sent = false;
    std::thread writer([&] {
        std::vector<std::uint8_t> block(100000);
        bool ok = true;
        for (std::size_t at = 0; at < n && ok;) {
            const std::size_t len = std::min(block.size(), n - at);
            for (std::size_t i = 0; i < len; ++i) block[i] = pattern(at + i, out_seed);
            ok = write_all(fd, block.data(), len);
            at += len;
        }
        sent = ok;
    });
    std::vector<std::uint8_t> got(65536);
    bool intact = true;
    for (std::size_t at = 0; at < n && intact;) {
        const ssize_t r = ::recv(fd, got.data(), std::min(got.size(), n - at), 0);
        if (r <= 0) {
            intact = false;
            break;
        }
        for (ssize_t i = 0; i < r; ++i) intact = intact && got[static_cast<std::size_t>(i)] == pattern(at + static_cast<std::size_t>(i), in_seed);
        at += static_cast<std::size_t>(r);
    }
    if (!intact) ::shutdown(fd, SHUT_RDWR);  // frees the writer
    writer.join();
    return intact && sent;
}

}  // namespace strata::test
