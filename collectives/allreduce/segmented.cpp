#include "collectives/allreduce/allreduce.hpp"
#include "collectives/reduce/reduce.hpp"

namespace strata::coll {

adi::Error allreduce_segmented(const Group& g, const void* send, void* recv, std::size_t count, const ReduceOp& op) {
    return reduction_segmented(g, send, recv, count, op, 0, true);
}

}  // namespace strata::coll
