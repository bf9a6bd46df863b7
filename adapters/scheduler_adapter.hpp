// How a subjob's processes are started, whatever starts them.
//
// Whoever owns a subjob creates one adapter for it, calls start() once, and
// learns everything else through ProcessEvents: mpirun's co-allocator (the
// fork adapter for this machine, launcher/gatekeeper_adapter.hpp for a
// subjob at a site, which relays a gatekeeper's events over its
// authenticated connection) and a gatekeeper (the adapter its Submit names,
// from adapter_table.hpp: the fork adapter, processes on the gatekeeper's
// machine, or the slurm adapter, the subjob as one Slurm batch job).
//
// Threading: everything runs on the owner's io_context thread. Events
// are delivered from inside start() (start failures) or from io_context
// handlers, never concurrently.
#pragma once

#include <cstdint>

#include "job/process_state.hpp"
#include "job/subjob.hpp"

#include <boost/asio/io_context.hpp>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace strata::adapters {

// The vocabulary of process events, from the job model (also the gatekeeper
// protocol's).
using job::CancelMode;
using job::job_state_name;
using job::JobState;
using job::ProcessExit;
using job::Stream;

// What the co-allocator hears from an adapter, in the order it happened per rank.
class ProcessEvents {
public:
    virtual ~ProcessEvents() = default;
    virtual void on_started(int rank, long pid) = 0;
    // The rank could not be started; `reason` is e.g. strerror(ENOENT). The
    // adapter starts no further process of the subjob after this.
    virtual void on_start_failed(int rank, const std::string& reason) = 0;
    // A chunk of the rank's stdout or stderr (arbitrary boundaries).
    virtual void on_output(int rank, Stream stream, std::string_view bytes) = 0;
    virtual void on_output_closed(int rank, Stream stream) = 0;
    virtual void on_exited(int rank, long pid, ProcessExit how) = 0;
    // The subjob as a whole changed state. `detail` gives the reason for
    // `failed` and may add context otherwise (a batch job id). An adapter
    // reports each state at most once, in order; `failed` replaces `done`.
    virtual void on_subjob_state(int subjob, JobState state, const std::string& detail) = 0;
};

// A local account to run processes as (a gatekeeper running as root).
struct RunAs {
    unsigned uid = 0;
    unsigned gid = 0;
    std::vector<unsigned> groups;  // supplementary groups
};

// What every process of the subjob is given.
struct LaunchSpec {
    // What to run; env is set on top of the adapter's own environment (see
    // inherit_environment), an empty directory is the adapter's own.
    job::Command command;
    // mpirun's stdin, forwarded to rank 0 only; -1 when rank 0 is not in this
    // subjob. The adapter owns it from start() on and closes it.
    int stdin_fd = -1;
    std::optional<RunAs> run_as;  // unset: the adapter's own account
    // false: the processes get `env` alone, nothing of the adapter's own
    // environment (a gatekeeper: a login's environment, never its own).
    bool inherit_environment = true;
    // Queue, project and wall time; the slurm adapter asks sbatch for them,
    // the fork adapter ends the processes at the wall time.
    job::Batch batch;
    // A private site's relay links through mpirun's hub at this port (of
    // mpirun's wire-up address) where it cannot dial; 0: no hub. Only a
    // gatekeeper, which starts the relay, uses it.
    std::uint16_t relay_hub_port = 0;
};

enum class SubjobState {
    idle,     // start() not called yet
    running,  // some process alive or some output still open
    done,     // every process reaped and its output drained
};


class SchedulerAdapter {
public:
    virtual ~SchedulerAdapter() = default;  // must kill and reap whatever is left

    virtual const char* name() const = 0;
    // Starts every process of the subjob. Failures are reported through
    // `events.on_start_failed`; processes started before it keep running
    // until cancel().
    virtual void start(const job::Subjob& subjob, LaunchSpec spec, ProcessEvents& events) = 0;
    virtual void cancel(CancelMode mode) = 0;
    virtual SubjobState state() const = 0;
};

}  // namespace strata::adapters
