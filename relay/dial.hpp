// A rank's side of a relay connection (relay/protocol.hpp): connects to a
// relay, proves the job key with the Open the connection is for, and hands
// back the socket, non-blocking, ready for what the kind carries (a pair's
// end-to-end bytes, an attach's Notices, a control connection's wire-up
// conversation with mpirun). The TCP method and wireup::Client use it.
//
// The exchange is short (a few small messages with a relay near the rank:
// its own site's, or for a public site's rank the private peer's gateway),
// so it blocks, bounded by `timeout`: it happens once per connection of a
// link, not per message.
#pragma once

#include <chrono>
#include <string>

#include "base/result.hpp"
#include "relay/protocol.hpp"

namespace strata::relay {

inline constexpr std::chrono::milliseconds kRelayTimeout{10000};

// The connected socket after an Answer of 1. Fails naming the relay and
// what went wrong: unreachable, closed, a proof that does not hold (not a
// relay of this job), or refused (Answer 0, e.g. no such rank attached).
base::Result<int> dial(const Endpoint& at, Open open, const std::string& job_key,
                       std::chrono::milliseconds timeout = kRelayTimeout);

}  // namespace strata::relay
