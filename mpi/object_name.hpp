// Object names (MPI_Comm_set_name, MPI_Type_set_name) as the getters return them.
#pragma once

#include <cstddef>
#include <cstring>
#include <string>

#include "mpi.h"

namespace strata::mpi {

// A name a program gives a communicator or datatype (MPI_Comm_set_name,
// MPI_Type_set_name): local to this process, cut to MPI_MAX_OBJECT_NAME - 1
// characters.
inline void object_name_set(std::string& name, const char* given) {
    name.assign(given, strnlen(given, MPI_MAX_OBJECT_NAME - 1));
}

// The name of a communicator or datatype into `out` (MPI_MAX_OBJECT_NAME
// bytes), as MPI_Comm_get_name and MPI_Type_get_name return it.
inline void object_name_copy(const std::string& name, char* out, int* resultlen) {
    const std::size_t n = name.size() < MPI_MAX_OBJECT_NAME ? name.size() : MPI_MAX_OBJECT_NAME - 1;
    name.copy(out, n);
    out[n] = '\0';
    *resultlen = static_cast<int>(n);
}

}  // namespace strata::mpi
