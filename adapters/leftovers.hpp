// What a reaped process of the job may have left behind, removed by whoever
// reaped it (the fork adapter, strata-slurm-task).
#pragma once

#include <sys/types.h>

#include <string>

#include "adapters/scheduler_adapter.hpp"

namespace strata::adapters {

// Removes the shared-memory segments (wireup::shm_segment_prefix) that process
// `pid` made and did not remove (it was killed before its local peers had
// attached to them), among those of `owner` only: /dev/shm is everyone's, so
// an entry of another account, or anything but a regular file, stays. Safe
// as root: every step goes through a descriptor of /dev/shm, whose sticky bit
// keeps other accounts from replacing the owner's entries. Returns how many
// it removed.
int shm_leftovers_remove(pid_t pid, uid_t owner, const std::string& dir = "/dev/shm");

// The same for a process that ran as `run_as`: when this process is root,
// the removal runs in a child switched to that account first, so that root
// itself never unlinks anything in a directory users can write.
void shm_leftovers_remove_as(pid_t pid, const RunAs& run_as, const std::string& dir = "/dev/shm");

}  // namespace strata::adapters
