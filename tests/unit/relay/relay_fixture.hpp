// Relays in the test process, each on its own thread, and ranks played with
// plain blocking sockets on loopback. Nothing here decides by timing: a
// test waits for a state (a log line, a count) and hangs if it never comes,
// which meson's timeout reports.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "relay/protocol.hpp"
#include "relay/relay.hpp"

namespace strata::test {

inline constexpr std::uint32_t kLoopback = 0x7f000001;

// The lines a relay logged.
class LogLines {
public:
    void add(const std::string& line);
    bool has(const std::string& part) const;
    // Waits until a line containing `part` was logged; returns that line.
    std::string wait_for(const std::string& part) const;
    std::string all() const;

private:
    mutable std::mutex m_;
    mutable std::condition_variable changed_;
    std::vector<std::string> lines_;
};

class RunningRelay {
public:
    // `wireup`: where control connections go (none: they are refused).
    explicit RunningRelay(const std::string& key, std::optional<relay::Endpoint> wireup = std::nullopt);
    // Any options (a hub, a relay told of one); it listens on loopback.
    explicit RunningRelay(relay::Options options);
    ~RunningRelay();
    int port() const { return port_; }
    // Where other relays are told it is: its advertised address, else loopback.
    relay::Endpoint endpoint() const {
        return relay::Endpoint{advertise_ != 0 ? advertise_ : kLoopback, static_cast<std::uint16_t>(port())};
    }
    relay::Stats stats() const { return relay_ ? relay_->stats() : final_; }
    // Stops the relay and closes all its sockets (stats() stays).
    void kill();
    LogLines log;
    LogLines reports;  // what it reported (relay::Options::report)

private:
    std::unique_ptr<relay::Relay> relay_;
    std::thread thread_;
    int port_ = 0;
    std::uint32_t advertise_ = 0;
    relay::Stats final_;
};

// An Open of `kind` from rank `from` to rank `to`, the rest zero.
relay::Open open_of(relay::Kind kind, std::uint32_t from, std::uint32_t to);

// One connection's handshake as a rank (or anyone) makes it.
struct Handshake {
    int fd = -1;
    bool relay_proved = false;  // the Challenge's proof matched our key
    int answer = -1;            // the Answer, -1 when the relay closed first
};
Handshake handshake(int port, const std::string& key, relay::Open open);
// An attached rank's connection, a pair Open's connection.
int attach(int port, const std::string& key, std::uint32_t rank);
relay::Notice notice_read(int attach_fd);

// Rank `from` at relay `a` to rank `to` attached (by attach_fd) at `b`: the
// two ends of the spliced connection.
struct Pair {
    int here = -1;
    int there = -1;
};
Pair pair_open(const RunningRelay& a, const RunningRelay& b, const std::string& key, std::uint32_t from,
               std::uint32_t to, int attach_fd);

bool write_all(int fd, const std::uint8_t* data, std::size_t n);
// Reads exactly n bytes; false on EOF or error first.
bool read_all(int fd, std::uint8_t* data, std::size_t n);
// The next read after everything: 0 at EOF, -1 on error, 1 with data.
int read_end(int fd);
std::uint8_t pattern(std::uint64_t i, std::uint32_t seed);
// Sends `n` pattern bytes on fd (from a thread) while reading and checking
// `n` from the other side's seed; whether all arrived intact.
bool exchange(int fd, std::uint32_t out_seed, std::uint32_t in_seed, std::size_t n);

}  // namespace strata::test
