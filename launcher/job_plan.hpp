// The job as a list of subjobs: which ranks start where, and through which
// scheduler adapter (a subjob's contact).
#pragma once

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

    // From the command line: -np alone (one subjob on this machine) or a
    // machine file. Sets `error` (without "mpirun: ") on a machine file that
    // cannot be read, is malformed, or names a host that is not this machine.
    static std::optional<JobPlan> build(const Options& options, const LocalHost& local, std::string& error);

    // Fills the machine file's slots in order, cycling when np exceeds them;
    // consecutive ranks on one host form one subjob. np must be >= 1.
    static JobPlan from_machine_file(const MachineFile& file, int np);

    // A job file's request, run here: every subjob's contact must be this
    // machine with the fork adapter, since submitting to a gatekeeper is not
    // available yet. Sets `error` (without "mpirun: ") otherwise.
    static std::optional<JobPlan> from_request(const JobRequest& request, const LocalHost& local, std::string& error);
};

}  // namespace strata::launcher
