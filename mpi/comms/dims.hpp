// The arithmetic of MPI_Dims_create, kept apart from MPI state so that unit
// tests call it without MPI_Init; the entry point in topology.cpp validates
// its arguments, calls dims_fill and turns a DimsError into MPI_ERR_DIMS.
//
// MPI asks for free dimensions "as close to each other as possible", in
// non-increasing order. Strata decides as MPICH does: of all ways to write
// the nodes as a product of the free dimensions in non-increasing order, the
// one whose largest and smallest dimensions differ least; among those, the
// one with the largest smallest dimension; among those, the
// lexicographically smallest (the second largest dimension as small as it
// can be, then the third, ...). So 5040 over 3 is 21x16x15 (20x18x14 differs
// by as much but has a smaller smallest), as in MPICH; tests/unit/mpi holds
// MPICH 4.0.2's answers to compare with.
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
