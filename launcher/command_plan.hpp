// The plan of the job mpirun's command line describes, and the checks of
// its settings against a plan.
#pragma once

#include "base/result.hpp"
#include "job/job_plan.hpp"
#include "job/local_host.hpp"
#include "launcher/options.hpp"

namespace strata::launcher {

// From the command line: the request it describes, made a plan by
// JobPlan::from_request:
//   - a machine file: job_request_from_machine_file, plain host lines that
//     are not this machine reached as -launcher says (ssh; srun inside a
//     Slurm allocation; fork refuses them);
//   - none, inside a Slurm allocation (SLURM_JOB_ID) and without -launcher
//     fork: one subjob per node of the allocation, -np defaulting to its
//     task count, every node a machine of one site (the cluster);
//   - none otherwise: one subjob on this machine, named after it.
// Fails (without "mpirun: ") on a machine file that cannot be read or is
// malformed, a malformed allocation, or -launcher srun outside one.
base::Result<job::JobPlan> plan_build(const Options& options, const job::LocalHost& local);

// Whether any process gets STRATA_EMULATION (mpirun then makes the job's
// shared link table, wireup/shared_links.hpp).
bool plan_emulated(const job::JobPlan& plan, const Options& options);
// Every wide-area emulation setting the processes will see (STRATA_EMULATION
// in a subjob's environment, a -x export, mpirun's own environment) is well
// formed and names only sites of this job; a failure says what is wrong
// (without "mpirun: ").
base::Status plan_emulation_check(const job::JobPlan& plan, const Options& options);
// Every private site (`network: private`) has a way to relay: each of its
// subjobs starts through a gatekeeper (which runs the relay), and every
// subjob at that site says private; a failure names the site.
base::Status plan_relay_check(const job::JobPlan& plan);

}  // namespace strata::launcher
