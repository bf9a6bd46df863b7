// A Fortran status is MPI_STATUS_SIZE default INTEGERs holding MPI_Status's
// bytes: MPI_SOURCE, MPI_TAG and MPI_ERROR at 1..3, then the library's
// private fields. The C conversions (mpi/f2c.cpp) and the Fortran bindings
// (fortran/) copy through these two.
#pragma once

#include <cstring>

#include "mpi.h"

namespace strata::mpi {

inline constexpr int kFortranStatusSize = static_cast<int>(sizeof(MPI_Status) / sizeof(MPI_Fint));
static_assert(sizeof(MPI_Status) % sizeof(MPI_Fint) == 0, "a status must be a whole number of INTEGERs");
static_assert(offsetof(MPI_Status, MPI_SOURCE) == 0 && offsetof(MPI_Status, MPI_TAG) == sizeof(MPI_Fint) &&
                  offsetof(MPI_Status, MPI_ERROR) == 2 * sizeof(MPI_Fint),
              "mpif.h's MPI_SOURCE, MPI_TAG and MPI_ERROR are 1, 2 and 3");

inline void status_f2c(const MPI_Fint* f, MPI_Status* c) { std::memcpy(c, f, sizeof(MPI_Status)); }
inline void status_c2f(const MPI_Status* c, MPI_Fint* f) { std::memcpy(f, c, sizeof(MPI_Status)); }

}  // namespace strata::mpi
