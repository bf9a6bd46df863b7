// How processes and subjobs end, in the words both sides of a job use: the
// adapters that start processes report them, the gatekeeper protocol carries
// them, mpirun's co-allocator acts on them.
#pragma once

#include "base/wire.hpp"

#include <string>

namespace strata::job {

enum class Stream { out, err };

// How a process ended.
struct ProcessExit {
    bool signaled = false;
    int value = 0;  // exit code, or signal number when `signaled`

    bool success() const { return !signaled && value == 0; }
    // mpirun's exit code for a job that ended because of this process.
    int job_exit_code() const { return signaled ? 128 + value : value; }
    // "exited with code 2" / "was killed by signal 9 (Killed)"
    std::string describe() const;
};
constexpr auto wire_fields(std::type_identity<ProcessExit>) {
    namespace w = base::wire;
    return std::tuple{w::field("signaled", &ProcessExit::signaled), w::within("value", &ProcessExit::value, 0, 255)};
}

// The scheduler's view of a whole subjob, as Globus GRAM reports it.
enum class JobState {
    pending,  // accepted, waiting (e.g. queued in a batch scheduler)
    active,   // its processes run
    done,     // every process ended
    failed,   // it could not start or the scheduler ended it; the event's detail says why
};

const char* job_state_name(JobState state);  // "PENDING", "ACTIVE", "DONE", "FAILED"

enum class CancelMode {
    terminate,  // ask politely (SIGTERM to each process group)
    kill,       // no more waiting (SIGKILL)
};

}  // namespace strata::job
