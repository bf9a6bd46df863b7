// MPI_Scan algorithms: process i receives in `recv` the reduction
// a0 op a1 op ... op ai of the `count` dense elements of processes 0..i.
#pragma once

#include "collectives/collective.hpp"
#include "collectives/registry.hpp"
#include "collectives/reduce_op.hpp"

namespace strata::coll {

// Chain: process i waits for the prefix of 0..i-1 from i - 1, combines and
// passes its prefix to i + 1. p - 1 message latencies; any p, any count, any
// operation. Pipelines well when processes arrive one after another.
adi::Error scan_linear(const Group& g, const void* send, void* recv, std::size_t count, const ReduceOp& op);

// Recursive doubling: log2(p) rounds; each process keeps the reduction of a
// growing block of ranks and folds in the lower partner's blocks, lower
// operand first. Any p, any count, any operation (commutative or not).
adi::Error scan_recursive_doubling(const Group& g, const void* send, void* recv, std::size_t count,
                                   const ReduceOp& op);

// The signature every scan algorithm has.
using ScanFn = adi::Error(const Group& g, const void* send, void* recv, std::size_t count, const ReduceOp& op);

// Multilevel: each stage's root gathers its members' cluster totals and keeps
// them, finest stage first; then each stage's root scatters to every member
// the reduction of everything before that member's cluster, coarsest first.
// Needs clusters of consecutive ranks (each represented by its lowest rank).
// `shape` picks the hierarchy (hierarchy.hpp); every stage's group chooses
// its own flat algorithm.
adi::Error scan_multilevel(const Group& g, Shape shape, const void* send, void* recv, std::size_t count,
                           const ReduceOp& op);

extern const Registry<ScanFn> scan_algorithms;

}  // namespace strata::coll
