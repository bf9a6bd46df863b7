// A rank's side of a relay connection (relay/protocol.hpp): connects to a
// relay, proves the job key with the Open the connection is for, and hands
// back the socket, non-blocking, ready for what the kind carries (a pair's
// end-to-end bytes, an attach's Notices, a control connection's wire-up
// conversation with mpirun). The TCP method and wireup::Client use it.
//
// Two ways to make it: Dialer, a step at a time for a caller with its own
// event loop (the TCP method: a relayed connection's handshake never blocks
// its progress engine), and dial(), which blocks, bounded by a timeout
// (wireup::Client's control connection, made once before anything else).
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "base/unique_fd.hpp"

#include "base/result.hpp"
#include "relay/protocol.hpp"

namespace strata::relay {

inline constexpr std::chrono::milliseconds kRelayTimeout{10000};

class Dialer {
public:
    // Opens a non-blocking socket and starts connecting to `at`.
    static base::Result<Dialer> start(const Endpoint& at, Open open, const std::string& job_key);
    int fd() const { return fd_.get(); }
    // What the socket must become before the next step: writable while it
    // connects, readable after.
    bool wants_write() const { return state_ == State::connecting; }
    // Goes as far as the socket allows without blocking: true once the
    // Answer was 1 (take() the socket then), false while it must wait.
    // Fails naming the relay and what went wrong: unreachable, closed, a
    // proof that does not hold (not a relay of this job), or refused
    // (Answer 0, e.g. no such rank attached).
    base::Result<bool> step();
    int take() { return fd_.release(); }

private:
    enum class State { connecting, open_sent, response_sent, done };
    Dialer() = default;
    base::Result<bool> fail(const std::string& why) const;
    base::Result<bool> connected();
    base::Result<bool> challenged();
    // Reads towards `need` bytes; false while more must come.
    base::Result<bool> read_toward(std::size_t need);

    base::UniqueFd fd_;
    State state_ = State::connecting;
    Endpoint at_;
    Open open_;
    std::string key_;
    security::Nonce relay_nonce_{};
    std::vector<std::uint8_t> got_;
};

// The socket after an Answer of 1, blocking until then (at most `timeout`);
// fails as Dialer::step does, or when the time runs out.
base::Result<int> dial(const Endpoint& at, Open open, const std::string& job_key,
                       std::chrono::milliseconds timeout = kRelayTimeout);

}  // namespace strata::relay
