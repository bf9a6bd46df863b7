// Typemaps: the layout of one element of a datatype, built once by the type
// constructors and never changed afterwards.
//
// The data of one element is a sequence of Runs in typemap order (the order
// in which bytes are packed, which is not the address order when
// displacements or strides are negative). A Run is `count` blocks of `len`
// bytes, `stride` bytes apart, and that row repeated `outer_count` times,
// `outer_stride` bytes apart: a vector of a basic type is one Run however long
// it is, so is a vector of such vectors (a 2-D sub-array), and adjacent
// blocks and rows are merged as the typemap is built, so the list stays short
// for the layouts programs actually use.
//
// Bounds follow MPI-1: lb/ub come from explicit MPI_LB/MPI_UB markers when the
// typemap has any ("sticky": they propagate through every constructor),
// otherwise from the data; a natural ub of a struct is padded so the extent
// is a multiple of the strictest alignment inside (MPI-1's epsilon).
// true_lb/true_ub always bound the data bytes alone.
//
// `parts` says what one element is made of (for MPI_Get_elements on partial
// receives): basic types have no parts; derived types hold their old types,
// shared, so a type freed by the user lives as long as something uses it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "mpi.h"

namespace strata::mpi {

struct Run {
    MPI_Aint offset = 0;  // of the first block, from the element's origin
    MPI_Aint len = 0;     // bytes per block
    MPI_Aint count = 1;   // blocks per row
    MPI_Aint stride = 0;  // bytes from one block to the next
    MPI_Aint outer_count = 1;   // rows
    MPI_Aint outer_stride = 0;  // bytes from one row to the next
    MPI_Aint bytes() const { return len * count * outer_count; }
};

struct Typemap;
using TypemapPtr = std::shared_ptr<const Typemap>;

// Always owned by a TypemapPtr (made with make_shared), so a plain pointer can
// be turned back into a reference that keeps it alive.
struct Typemap : std::enable_shared_from_this<Typemap> {
    MPI_Aint size = 0;  // data bytes of one element
    MPI_Aint lb = 0;
    MPI_Aint ub = 0;
    bool lb_marked = false;  // lb comes from an MPI_LB marker
    bool ub_marked = false;
    MPI_Aint true_lb = 0;
    MPI_Aint true_ub = 0;
    MPI_Aint align = 1;  // strictest alignment of the basic types inside
    // The one basic type all data is made of, or MPI_DATATYPE_NULL.
    MPI_Datatype basic = MPI_DATATYPE_NULL;
    MPI_Aint elements = 0;  // basic elements in one element
    // Only characters and bytes inside: never converted between machines (mpi/hetero/convert.hpp).
    bool bytes_only = true;

    std::vector<Run> runs;
    std::vector<MPI_Aint> run_start;  // packed offset of each run within the element

    struct Part {
        TypemapPtr type;
        MPI_Aint count = 0;
    };
    std::vector<Part> parts;

    MPI_Aint extent() const { return ub - lb; }
    // Elements laid one after the other form one block: `count` of them are
    // the bytes [origin + true_lb, + count * size).
    bool contiguous() const {
        return size == 0 || (single_block() && runs[0].len == size && extent() == size && runs[0].offset == lb);
    }
    // One element is a single block (so any count of 1 can go straight from the buffer).
    bool single_block() const { return runs.size() == 1 && runs[0].count == 1 && runs[0].outer_count == 1; }
};

// A basic type of `size` bytes and alignment `align`; MPI_LB/MPI_UB are
// markers without data.
TypemapPtr typemap_basic(MPI_Datatype handle, MPI_Aint size, MPI_Aint align);
TypemapPtr typemap_marker(bool upper);
// A predefined pair type: `first` at 0, then `second` at `second_offset`, extent `extent`.
TypemapPtr typemap_pair(MPI_Datatype handle, const TypemapPtr& first, const TypemapPtr& second,
                        MPI_Aint second_offset, MPI_Aint extent, MPI_Aint align);

// One block of a constructor: `count` copies of `type`, the first at
// `displacement` bytes, each next one an extent further.
struct Block {
    TypemapPtr type;
    MPI_Aint count = 0;
    MPI_Aint displacement = 0;
};

// Builds the typemap of a constructor from its blocks in typemap order.
// `pad` applies the struct rule: without an UB marker, the extent is rounded
// up to the strictest alignment inside.
TypemapPtr typemap_build(const std::vector<Block>& blocks, bool pad);

// MPI_Type_create_resized: the typemap of `old` with its markers replaced by
// MPI_LB at `lb` and MPI_UB at `lb + extent`.
TypemapPtr typemap_resized(const TypemapPtr& old, MPI_Aint lb, MPI_Aint extent);

// The byte `offset` bytes from `origin`, computed as an integer: with
// MPI_BOTTOM the origin is NULL and offsets are absolute addresses, and
// pointer arithmetic on NULL (or far outside an object) is undefined.
inline std::byte* byte_address(const void* origin, MPI_Aint offset) {
    return reinterpret_cast<std::byte*>(reinterpret_cast<std::uintptr_t>(origin) + static_cast<std::uintptr_t>(offset));
}

// Basic elements in the first `bytes` packed bytes of a (count, t) buffer, or
// -1 when `bytes` ends inside a basic element.
MPI_Aint typemap_elements(const Typemap& t, MPI_Aint bytes);

// Chunked packing of a (count, t) buffer whose origin is `buf`: copies the
// packed bytes [offset, offset + n) to `out`, or the reverse. The caller keeps
// offset + n <= count * t.size.
void typemap_pack(const Typemap& t, const void* buf, std::size_t offset, std::size_t n, void* out);
void typemap_unpack(const Typemap& t, void* buf, std::size_t offset, std::size_t n, const void* in);

}  // namespace strata::mpi
