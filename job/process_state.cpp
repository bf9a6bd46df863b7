#include "job/process_state.hpp"

#include <cstring>

namespace strata::job {

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

}  // namespace strata::job
