// Predefined objects, created by MPI_Init once the world is known.
#pragma once

#include "mpi/runtime.hpp"

namespace strata::mpi {

void setup_predefined(Runtime& r);
void comms_setup(Runtime& r);
void datatypes_setup(Runtime& r);
void errhandlers_setup(Runtime& r);
void groups_setup(Runtime& r);
void keyvals_setup(Runtime& r);

}  // namespace strata::mpi
