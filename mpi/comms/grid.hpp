// The grid's extensions (mpi/comms/grid.cpp).
#pragma once

#include "mpi/runtime.hpp"

namespace strata::mpi {

// Turns the engine's traffic counters on under STRATA_STATS=1 (from
// MPI_Init); otherwise they count from a program's first MPIX_Traffic_* call.
void traffic_setup(Runtime& r);
// With STRATA_STATS=1, prints what this process sent, per level and method
// (from MPI_Finalize).
void traffic_report(const Runtime& r);
// The topology table on stderr, each line "strata: ..." (rank 0 prints it
// under STRATA_VERBOSE, which mpirun -v sets).
void topology_report(const wireup::Topology& t);

}  // namespace strata::mpi
