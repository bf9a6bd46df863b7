// The arithmetic of MPI_Dims_create, kept apart from MPI state so that unit
// tests call it without MPI_Init; the entry point in topology.cpp validates
// its arguments, calls dims_fill and turns a DimsError into MPI_ERR_DIMS.
//
// MPI asks for free dimensions "as close to each other as possible", in
// non-increasing order. Strata reads that as: of all ways to write the
// nodes as a product of the free dimensions in non-increasing order, the
// lexicographically smallest. The largest dimension is as small as it can
// be, then the second largest, and so on. MPICH minimises largest minus
// smallest instead; the two agree for every nnodes below 3600 and up to 6
// dimensions, and differ rarely after that (4620 over 3 gives 21x20x11 here,
// 22x15x14 there).
//
// Both functions take about a millisecond at most for any int: the work
// is bounded by the divisor count of nnodes (at most 1600), not by ndims.
#pragma once

#include <span>
#include <vector>

namespace strata::mpi {

// `nodes` >= 1 split into `count` >= 0 factors as described above,
// non-increasing. With `count` == 0 the caller has ensured `nodes` == 1.
std::vector<int> dims_balance(int nodes, int count);

enum class DimsError { none, negative_entry, indivisible };

// Fills the zero entries of `dims` so that the product of all is `nodes`
// (>= 1), keeping the positive ones where they are. `indivisible` when the
// positive entries' product does not divide `nodes`, or differs from it
// with no zero entry left. On an error `dims` is left unchanged.
DimsError dims_fill(int nodes, std::span<int> dims);

}  // namespace strata::mpi
