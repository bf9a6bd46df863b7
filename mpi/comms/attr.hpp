// Attribute caching on communicators: the keyval table and the callbacks
// that MPI_Comm_dup and MPI_Comm_free run.
#pragma once

#include "mpi.h"
#include "mpi/comms/comm.hpp"

namespace strata::mpi {

// An attribute key (MPI_Keyval_create). It lives while its handle is not
// freed or attributes still use it.
struct Keyval {
    MPI_Copy_function* copy = nullptr;
    MPI_Delete_function* del = nullptr;
    void* extra = nullptr;
    int refs = 1;
    bool predefined = false;
};

// Copies `from`'s attributes to `to` through their copy callbacks (MPI_Comm_dup).
int attrs_copy(MPI_Comm old_handle, const Comm& from, Comm& to);
// Deletes every attribute of `c` through its delete callback (MPI_Comm_free).
int attrs_delete_all(MPI_Comm handle, Comm& c);
// Gives back `c`'s premium service (MPIX_QOS), if any: it is best effort after.
void qos_release(Comm& c);

}  // namespace strata::mpi
