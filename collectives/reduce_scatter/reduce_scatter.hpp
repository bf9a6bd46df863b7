// MPI_Reduce_scatter algorithms: the elementwise reduction of every
// process's send vector (sum of counts elements) is split into consecutive
// pieces of counts[i] elements; process i receives piece i in `recv`.
#pragma once

#include <span>

#include "collectives/collective.hpp"
#include "collectives/registry.hpp"
#include "collectives/reduce_op.hpp"

namespace strata::coll {

// Ordered binomial reduce to rank 0, then a linear scatterv of the pieces.
// Any p, any counts, any operation (commutative or not); for short vectors.
adi::Error reduce_scatter_reduce_scatterv(const Group& g, const void* send, void* recv,
                                          std::span<const std::size_t> counts, const ReduceOp& op);

// Recursive halving over the power-of-two core (the first 2r ranks fold in
// pairs first): log2(p) rounds, each exchanging half of the remaining vector.
// Any p, any counts; for short and medium vectors. Requires a commutative
// operation.
adi::Error reduce_scatter_recursive_halving(const Group& g, const void* send, void* recv,
                                            std::span<const std::size_t> counts, const ReduceOp& op);

// Pairwise: p - 1 rounds; in round s send piece (rank + s) to its owner and
// combine the piece received from rank - s into ours. Each process moves
// only its share; for long vectors. Requires a commutative operation.
adi::Error reduce_scatter_pairwise(const Group& g, const void* send, void* recv,
                                   std::span<const std::size_t> counts, const ReduceOp& op);

// The signature every reduce_scatter algorithm has.
using ReduceScatterFn = adi::Error(const Group& g, const void* send, void* recv, std::span<const std::size_t> counts,
                                   const ReduceOp& op);

// Multilevel: a reduction up to the coarsest clusters' representatives, a
// flat reduce-scatter among them by cluster, and a scatter of each cluster's
// pieces back down (in travel order: the vector is permuted first when
// clusters are not runs of consecutive ranks, which only commutative
// operations allow).
// `shape` picks the hierarchy (hierarchy.hpp); every stage's group chooses
// its own flat algorithm.
adi::Error reduce_scatter_multilevel(const Group& g, Shape shape, const void* send, void* recv,
                                     std::span<const std::size_t> counts, const ReduceOp& op);

extern const Registry<ReduceScatterFn> reduce_scatter_algorithms;

}  // namespace strata::coll
