#include "collectives/collectives.hpp"

#include <numeric>

#include "collectives/allgather/allgather.hpp"
#include "collectives/allgatherv/allgatherv.hpp"
#include "collectives/allreduce/allreduce.hpp"
#include "collectives/alltoall/alltoall.hpp"
#include "collectives/alltoallv/alltoallv.hpp"
#include "collectives/barrier/barrier.hpp"
#include "collectives/bcast/bcast.hpp"
#include "collectives/gather/gather.hpp"
#include "collectives/gatherv/gatherv.hpp"
#include "collectives/reduce/reduce.hpp"
#include "collectives/reduce_scatter/reduce_scatter.hpp"
#include "collectives/scan/scan.hpp"
#include "collectives/scatter/scatter.hpp"
#include "collectives/scatterv/scatterv.hpp"

namespace strata::coll {

namespace {

Situation reduction(const Group& g, std::size_t count, const ReduceOp& op) {
    return situation_of(g, count * op.element_bytes(), count, op.commutative());
}

}  // namespace

adi::Error barrier(const Group& g) {
    if (g.size() == 1) return adi::Error::none;
    return barrier_algorithms.choose(situation_of(g, 0))(g);
}

adi::Error bcast(const Group& g, void* buf, std::size_t bytes, int root) {
    if (g.size() == 1) return adi::Error::none;
    return bcast_algorithms.choose(situation_of(g, bytes))(g, buf, bytes, root);
}

adi::Error gather(const Group& g, const void* send, std::size_t sbytes, void* recv, std::size_t rblock, int root) {
    const std::size_t block = g.rank == root ? rblock : sbytes;
    return gather_algorithms.choose(situation_of(g, block))(g, send, sbytes, recv, rblock, root);
}

adi::Error gatherv(const Group& g, const void* send, std::size_t sbytes, void* recv, Sizes rcounts, Sizes rdispls,
                   int root) {
    return gatherv_algorithms.choose(situation_of(g, 0))(g, send, sbytes, recv, rcounts, rdispls, root);
}

adi::Error scatter(const Group& g, const void* send, std::size_t sblock, void* recv, std::size_t rbytes, int root) {
    const std::size_t block = g.rank == root ? sblock : rbytes;
    return scatter_algorithms.choose(situation_of(g, block))(g, send, sblock, recv, rbytes, root);
}

adi::Error scatterv(const Group& g, const void* send, Sizes scounts, Sizes sdispls, void* recv, std::size_t rbytes,
                    int root) {
    return scatterv_algorithms.choose(situation_of(g, 0))(g, send, scounts, sdispls, recv, rbytes, root);
}

adi::Error allgather(const Group& g, const void* send, std::size_t sbytes, void* recv, std::size_t rblock) {
    const std::size_t total = rblock * static_cast<std::size_t>(g.size());
    return allgather_algorithms.choose(situation_of(g, total))(g, send, sbytes, recv, rblock);
}

adi::Error allgatherv(const Group& g, const void* send, std::size_t sbytes, void* recv, Sizes rcounts,
                      Sizes rdispls) {
    const std::size_t total = std::accumulate(rcounts.begin(), rcounts.end(), std::size_t{0});
    return allgatherv_algorithms.choose(situation_of(g, total))(g, send, sbytes, recv, rcounts, rdispls);
}

adi::Error alltoall(const Group& g, const void* send, std::size_t sblock, void* recv, std::size_t rblock) {
    return alltoall_algorithms.choose(situation_of(g, rblock))(g, send, sblock, recv, rblock);
}

adi::Error alltoallv(const Group& g, const void* send, Sizes scounts, Sizes sdispls, void* recv, Sizes rcounts,
                     Sizes rdispls) {
    return alltoallv_algorithms.choose(situation_of(g, 0))(g, send, scounts, sdispls, recv, rcounts, rdispls);
}

adi::Error reduce(const Group& g, const void* send, void* recv, std::size_t count, const ReduceOp& op, int root) {
    if (count == 0) return adi::Error::none;
    return reduce_algorithms.choose(reduction(g, count, op))(g, send, recv, count, op, root);
}

adi::Error allreduce(const Group& g, const void* send, void* recv, std::size_t count, const ReduceOp& op) {
    if (count == 0) return adi::Error::none;
    return allreduce_algorithms.choose(reduction(g, count, op))(g, send, recv, count, op);
}

adi::Error reduce_scatter(const Group& g, const void* send, void* recv, Sizes counts, const ReduceOp& op) {
    const std::size_t total = std::accumulate(counts.begin(), counts.end(), std::size_t{0});
    if (total == 0) return adi::Error::none;
    return reduce_scatter_algorithms.choose(reduction(g, total, op))(g, send, recv, counts, op);
}

adi::Error scan(const Group& g, const void* send, void* recv, std::size_t count, const ReduceOp& op) {
    if (count == 0) return adi::Error::none;
    return scan_algorithms.choose(reduction(g, count, op))(g, send, recv, count, op);
}

}  // namespace strata::coll
