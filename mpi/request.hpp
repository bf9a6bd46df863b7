// What an MPI request handle holds: the engine request and, for persistent
// requests, the arguments MPI_Start replays.
#pragma once

#include "adi/request.hpp"
#include "mpi.h"
#include "mpi/datatypes/typemap.hpp"

namespace strata::mpi {

// What an MPI request handle refers to.
struct RequestSlot {
    adi::Request* req = nullptr;
    MPI_Comm comm = MPI_COMM_NULL;
    bool persistent = false;
    bool active = false;  // persistent: started and not yet collected
    // A receive into `buf` as the packed form of (count, type) rather than
    // into its layout (MPI_Sendrecv_replace's scratch, in a job of processes of
    // several representations; otherwise it receives MPI_BYTE).
    bool packed_target = false;
    // Persistent arguments, replayed by MPI_Start.
    enum class Op { send, bsend, ssend, rsend, recv } op = Op::send;
    const void* buf = nullptr;
    int count = 0;
    // The datatype's layout rather than its handle. A blocking call holds its
    // datatype for its whole length, so the plain pointer is enough there; a
    // slot that outlives its call (a request handle) keeps the layout in
    // `hold` too, because MPI_Type_free may release the handle meanwhile.
    const Typemap* type = nullptr;
    TypemapPtr hold;
    int peer = 0;
    int tag = 0;
};

}  // namespace strata::mpi
