#include "launcher/relay_hub.hpp"

#include <cstdio>

namespace strata::launcher {

base::Result<std::unique_ptr<RelayHub>> RelayHub::start(const std::string& job_key, bool all_interfaces,
                                                        std::function<void(const std::string&)> log) {
    relay::Options o;
    o.job_key = job_key;
    o.listen_address = all_interfaces ? 0 : 0x7f000001;
    o.is_hub = true;
    o.log = std::move(log);
    base::Result<std::unique_ptr<relay::Relay>> relay = relay::Relay::open(std::move(o));
    if (!relay) return base::Error{"cannot start the hub that joins the private sites' relays: " + relay.error()};
    return std::unique_ptr<RelayHub>(new RelayHub(std::move(*relay)));
}

RelayHub::RelayHub(std::unique_ptr<relay::Relay> relay) : relay_(std::move(relay)) {
    thread_ = std::thread([this] {
        if (base::Status ran = relay_->run(); !ran) std::fprintf(stderr, "mpirun: the relays' hub: %s\n", ran.error().c_str());
    });
}

RelayHub::~RelayHub() {
    relay_->stop();
    thread_.join();
}

}  // namespace strata::launcher
