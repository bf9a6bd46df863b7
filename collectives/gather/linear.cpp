#include "collectives/gather/gather.hpp"

namespace strata::coll {

adi::Error gather_linear(const Group& g, const void* send, std::size_t sbytes, void* recv, std::size_t rblock,
                         int root) {
    const int p = g.size();
    Outcome out;
    std::vector<adi::Request*> reqs;
    if (g.rank != root) {
        reqs.push_back(send_start(g, root, kTagGather, send, sbytes));
        out.wait(g, reqs);
        return out.error();
    }
    for (int i = 0; i < p; ++i) {
        if (i != root)
            reqs.push_back(recv_start(g, i, kTagGather, at(recv, static_cast<std::size_t>(i) * rblock), rblock));
    }
    out.add(self_copy(at(recv, static_cast<std::size_t>(root) * rblock), rblock, send, sbytes));
    out.wait(g, reqs);
    return out.error();
}

}  // namespace strata::coll
