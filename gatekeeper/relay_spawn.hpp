// The relay of a private site's subjob (relay/protocol.hpp), as the
// gatekeeper starts it: `strata-gatekeeper --relay`, this very program, run
// as the subjob's account with the job's key in its environment only.
//
// The relay lives as long as the session's subjob: it reads its stdin (the
// lifeline) until the gatekeeper closes it, and dies with the gatekeeper
// (parent-death signal). The port it listens on (every address) comes back
// as one line on its stdout; the processes reach it at `address` (the
// gatekeeper's own, as mpirun reached it).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "adapters/scheduler_adapter.hpp"
#include "base/result.hpp"

namespace strata::gatekeeper {

class RelayProcess {
public:
    // Starts the relay and waits (at most a few seconds) for its port. Its
    // ranks' control connections go to `wireup` (mpirun's "a.b.c.d:port");
    // links it cannot dial go through mpirun's hub at `hub` (the same form;
    // empty: none), which knows the relay by `address`. `peer_timeout`: the
    // job's STRATA_PEER_TIMEOUT_S (empty: the default), after which a silent
    // link to another relay counts as lost (base/keepalive.hpp).
    static base::Result<std::unique_ptr<RelayProcess>> spawn(const std::string& address, const std::string& wireup,
                                                             const std::string& hub, const std::string& job_key,
                                                             const std::string& peer_timeout,
                                                             const std::optional<adapters::RunAs>& run_as);
    // Ends it: the lifeline closes, SIGTERM, and the process is reaped.
    ~RelayProcess();
    RelayProcess(const RelayProcess&) = delete;
    RelayProcess& operator=(const RelayProcess&) = delete;

    // "a.b.c.d:port", what the processes get as STRATA_RELAY.
    const std::string& endpoint() const { return endpoint_; }
    pid_t pid() const { return pid_; }
    // Readable once the relay has exited (a pidfd; -1 if the kernel has none).
    int exit_fd() const { return pidfd_; }
    // Readable when the relay reported something (relay::Options::report);
    // reports_read() takes the whole lines that came, without blocking, and
    // closes it (-1 from then on) once the relay's end has closed.
    int reports_fd() const { return reports_; }
    std::vector<std::string> reports_read();
    // After exit_fd() became readable: reaps the relay and says how it ended
    // ("exited with status 1", "was killed by signal 9 (Killed)").
    std::string reap();

private:
    RelayProcess() = default;
    pid_t pid_ = -1;
    int pidfd_ = -1;
    int lifeline_ = -1;
    int reports_ = -1;
    std::string partial_;  // a report not yet whole
    std::string endpoint_;
};

// The whole lines a relay reported on `fd` (non-blocking) since the last
// call, `partial` keeping what is not whole yet; each at most kReportMax
// bytes (a longer one is cut), at most 16 KiB read per call. At EOF it
// closes `fd` and sets it to -1.
inline constexpr std::size_t kReportMax = 1024;
std::vector<std::string> report_lines(int& fd, std::string& partial);

}  // namespace strata::gatekeeper
