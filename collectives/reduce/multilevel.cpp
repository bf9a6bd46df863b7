#include <vector>

#include "collectives/collectives.hpp"
#include "collectives/multilevel.hpp"
#include "collectives/reduce/reduce.hpp"

namespace strata::coll {

adi::Error reduce_multilevel(const Group& g, Shape shape, const void* send, void* recv, std::size_t count,
                             const ReduceOp& op, int root) {
    const std::vector<Stage>& stages = hierarchy(g, shape).plan(g.rank, root);
    Outcome out;
    Bytes partial[2];
    const void* in = send;
    reduce_up(g, out, stages, -1, count, op, in, partial, g.rank == root ? recv : nullptr);
    return out.error();
}

}  // namespace strata::coll
