// mpirun's hub (relay/protocol.hpp, hub_attach and hub_link): a relay run
// by mpirun on its own thread, through which the relays of private sites
// link where neither accepts connections from the other. Every relay
// reaches mpirun already (its ranks' control connections go to mpirun's
// wire-up listener), so the hub listens on the same addresses, on a port of
// its own, and the gatekeepers pass that port to their relays
// (gram::Submit::hub_port). Slow (every byte between two such sites crosses
// mpirun's machine), but it runs; mpirun -v says which links go through it.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "base/result.hpp"
#include "relay/relay.hpp"

namespace strata::launcher {

class RelayHub {
public:
    // Listens on every interface, or on 127.0.0.1 alone; `log` gets its log
    // lines (from the hub's thread).
    static base::Result<std::unique_ptr<RelayHub>> start(const std::string& job_key, bool all_interfaces,
                                                         std::function<void(const std::string&)> log);
    // Stops the hub and waits for its thread.
    ~RelayHub();
    RelayHub(const RelayHub&) = delete;
    RelayHub& operator=(const RelayHub&) = delete;

    int port() const { return relay_->port(); }

private:
    explicit RelayHub(std::unique_ptr<relay::Relay> relay);
    std::unique_ptr<relay::Relay> relay_;
    std::thread thread_;
};

}  // namespace strata::launcher
