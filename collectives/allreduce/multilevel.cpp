#include <vector>

#include "collectives/allreduce/allreduce.hpp"
#include "collectives/collectives.hpp"
#include "collectives/multilevel.hpp"

namespace strata::coll {

adi::Error allreduce_multilevel(const Group& g, Shape shape, const void* send, void* recv, std::size_t count,
                                const ReduceOp& op) {
    const std::vector<Stage>& stages = hierarchy(g, shape).plan(g.rank, 0);
    Outcome out;
    Bytes partial[2];
    const void* in = send;
    if (!reduce_up(g, out, stages, 0, count, op, in, partial, nullptr)) return out.error();
    // The coarsest clusters' representatives combine their partial results;
    // then the result goes back down.
    for (const Stage& s : stages) {
        const StageGroup sg(g, s);
        const adi::Error e = s.index == 0 ? allreduce(sg.group(), in, recv, count, op)
                                          : bcast(sg.group(), recv, count * op.element_bytes(), s.root);
        if (!out.add(e)) break;
    }
    return out.error();
}

}  // namespace strata::coll
