#include "collectives/inter/inter.hpp"

namespace strata::coll::inter {

adi::Error allreduce(const Groups& g, const void* send, void* recv, std::size_t count, const ReduceOp& op) {
    // The local reduce keeps each group's rank order for a non-commutative
    // operation; the leaders then swap their groups' results.
    Outcome out;
    const bool leader = g.local.rank == 0;
    const std::size_t bytes = count * op.element_bytes();
    Bytes ours(leader ? bytes : 0);
    if (!out.add(coll::reduce(g.local, send, ours.data(), count, op, 0))) return out.error();
    if (leader && !exchange(g.remote, out, kTagInterAllreduce, 0, ours.data(), bytes, 0, recv, bytes))
        return out.error();
    out.add(coll::bcast(g.local, recv, bytes, 0));
    return out.error();
}

}  // namespace strata::coll::inter
