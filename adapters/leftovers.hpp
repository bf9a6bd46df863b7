// What a reaped process of the job may have left behind, removed by whoever
// reaped it (the fork adapter, strata-slurm-task).
#pragma once

#include <sys/types.h>

#include <string>

namespace strata::adapters {

// Removes the shared-memory segments (wireup::shm_segment_prefix) that process
// `pid` made and did not remove (it was killed before its local peers had
// attached to them), among those of `owner` only: /dev/shm is everyone's, so
// an entry of another account, or anything but a regular file, stays. Safe
// as root: every step goes through a descriptor of /dev/shm, whose sticky bit
// keeps other accounts from replacing the owner's entries. Returns how many
// it removed.
int shm_leftovers_remove(pid_t pid, uid_t owner, const std::string& dir = "/dev/shm");

}  // namespace strata::adapters
