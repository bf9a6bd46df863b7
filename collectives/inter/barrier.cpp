#include "collectives/inter/inter.hpp"

namespace strata::coll::inter {

adi::Error barrier(const Groups& g) {
    // After the local barrier the leader knows that its group has entered;
    // after the exchange, that the other group has too; its word then frees
    // its group. (An empty message would do, but a byte makes the broadcast
    // carry something whatever algorithm its registry picks.)
    Outcome out;
    if (!out.add(coll::barrier(g.local))) return out.error();
    std::byte word{1};
    if (g.local.rank == 0) {
        std::byte theirs{};
        if (!exchange(g.remote, out, kTagInterBarrier, 0, &word, 1, 0, &theirs, 1)) return out.error();
    }
    out.add(coll::bcast(g.local, &word, 1, 0));
    return out.error();
}

}  // namespace strata::coll::inter
