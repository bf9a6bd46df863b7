// Externally defined communicators at run time (MPIX_Comm_create_named and
// mpi_named.h's transparent mode): the job's communicator file, its groups
// for this job, and the communicators the transparent mode made.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "commfile/comm_file.hpp"
#include "mpi.h"

namespace strata::mpi {

struct Runtime;

struct NamedComms {
    commfile::File file;
    // Each definition for this job, worked out on the first request.
    std::optional<std::vector<commfile::Resolved>> resolved;
    // The names the transparent mode built: this process's communicator, or
    // MPI_COMM_NULL where it is in none of that name.
    std::map<std::string, MPI_Comm> transparent;
};

// Reads the job's communicator file at MPI_Init: the text mpirun released
// (named `where`), else the file STRATA_COMM_FILE names, else none. Fails
// when it cannot be read or is malformed.
base::Status named_setup(Runtime& r, const std::string& where, const std::string& text);

}  // namespace strata::mpi
