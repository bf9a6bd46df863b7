// MPI_Allreduce algorithms: every process receives in `recv` the reduction of
// every process's `count` dense elements in `send`.
#pragma once

#include "collectives/collective.hpp"
#include "collectives/registry.hpp"
#include "collectives/reduce_op.hpp"

namespace strata::coll {

// Recursive doubling: log2(p) rounds of whole-vector exchanges. With p not a
// power of two, the first 2r processes (r = p - 2^floor(log2 p)) first fold
// in pairs, and the odd ones hand the result back at the end. Operands are
// always combined lower range first, so any operation works, commutative or
// not. Any p, any count; for short vectors.
adi::Error allreduce_recursive_doubling(const Group& g, const void* send, void* recv, std::size_t count,
                                        const ReduceOp& op);

// Linear: rank 0 receives every vector, combines them in rank order and sends
// the result back to each process. Two rounds like recursive doubling on 4
// processes, but only rank 0 works between them: on a host with more
// processes than cores the others need the CPU once to send and once to
// receive. Any p, any count, any operation; for short vectors on a few
// processes of one host.
adi::Error allreduce_linear(const Group& g, const void* send, void* recv, std::size_t count, const ReduceOp& op);

// Rabenseifner: reduce-scatter by recursive halving, then allgather by
// recursive doubling, over the same power-of-two core as above. Moves about
// 2x the vector per process instead of log2(p)x; for long vectors. Requires a
// commutative operation and count >= 2^floor(log2 p) (no empty pieces).
adi::Error allreduce_rabenseifner(const Group& g, const void* send, void* recv, std::size_t count,
                                  const ReduceOp& op);

// Segmented: reduction_segmented to rank 0 with the result pipelined back
// down the same tree (reduce/reduce.hpp). Requires a commutative operation and
// a model that covers the group.
adi::Error allreduce_segmented(const Group& g, const void* send, void* recv, std::size_t count, const ReduceOp& op);

// The signature every allreduce algorithm has.
using AllreduceFn = adi::Error(const Group& g, const void* send, void* recv, std::size_t count, const ReduceOp& op);

// Multilevel: a reduction up to the coarsest clusters' representatives, a flat
// allreduce among them, and a broadcast back down; each slow link carries the
// vector once each way. Non-commutative operations need clusters of
// consecutive ranks.
// `shape` picks the hierarchy (hierarchy.hpp); every stage's group chooses
// its own flat algorithm.
adi::Error allreduce_multilevel(const Group& g, Shape shape, const void* send, void* recv, std::size_t count,
                                const ReduceOp& op);

extern const Registry<AllreduceFn> allreduce_algorithms;

}  // namespace strata::coll
