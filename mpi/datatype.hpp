// Datatypes: handle lookups, packing for collectives and buffered sends, and
// the Segment that lets the engine move non-contiguous data chunk by chunk.
// Layout rules live in mpi/typemap.hpp.
#pragma once

#include <memory>

#include "adi/segment.hpp"
#include "mpi/runtime.hpp"

namespace strata::mpi {

inline Datatype* datatype_get(MPI_Datatype t) { return rt().datatypes.get(t); }

// Copies `count` elements of `t` laid out from `buf` into `out`, densely
// (count * t.size bytes): how collectives and buffered sends see user data.
void datatype_pack(const Datatype& t, const void* buf, int count, void* out);
// The reverse: `in` holds count * t.size dense bytes, spread them over `buf`.
void datatype_unpack(const Datatype& t, const void* in, int count, void* buf);

// The (count, map) buffer at `buf` as a stream of packed bytes for the engine.
std::shared_ptr<adi::Segment> datatype_segment(TypemapPtr map, void* buf, int count);

// The typemap of MPI_BYTE (a packed stream received aside, e.g. by MPI_Sendrecv_replace).
TypemapPtr datatype_bytes();

}  // namespace strata::mpi
