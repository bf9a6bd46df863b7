// Shared pieces of the point-to-point entry points: argument checks, starting
// an operation on its engine request, and collecting completed requests.
#pragma once

#include "mpi/comms/comm.hpp"
#include "mpi/datatypes/datatype.hpp"
#include "mpi/request.hpp"
#include "mpi/runtime.hpp"

namespace strata::mpi {

// The argument checks of every point-to-point call. Each is inline and only
// tests; its out-of-line *_fail half says what is wrong (every call pays for
// the checks, only a wrong one for the messages).
int check_buffer_fail(const char* fn, MPI_Comm comm, int count, MPI_Datatype datatype);
int check_dest_fail(const char* fn, MPI_Comm comm, const Comm& c, int dest);
int check_source_fail(const char* fn, MPI_Comm comm, const Comm& c, int source);
int check_send_tag_fail(const char* fn, MPI_Comm comm, int tag);
int check_recv_tag_fail(const char* fn, MPI_Comm comm, int tag);

// Checks communicator, count, datatype and buffer; on success fills c and t.
inline int check_buffer(const char* fn, MPI_Comm comm, const void* buf, int count, MPI_Datatype datatype, Comm*& c,
                        Datatype*& t) {
    c = comm_get(comm);
    t = datatype_get(datatype);
    if (c != nullptr && count >= 0 && t != nullptr && t->committed && !buffer_null(buf, count, *t->map)) [[likely]] {
        return MPI_SUCCESS;
    }
    return check_buffer_fail(fn, comm, count, datatype);
}
inline int check_dest(const char* fn, MPI_Comm comm, const Comm& c, int dest) {
    if ((dest >= 0 && dest < c.peers()) || dest == MPI_PROC_NULL) [[likely]] return MPI_SUCCESS;
    return check_dest_fail(fn, comm, c, dest);
}
inline int check_source(const char* fn, MPI_Comm comm, const Comm& c, int source) {
    if ((source >= 0 && source < c.peers()) || source == MPI_PROC_NULL || source == MPI_ANY_SOURCE) [[likely]] {
        return MPI_SUCCESS;
    }
    return check_source_fail(fn, comm, c, source);
}
inline int check_send_tag(const char* fn, MPI_Comm comm, int tag) {
    if (tag >= 0) [[likely]] return MPI_SUCCESS;
    return check_send_tag_fail(fn, comm, tag);
}
inline int check_recv_tag(const char* fn, MPI_Comm comm, int tag) {
    if (tag >= 0 || tag == MPI_ANY_TAG) [[likely]] return MPI_SUCCESS;
    return check_recv_tag_fail(fn, comm, tag);
}
// The world rank behind a checked source rank of `c`, or adi::kAnySource.
inline int world_source(const Comm& c, int source) {
    return source == MPI_ANY_SOURCE ? adi::kAnySource : c.world[static_cast<std::size_t>(source)];
}
// What a receive from `source` of `c` tells the engine to poll: for
// MPI_ANY_SOURCE the methods that reach c's processes (adi::RecvArgs),
// nothing else. Computed on the first such receive and kept with `c`.
[[gnu::noinline]] std::uint32_t any_methods_of(const Comm& c);
inline std::uint32_t from_methods(const Comm& c, int source) {
    if (source != MPI_ANY_SOURCE) [[likely]] return 0;
    return c.any_methods != 0 ? c.any_methods : any_methods_of(c);
}

// Every argument check of a send (dest, send tag) or a receive (source,
// receive tag), after check_buffer; on success fills c and t. The one
// validation of every point-to-point path, the blocking fast path included.
// Always inline, like its parts: out of line, passing its ten arguments
// costs more than the checks themselves.
[[gnu::always_inline]] inline int op_check(const char* fn, RequestSlot::Op op, const void* buf, int count,
                                           MPI_Datatype datatype, int peer, int tag, MPI_Comm comm, Comm*& c,
                                           Datatype*& t) {
    if (int e = check_buffer(fn, comm, buf, count, datatype, c, t)) return e;
    if (op == RequestSlot::Op::recv) {
        if (int e = check_source(fn, comm, *c, peer)) return e;
        return check_recv_tag(fn, comm, tag);
    }
    if (int e = check_dest(fn, comm, *c, peer)) return e;
    return check_send_tag(fn, comm, tag);
}

// Starts the operation described by `s` on s.req (which must exist).
// Returns an MPI error class (raised by the caller).
MpiError op_start(RequestSlot& s);

// Validates a whole send or receive (op_check) and fills a slot (without a request yet).
int slot_prepare(const char* fn, RequestSlot::Op op, const void* buf, int count, MPI_Datatype datatype, int peer,
                 int tag, MPI_Comm comm, RequestSlot& s);

// The MPI function that runs `op`, blocking (MPI_Send, ...) or not
// (MPI_Isend, ...): the name its errors carry.
constexpr const char* call_name(RequestSlot::Op op, bool blocking) {
    switch (op) {
        case RequestSlot::Op::send: return blocking ? "MPI_Send" : "MPI_Isend";
        case RequestSlot::Op::bsend: return blocking ? "MPI_Bsend" : "MPI_Ibsend";
        case RequestSlot::Op::ssend: return blocking ? "MPI_Ssend" : "MPI_Issend";
        case RequestSlot::Op::rsend: return blocking ? "MPI_Rsend" : "MPI_Irsend";
        case RequestSlot::Op::recv: return blocking ? "MPI_Recv" : "MPI_Irecv";
    }
    return "";
}

// Runs a nonblocking send or receive (MPI_Isend, MPI_Irecv and the other
// modes), checking its arguments: starts it on a fresh engine request and
// names it by a new request handle in *request, whose slot is filled in place.
// One instance per operation (pt2pt.cpp makes the five): what depends on it
// is decided when compiling, and the call passes seven arguments, one of
// them on the stack, instead of nine.
template <RequestSlot::Op op>
int nonblocking_run(const void* buf, int count, MPI_Datatype datatype, int peer, int tag, MPI_Comm comm,
                    MPI_Request* request);

// Lets the request of `s` keep the layout of `t` alive while MPI_Type_free
// may release the handle: a derived type's. A predefined type's layout lives
// as long as the library, so holding it would only cost a reference count.
inline void slot_hold(RequestSlot& s, const Datatype& t) {
    if (!t.predefined) s.hold = t.map;
}

// Runs a blocking send or receive (MPI_Send, MPI_Recv and the other modes),
// checking its arguments. One instance per operation, as nonblocking_run.
template <RequestSlot::Op op>
int blocking_run(const void* buf, int count, MPI_Datatype datatype, int peer, int tag, MPI_Comm comm,
                 MPI_Status* status);

// MPI_Status::strata_flags: bit 0 says the request was cancelled; the bits
// from kStatusFormShift up hold 1 + the world rank of a foreign sender whose
// form strata_bytes counts (a probe), 0 when they count this process's form.
inline constexpr int kStatusCancelled = 1;
inline constexpr int kStatusFormShift = 1;

// The bytes of `status` in this process's form, read as elements of `t`;
// -1 when the message ends inside a basic element.
long long status_bytes(const MPI_Status& status, const Typemap& t);

// Stores `st` in *out, unless out is MPI_STATUS_IGNORE (or NULL): inline,
// since programs that ignore the status should not pay a call for it.
void status_fill(MPI_Status* out, const adi::Status& st);
inline void status_store(MPI_Status* out, const adi::Status& st) {
    if (out != nullptr && out != MPI_STATUS_IGNORE) status_fill(out, st);
}
void status_empty(MPI_Status* out);

}  // namespace strata::mpi
