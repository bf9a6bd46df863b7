// Shared pieces of the point-to-point entry points: starting an operation on
// its engine request, and collecting completed requests. (Their arguments are
// checked by the generated entry points, mpi/entry.hpp.)
#pragma once

#include "mpi/comms/comm.hpp"
#include "mpi/datatypes/datatype.hpp"
#include "mpi/request.hpp"
#include "mpi/runtime.hpp"

namespace strata::mpi {

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
    return c.cache.any_methods != 0 ? c.cache.any_methods : any_methods_of(c);
}

// Starts the operation described by `s` on s.req (which must exist).
// Returns an MPI error class (raised by the caller).
MpiError op_start(RequestSlot& s);

// Fills `s` from checked arguments (without a request yet): an `op` of
// `count` elements of `t` at `buf`, with rank `peer` of the communicator
// `comm` and `tag`.
void slot_fill(RequestSlot::Op op, const void* buf, int count, const Datatype& t, int peer, int tag, MPI_Comm comm,
               RequestSlot& s);

// Lets the request of `s` keep the layout of `t` alive while MPI_Type_free
// may release the handle: a derived type's. A predefined type's layout lives
// as long as the library, so holding it would only cost a reference count.
inline void slot_hold(RequestSlot& s, const Datatype& t) {
    if (!t.predefined) s.hold = t.map;
}

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
