// Communicator lookups and the argument checks every call on a communicator shares.
#pragma once

#include "mpi/runtime.hpp"

namespace strata::mpi {

inline Comm* comm_get(MPI_Comm c) { return rt().comms.get(c); }

}  // namespace strata::mpi
