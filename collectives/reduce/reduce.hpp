// MPI_Reduce algorithms: the root receives in `recv` the reduction of every
// process's `count` dense elements in `send`. Non-roots ignore `recv`.
#pragma once

#include "collectives/collective.hpp"
#include "collectives/registry.hpp"
#include "collectives/reduce_op.hpp"

namespace strata::coll {

// Binomial tree rooted at `root`, combining in arrival order. Any p, any
// count. Requires a commutative operation.
adi::Error reduce_binomial(const Group& g, const void* send, void* recv, std::size_t count, const ReduceOp& op,
                           int root);

// Binomial tree rooted at rank 0 in which every process combines its own
// range with the next higher range, so the result is a0 op a1 op ... op a(p-1)
// in rank order; rank 0 then sends it to the root. Any p, any count, any
// operation (commutative or not).
adi::Error reduce_binomial_ordered(const Group& g, const void* send, void* recv, std::size_t count,
                                   const ReduceOp& op, int root);

// Rabenseifner: reduce-scatter by recursive halving, then a binomial gather
// of the pieces to the root. Moves about 2x the vector through the busiest
// process instead of log2(p)x; for long vectors. Requires a commutative
// operation and count >= 2^floor(log2 p) (no empty pieces).
adi::Error reduce_rabenseifner(const Group& g, const void* send, void* recv, std::size_t count, const ReduceOp& op,
                               int root);

// Segmented (MagPIe's, with the job's wide-area model): the vector goes up
// the tree the model finds fastest for broadcasting it, in segments of whole
// elements; every process combines its children's segments with its own and
// passes each on as soon as it is complete, so all the links of the tree work
// at once. Requires a commutative operation and a model that covers the group
// (fits::modelled).
adi::Error reduce_segmented(const Group& g, const void* send, void* recv, std::size_t count, const ReduceOp& op,
                            int root);
// The segmented reduction to `root`; with `to_all`, the root then sends every
// segment of the result back down the same tree as soon as it has combined it,
// and every process receives the result in `recv` (allreduce_segmented).
adi::Error reduction_segmented(const Group& g, const void* send, void* recv, std::size_t count, const ReduceOp& op,
                               int root, bool to_all);

// The signature every reduce algorithm has.
using ReduceFn = adi::Error(const Group& g, const void* send, void* recv, std::size_t count, const ReduceOp& op,
                            int root);

// Multilevel: each stage's root reduces its members' partial results, finest
// stage first; each slow link carries one partial result. In cluster order, so
// a non-commutative operation needs clusters of consecutive ranks.
// `shape` picks the hierarchy (hierarchy.hpp); every stage's group chooses
// its own flat algorithm.
adi::Error reduce_multilevel(const Group& g, Shape shape, const void* send, void* recv, std::size_t count,
                             const ReduceOp& op, int root);

extern const Registry<ReduceFn> reduce_algorithms;

}  // namespace strata::coll
