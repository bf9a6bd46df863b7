// Before a subjob starts: does its directory exist, and which file is its
// program? Asked as the account that will run it, so that a gatekeeper
// running as root never answers with what only root can see (whether a path
// under /root exists, say).
#pragma once

#include "adapters/scheduler_adapter.hpp"
#include "base/result.hpp"

#include <optional>
#include <string>

namespace strata::adapters {

struct ProgramCheck {
    std::string directory;  // where the processes start (mpirun's own when none was given)
    std::string path;       // the program found on PATH, or as given when it has a slash
};

// Checks `program` (searched on `path_env` unless it has a slash, in which
// case it must be a runnable file relative to the directory) and
// `directory`. Fails with the reason, as the adapters report it. With
// `run_as` and this process root, the checks run in a child process with
// that account's identity ("cannot check the program as the account: ..."
// when that child could not run). The caller must be single-threaded (the
// child allocates after fork).
base::Result<ProgramCheck> program_check_as(const std::optional<RunAs>& run_as, const std::string& program,
                                            const std::string& directory, const std::string& path_env);

}  // namespace strata::adapters
