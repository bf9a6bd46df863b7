// Converting data between representations (mpi/hetero/representation.hpp): the
// receiver's half of "receiver makes right".
//
// Data travels in its packed form (the data bytes of each element in typemap
// order, nothing added; mpi/datatypes/typemap.hpp), laid out as the sender's machine
// stores each basic type. A receiver whose representation differs walks its
// own datatype's signature (Typemap::parts, down to the basic types) and
// converts basic element by basic element into its own packed form:
//
//  - characters and bytes (MPI_CHAR, MPI_BYTE, MPI_PACKED, ...) are copied;
//  - integers are read in the sender's byte order and size and written in the
//    receiver's; a value that does not fit the receiver's size is a range
//    failure (MPI_ERR_TRUNCATE for the receive), never wrapped silently.
//    Unsigned types and wchar_t (a code unit) are read as unsigned;
//  - float and double (and Fortran's REAL, DOUBLE PRECISION, COMPLEX) are IEEE
//    754 everywhere: only their byte order changes;
//  - long double is decoded from the sender's format (IEEE double, x87
//    extended, IEEE quad) and rounded to nearest, ties to even, into the
//    receiver's; a finite value beyond the receiver's range is a range
//    failure. The IBM double-double format is not converted (MPI_Init refuses
//    a job that would need it). An x87 value is the 10 bytes at the start of
//    its storage, whatever the byte order; the padding after it is zero when
//    written.
#pragma once

#include <cstddef>

#include "mpi.h"
#include "mpi/hetero/representation.hpp"
#include "mpi/datatypes/typemap.hpp"

namespace strata::mpi {

// Whether a basic datatype's bytes never change between machines (MPI_BYTE,
// MPI_PACKED, the character types): such data is never converted.
bool basic_is_bytes(MPI_Datatype handle);

// Bytes one element of `t` takes in packed form on a machine of `rep`.
MPI_Aint form_size(const Typemap& t, const Representation& rep);

// Whether every representation in `reps` can be converted to and from
// `mine`; the reason when not (a long double format that cannot be read, an
// integer wider than 8 bytes).
base::Status convertible(const Representation& theirs, const Representation& mine);

struct Converted {
    std::size_t in = 0;   // input bytes consumed
    std::size_t out = 0;  // output bytes written
    bool fits = true;     // false: a value did not fit (it was written clamped)
};

// Converts the packed form of `count` elements of `t`, `in_bytes` bytes at
// `in` laid out as on a machine of `from`, into the packed form of a machine
// of `to` at `out` (room for count * form_size(t, to) bytes). A shorter
// input (a message that held fewer elements) is converted up to its last
// whole basic element.
Converted convert(const Typemap& t, MPI_Aint count, const std::byte* in, std::size_t in_bytes,
                  const Representation& from, std::byte* out, const Representation& to);

// What convert() would consume and write for the first `in_bytes` bytes of
// elements of `t` laid out as on a machine of `from`, without converting
// (how many bytes a probed message takes on this machine).
Converted convert_size(const Typemap& t, std::size_t in_bytes, const Representation& from, const Representation& to);

}  // namespace strata::mpi
