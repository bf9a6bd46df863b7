#include "collectives/inter/inter.hpp"

namespace strata::coll::inter {

adi::Error reduce(const Groups& g, const void* send, void* recv, std::size_t count, const ReduceOp& op, Root root) {
    Outcome out;
    std::vector<adi::Request*> reqs;
    const std::size_t bytes = count * op.element_bytes();
    switch (root.role) {
        case Root::Role::idle: return adi::Error::none;
        case Root::Role::self:
            reqs.push_back(recv_start(g.remote, 0, kTagInterReduce, recv, bytes));
            out.wait(g.remote, reqs);
            return out.error();
        case Root::Role::remote: break;
    }
    // The local reduce keeps this group's rank order for a non-commutative operation.
    Bytes result(g.local.rank == 0 ? bytes : 0);
    if (!out.add(coll::reduce(g.local, send, result.data(), count, op, 0))) return out.error();
    if (g.local.rank == 0) {
        reqs.push_back(send_start(g.remote, root.rank, kTagInterReduce, result.data(), bytes));
        out.wait(g.remote, reqs);
    }
    return out.error();
}

}  // namespace strata::coll::inter
