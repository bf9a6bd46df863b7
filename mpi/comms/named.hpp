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

// What the transparent mode made of one name for this process: its
// communicator (MPI_COMM_NULL outside them), and the communicator whose
// error handler raises the error of a process outside them (the parent's,
// when this process is in it; else MPI_COMM_WORLD).
struct TransparentComm {
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Comm raise_on = MPI_COMM_NULL;
};

struct NamedComms {
    commfile::File file;
    // Each definition for this job, worked out on the first request.
    std::optional<std::vector<commfile::Resolved>> resolved;
    // The names the transparent mode built: this process's communicator, or
    // MPI_COMM_NULL where it is in none of that name.
    std::map<std::string, TransparentComm> transparent;
};

// Reads the job's communicator file at MPI_Init: the text mpirun released
// (named `where`), else the file STRATA_COMM_FILE names, else none. Fails
// when it cannot be read or is malformed.
base::Status named_setup(Runtime& r, const std::string& where, const std::string& text);

}  // namespace strata::mpi
