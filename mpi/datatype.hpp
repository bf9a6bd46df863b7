// Datatype lookups. Basic types only so far: every one is contiguous, so a
// message of `count` elements is count * size bytes straight from the buffer.
#pragma once

#include "mpi/runtime.hpp"

namespace strata::mpi {

inline Datatype* datatype_get(MPI_Datatype t) { return rt().datatypes.get(t); }

}  // namespace strata::mpi
