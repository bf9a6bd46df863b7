// Shared pieces of the point-to-point entry points: argument checks, starting
// an operation on its engine request, and collecting completed requests.
#pragma once

#include "mpi/runtime.hpp"

namespace strata::mpi {

// Checks communicator, count, datatype and buffer; on success fills c and t.
int check_buffer(const char* fn, MPI_Comm comm, const void* buf, int count, MPI_Datatype datatype, Comm*& c,
                 Datatype*& t);
int check_dest(const char* fn, MPI_Comm comm, const Comm& c, int dest);
int check_source(const char* fn, MPI_Comm comm, const Comm& c, int source);
// The world rank behind a checked source rank of `c`, or adi::kAnySource.
int world_source(const Comm& c, int source);
int check_send_tag(const char* fn, MPI_Comm comm, int tag);
int check_recv_tag(const char* fn, MPI_Comm comm, int tag);

// Starts the operation described by `s` on s.req (which must exist).
// Returns an MPI error class (raised by the caller).
int op_start(RequestSlot& s, std::string& detail);

// Validates a whole send or receive and fills a slot (without a request yet).
int slot_prepare(const char* fn, RequestSlot::Op op, const void* buf, int count, MPI_Datatype datatype, int peer,
                 int tag, MPI_Comm comm, RequestSlot& s);

// Starts `s` with a fresh engine request and registers it as a handle.
int slot_start_handle(const char* fn, RequestSlot s, MPI_Request* request);

// Runs a blocking operation on a slot that lives on the caller's stack.
int slot_run_blocking(const char* fn, RequestSlot& s, MPI_Status* status);

void status_store(MPI_Status* out, const adi::Status& st);
void status_empty(MPI_Status* out);

}  // namespace strata::mpi
