// Datatypes: handle lookups, packing for collectives and buffered sends, and
// the Segment that lets the engine move non-contiguous data chunk by chunk.
// Layout rules live in mpi/datatypes/typemap.hpp.
#pragma once

#include <memory>
#include <string>

#include "adi/segment.hpp"
#include "mpi.h"
#include "mpi/runtime.hpp"
#include "mpi/datatypes/typemap.hpp"

namespace strata::mpi {

struct Datatype {
    int size = 0;       // bytes of data in one element
    MPI_Aint extent = 0;
    // count elements are one block of count * size bytes at origin + lb
    // (see Typemap::contiguous): sends and receives go straight from the buffer.
    bool contiguous = true;
    // contiguous, and every process of the job stores data alike (no
    // conversion, mpi/hetero/foreign.hpp): a send or receive of this type goes
    // straight between the buffer and the engine. Decided when the type is
    // made (predefined ones at MPI_Init, once the job's representations are
    // known), so that path tests no heterogeneity per message.
    bool direct = true;
    // The one basic type every element is made of (what predefined reduction
    // operations dispatch on; a pair type for MPI_DOUBLE_INT and friends), or
    // MPI_DATATYPE_NULL when the type mixes several.
    MPI_Datatype basic = MPI_DATATYPE_NULL;
    std::string name;
    // The layout, shared with the derived types built on it and with pending
    // communications, so MPI_Type_free never pulls it from under them.
    TypemapPtr map;
    bool predefined = false;
    bool committed = false;  // derived types must be committed before communication
};

inline Datatype* datatype_get(MPI_Datatype t) { return rt().datatypes.get(t); }

// Whether `count` elements of `t` from `buf` would put data at address 0: the
// one test of a buffer argument (MPI_ERR_BUFFER), for point-to-point,
// collectives and MPI_Pack/MPI_Unpack alike. NULL alone is no error: it is
// also MPI_BOTTOM, the origin of a datatype of absolute addresses (from
// MPI_Address), which MPI-1 allows in every communication call. Such a type's
// data starts far from its origin; data starting right at a NULL origin is a
// missing buffer.
inline bool buffer_null(const void* buf, long long count, const Typemap& t) {
    return buf == nullptr && count > 0 && t.size > 0 && t.true_lb == 0;
}

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
