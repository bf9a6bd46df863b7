// The plan of the job mpirun's command line describes, and the checks of
// its settings against a plan.
#pragma once

#include "base/result.hpp"
#include "job/job_plan.hpp"
#include "job/local_host.hpp"
#include "launcher/options.hpp"

namespace strata::launcher {

// From the command line: the request it describes (one subjob on this
// machine, named after it, for -np alone; job_request_from_machine_file
// for a machine file: plain host lines that are not this machine are
// started over ssh), made a plan by JobPlan::from_request. Fails (without
// "mpirun: ") on a machine file that cannot be read or is malformed.
base::Result<job::JobPlan> plan_build(const Options& options, const job::LocalHost& local);

// Whether any process gets STRATA_EMULATION (mpirun then makes the job's
// shared link table, wireup/shared_links.hpp).
bool plan_emulated(const job::JobPlan& plan, const Options& options);
// Every wide-area emulation setting the processes will see (STRATA_EMULATION
// in a subjob's environment, a -x export, mpirun's own environment) is well
// formed and names only sites of this job; a failure says what is wrong
// (without "mpirun: ").
base::Status plan_emulation_check(const job::JobPlan& plan, const Options& options);

}  // namespace strata::launcher
