// The job as a list of subjobs: which ranks start where, and through which
// scheduler adapter (a subjob's contact).
#pragma once

#include "base/result.hpp"
#include "launcher/job_request.hpp"
#include "launcher/local_host.hpp"
#include "launcher/machine_file.hpp"
#include "launcher/options.hpp"
#include "launcher/subjob.hpp"

#include <optional>
#include <string>
#include <vector>

namespace strata::launcher {

struct JobPlan {
    int size = 0;
    std::vector<Subjob> subjobs;

    // From the command line: the request it describes (one subjob on this
    // machine, named after it, for -np alone; job_request_from_machine_file
    // for a machine file), made a plan by from_request. Fails (without
    // "mpirun: ") on a machine file that cannot be read, is malformed, or
    // names a plain host line that is not this machine.
    static base::Result<JobPlan> build(const Options& options, const LocalHost& local);

    // The only way to a plan: a request (a job file's or the command line's).
    // A subjob's contact is kLocalContact (the embedded
    // fork adapter) when it names this machine, the fork adapter and no port;
    // otherwise it is the contact's text, for the gatekeeper there.
    static JobPlan from_request(const JobRequest& request, const LocalHost& local);

    // Whether any process gets STRATA_EMULATION (mpirun then makes the job's
    // shared link table, wireup/shared_links.hpp).
    bool emulated(const Options& options) const;
    // Every wide-area emulation setting the processes will see (STRATA_EMULATION
    // in a subjob's environment, a -x export, mpirun's own environment) is well
    // formed and names only sites of this job; a failure says what is wrong
    // (without "mpirun: ").
    base::Status emulation_check(const Options& options) const;
};

}  // namespace strata::launcher
