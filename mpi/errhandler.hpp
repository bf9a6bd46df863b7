// An error handler (MPI_Errhandler_create and the predefined ones).
#pragma once

#include "mpi.h"

namespace strata::mpi {

struct Errhandler {
    MPI_Handler_function* fn = nullptr;  // null for the predefined ones
    bool fatal = false;
    int refs = 1;
};

}  // namespace strata::mpi
