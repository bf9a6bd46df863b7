#include "launcher/scheduler_adapter.hpp"

#include "launcher/fork_adapter.hpp"

#include <cstring>

namespace strata::launcher {

std::string ProcessExit::describe() const {
    if (!signaled) return "exited with code " + std::to_string(value);
    const char* name = ::strsignal(value);
    return "was killed by signal " + std::to_string(value) + " (" + (name != nullptr ? name : "unknown") + ")";
}

const char* job_state_name(JobState state) {
    switch (state) {
        case JobState::pending: return "PENDING";
        case JobState::active: return "ACTIVE";
        case JobState::done: return "DONE";
        case JobState::failed: return "FAILED";
    }
    return "UNKNOWN";
}

// The adapter table: one line per kind of contact. Remote gatekeeper contacts
// ("host:port") will get their line here when that adapter exists.
std::unique_ptr<SchedulerAdapter> SchedulerAdapter::create(boost::asio::io_context& io, const Subjob& subjob,
                                                           std::string& error) {
    if (subjob.contact == kLocalContact) return std::make_unique<ForkAdapter>(io);
    error = "no scheduler adapter can reach '" + subjob.contact + "' (subjob " + std::to_string(subjob.index) +
            "); only this machine is supported for now";
    return nullptr;
}

}  // namespace strata::launcher
