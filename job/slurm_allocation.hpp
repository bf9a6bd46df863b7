// The Slurm allocation mpirun runs in (salloc, sbatch): its nodes and how
// many tasks each holds, from the environment Slurm gives the job.
//
//   SLURM_JOB_ID            the allocation (required)
//   SLURM_JOB_NODELIST      its nodes as a host list: "n[1-3,5],gpu[01-02]", "vm"
//   SLURM_TASKS_PER_NODE    tasks of each node, in order, runs compressed: "2(x3),1"
//   SLURM_CLUSTER_NAME      the cluster (the topology's site label); optional
//
// mpirun starts one subjob per node with `srun` (or ssh), as Hydra and Open
// MPI do; -np defaults to the allocation's task count. Reading is pure and
// bounded: a host list naming more than kMaxNodes nodes is refused before it
// is expanded.
#pragma once

#include "base/result.hpp"
#include "job/machine_file.hpp"

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace strata::job {

struct SlurmAllocation {
    static constexpr std::size_t kMaxNodes = 65536;

    std::string job_id;
    std::string cluster;                               // empty: not given
    std::vector<std::pair<std::string, int>> nodes;  // name, tasks there

    int tasks() const;
    // The nodes as a machine file's entries (`path` names the allocation in messages).
    MachineFile machine_file() const;
};

// A Slurm host list expanded, in order: comma-separated names, each with any
// number of bracketed groups of numbers and ranges ("n[01-03,7]", zero
// padding kept from the range's first number).
base::Result<std::vector<std::string>> slurm_hostlist_expand(const std::string& text);
// SLURM_TASKS_PER_NODE expanded: "2(x3),1" is {2, 2, 2, 1}; at most `limit` entries.
base::Result<std::vector<int>> slurm_tasks_per_node(const std::string& text, std::size_t limit);

// The allocation the environment describes (`getenv` reads a variable;
// nullptr: unset). Fails when SLURM_JOB_ID is unset (not in an allocation)
// or a variable is malformed, naming it.
base::Result<SlurmAllocation> slurm_allocation(const std::function<const char*(const char*)>& getenv);

}  // namespace strata::job
