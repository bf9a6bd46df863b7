// Datatype lookups. Basic types only so far: every one is contiguous, so a
// message of `count` elements is count * size bytes straight from the buffer.
#pragma once

#include "mpi/runtime.hpp"

namespace strata::mpi {

inline Datatype* datatype_get(MPI_Datatype t) { return rt().datatypes.get(t); }

// Copies `count` elements of `t` laid out from `buf` into `out`, densely
// (count * t.size bytes): how collectives and buffered sends see user data.
void datatype_pack(const Datatype& t, const void* buf, int count, void* out);
// The reverse: `in` holds count * t.size dense bytes, spread them over `buf`.
void datatype_unpack(const Datatype& t, const void* in, int count, void* buf);

}  // namespace strata::mpi
