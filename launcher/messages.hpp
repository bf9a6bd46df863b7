// Every message mpirun prints about a running job, in one place so their
// wording stays consistent (tests and users grep for them). Texts come
// without the "mpirun: " prefix and without a final newline.
#pragma once

#include "adapters/scheduler_adapter.hpp"
#include "job/subjob.hpp"

#include <string>
#include <vector>

namespace strata::launcher::messages {

// Where a process was in the MPI life cycle when it went away.
enum class Phase {
    never_checked_in,  // not an MPI program, or died before MPI_Init reached mpirun
    checked_in,        // between MPI_Init and MPI_Finalize
    finalized,         // after MPI_Finalize
};

// `contact` is the subjob's (kLocalContact for this machine); other sites are named.
std::string start_failed(const std::string& program, int rank, const std::string& contact, const std::string& reason);
// "subjob 1 (site anl, contact anl.example.org/jobmanager-fork) failed: why; ending the job"
std::string subjob_failed(int subjob, const std::string& site, const std::string& contact,
                          const std::string& reason);
// "rank 3 (pid 4242) exited with code 2 before MPI_Finalize; ending the job"
// "2 of 4 processes did not call MPI_Init within 300 s of starting (ranks 5, 7)"
std::string startup_timeout(const std::vector<int>& missing, int count, int seconds);
std::string process_failed(int rank, long pid, const adapters::ProcessExit& how, Phase phase);
std::string exit_after_finalize(int rank, long pid, const adapters::ProcessExit& how);
std::string exit_without_init(int rank, long pid);
std::string connection_lost(int rank, long pid);
// The first line, then the application's message on lines of its own.
std::string aborted(int rank, int code, const std::string& message);
std::string interrupted(int signal);
std::string connection_dropped(const std::string& reason);
// "-gencomm cannot write the communicator file: why; ending the job"
std::string gencomm_failed(const std::string& reason);

}  // namespace strata::launcher::messages
