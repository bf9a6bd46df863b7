// The collectives as the MPI layer calls them: each picks its algorithm with
// its registry and runs it. Buffers are dense bytes; counts and
// displacements are bytes, except reductions, which count elements of the
// operation. Arguments have been checked by the caller.
#pragma once

#include <span>

#include "collectives/collective.hpp"
#include "collectives/reduce_op.hpp"

namespace strata::coll {

using Sizes = std::span<const std::size_t>;

adi::Error barrier(const Group& g);
adi::Error bcast(const Group& g, void* buf, std::size_t bytes, int root);
adi::Error gather(const Group& g, const void* send, std::size_t sbytes, void* recv, std::size_t rblock, int root);
adi::Error gatherv(const Group& g, const void* send, std::size_t sbytes, void* recv, Sizes rcounts, Sizes rdispls,
                   int root);
adi::Error scatter(const Group& g, const void* send, std::size_t sblock, void* recv, std::size_t rbytes, int root);
adi::Error scatterv(const Group& g, const void* send, Sizes scounts, Sizes sdispls, void* recv, std::size_t rbytes,
                    int root);
adi::Error allgather(const Group& g, const void* send, std::size_t sbytes, void* recv, std::size_t rblock);
adi::Error allgatherv(const Group& g, const void* send, std::size_t sbytes, void* recv, Sizes rcounts,
                      Sizes rdispls);
adi::Error alltoall(const Group& g, const void* send, std::size_t sblock, void* recv, std::size_t rblock);
adi::Error alltoallv(const Group& g, const void* send, Sizes scounts, Sizes sdispls, void* recv, Sizes rcounts,
                     Sizes rdispls);
adi::Error reduce(const Group& g, const void* send, void* recv, std::size_t count, const ReduceOp& op, int root);
adi::Error allreduce(const Group& g, const void* send, void* recv, std::size_t count, const ReduceOp& op);
adi::Error reduce_scatter(const Group& g, const void* send, void* recv, Sizes counts, const ReduceOp& op);
adi::Error scan(const Group& g, const void* send, void* recv, std::size_t count, const ReduceOp& op);

}  // namespace strata::coll
