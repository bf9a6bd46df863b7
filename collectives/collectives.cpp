#include "collectives/collectives.hpp"

#include <numeric>
#include <stdexcept>

#include "collectives/allgather/allgather.hpp"
#include "collectives/allgatherv/allgatherv.hpp"
#include "collectives/allreduce/allreduce.hpp"
#include "collectives/alltoall/alltoall.hpp"
#include "collectives/alltoallv/alltoallv.hpp"
#include "collectives/barrier/dissemination.hpp"
#include "collectives/bcast/bcast.hpp"
#include "collectives/gather/gather.hpp"
#include "collectives/gatherv/gatherv.hpp"
#include "collectives/reduce/reduce.hpp"
#include "collectives/reduce_scatter/reduce_scatter.hpp"
#include "collectives/scan/scan.hpp"
#include "collectives/scatter/scatter.hpp"
#include "collectives/scatterv/scatterv.hpp"
#include "collectives/selector.hpp"

namespace strata::coll {

namespace {

[[noreturn]] void unreachable(Algorithm a) {
    throw std::logic_error(std::string("collective dispatch: algorithm ") + algorithm_info(a).name +
                           " chosen for another collective");
}

Situation reduction(const Group& g, std::size_t count, const ReduceOp& op) {
    return {g.size(), count * op.element_bytes(), count, op.commutative()};
}

}  // namespace

adi::Error barrier(const Group& g) { return barrier_dissemination(g); }

adi::Error bcast(const Group& g, void* buf, std::size_t bytes, int root) {
    if (g.size() == 1) return adi::Error::none;
    switch (Algorithm a = algorithm_select(Collective::bcast, {g.size(), bytes, 0, true})) {
        case Algorithm::bcast_binomial: return bcast_binomial(g, buf, bytes, root);
        case Algorithm::bcast_scatter_allgather: return bcast_scatter_allgather(g, buf, bytes, root);
        default: unreachable(a);
    }
}

adi::Error gather(const Group& g, const void* send, std::size_t sbytes, void* recv, std::size_t rblock, int root) {
    const std::size_t block = g.rank == root ? rblock : sbytes;
    switch (Algorithm a = algorithm_select(Collective::gather, {g.size(), block, 0, true})) {
        case Algorithm::gather_binomial: return gather_binomial(g, send, sbytes, recv, rblock, root);
        case Algorithm::gather_linear: return gather_linear(g, send, sbytes, recv, rblock, root);
        default: unreachable(a);
    }
}

adi::Error gatherv(const Group& g, const void* send, std::size_t sbytes, void* recv, Sizes rcounts, Sizes rdispls,
                   int root) {
    switch (Algorithm a = algorithm_select(Collective::gatherv, {g.size(), 0, 0, true})) {
        case Algorithm::gatherv_linear: return gatherv_linear(g, send, sbytes, recv, rcounts, rdispls, root);
        default: unreachable(a);
    }
}

adi::Error scatter(const Group& g, const void* send, std::size_t sblock, void* recv, std::size_t rbytes, int root) {
    const std::size_t block = g.rank == root ? sblock : rbytes;
    switch (Algorithm a = algorithm_select(Collective::scatter, {g.size(), block, 0, true})) {
        case Algorithm::scatter_binomial: return scatter_binomial(g, send, sblock, recv, rbytes, root);
        case Algorithm::scatter_linear: return scatter_linear(g, send, sblock, recv, rbytes, root);
        default: unreachable(a);
    }
}

adi::Error scatterv(const Group& g, const void* send, Sizes scounts, Sizes sdispls, void* recv, std::size_t rbytes,
                    int root) {
    switch (Algorithm a = algorithm_select(Collective::scatterv, {g.size(), 0, 0, true})) {
        case Algorithm::scatterv_linear: return scatterv_linear(g, send, scounts, sdispls, recv, rbytes, root);
        default: unreachable(a);
    }
}

adi::Error allgather(const Group& g, const void* send, std::size_t sbytes, void* recv, std::size_t rblock) {
    const std::size_t total = rblock * static_cast<std::size_t>(g.size());
    switch (Algorithm a = algorithm_select(Collective::allgather, {g.size(), total, 0, true})) {
        case Algorithm::allgather_bruck: return allgather_bruck(g, send, sbytes, recv, rblock);
        case Algorithm::allgather_ring: return allgather_ring(g, send, sbytes, recv, rblock);
        default: unreachable(a);
    }
}

adi::Error allgatherv(const Group& g, const void* send, std::size_t sbytes, void* recv, Sizes rcounts,
                      Sizes rdispls) {
    const std::size_t total = std::accumulate(rcounts.begin(), rcounts.end(), std::size_t{0});
    switch (Algorithm a = algorithm_select(Collective::allgatherv, {g.size(), total, 0, true})) {
        case Algorithm::allgatherv_bruck: return allgatherv_bruck(g, send, sbytes, recv, rcounts, rdispls);
        case Algorithm::allgatherv_ring: return allgatherv_ring(g, send, sbytes, recv, rcounts, rdispls);
        default: unreachable(a);
    }
}

adi::Error alltoall(const Group& g, const void* send, std::size_t sblock, void* recv, std::size_t rblock) {
    switch (Algorithm a = algorithm_select(Collective::alltoall, {g.size(), rblock, 0, true})) {
        case Algorithm::alltoall_bruck: return alltoall_bruck(g, send, sblock, recv, rblock);
        case Algorithm::alltoall_pairwise: return alltoall_pairwise(g, send, sblock, recv, rblock);
        default: unreachable(a);
    }
}

adi::Error alltoallv(const Group& g, const void* send, Sizes scounts, Sizes sdispls, void* recv, Sizes rcounts,
                     Sizes rdispls) {
    switch (Algorithm a = algorithm_select(Collective::alltoallv, {g.size(), 0, 0, true})) {
        case Algorithm::alltoallv_pairwise:
            return alltoallv_pairwise(g, send, scounts, sdispls, recv, rcounts, rdispls);
        default: unreachable(a);
    }
}

adi::Error reduce(const Group& g, const void* send, void* recv, std::size_t count, const ReduceOp& op, int root) {
    if (count == 0) return adi::Error::none;
    switch (Algorithm a = algorithm_select(Collective::reduce, reduction(g, count, op))) {
        case Algorithm::reduce_binomial: return reduce_binomial(g, send, recv, count, op, root);
        case Algorithm::reduce_binomial_ordered: return reduce_binomial_ordered(g, send, recv, count, op, root);
        case Algorithm::reduce_rabenseifner: return reduce_rabenseifner(g, send, recv, count, op, root);
        default: unreachable(a);
    }
}

adi::Error allreduce(const Group& g, const void* send, void* recv, std::size_t count, const ReduceOp& op) {
    if (count == 0) return adi::Error::none;
    switch (Algorithm a = algorithm_select(Collective::allreduce, reduction(g, count, op))) {
        case Algorithm::allreduce_recursive_doubling: return allreduce_recursive_doubling(g, send, recv, count, op);
        case Algorithm::allreduce_rabenseifner: return allreduce_rabenseifner(g, send, recv, count, op);
        default: unreachable(a);
    }
}

adi::Error reduce_scatter(const Group& g, const void* send, void* recv, Sizes counts, const ReduceOp& op) {
    const std::size_t total = std::accumulate(counts.begin(), counts.end(), std::size_t{0});
    if (total == 0) return adi::Error::none;
    switch (Algorithm a = algorithm_select(Collective::reduce_scatter, reduction(g, total, op))) {
        case Algorithm::reduce_scatter_reduce_scatterv:
            return reduce_scatter_reduce_scatterv(g, send, recv, counts, op);
        case Algorithm::reduce_scatter_recursive_halving:
            return reduce_scatter_recursive_halving(g, send, recv, counts, op);
        case Algorithm::reduce_scatter_pairwise: return reduce_scatter_pairwise(g, send, recv, counts, op);
        default: unreachable(a);
    }
}

adi::Error scan(const Group& g, const void* send, void* recv, std::size_t count, const ReduceOp& op) {
    if (count == 0) return adi::Error::none;
    switch (Algorithm a = algorithm_select(Collective::scan, reduction(g, count, op))) {
        case Algorithm::scan_recursive_doubling: return scan_recursive_doubling(g, send, recv, count, op);
        case Algorithm::scan_linear: return scan_linear(g, send, recv, count, op);
        default: unreachable(a);
    }
}

}  // namespace strata::coll
