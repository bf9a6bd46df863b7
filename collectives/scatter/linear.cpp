#include "collectives/scatter/scatter.hpp"

namespace strata::coll {

adi::Error scatter_linear(const Group& g, const void* send, std::size_t sblock, void* recv, std::size_t rbytes,
                          int root) {
    const int p = g.size();
    Outcome out;
    std::vector<adi::Request*> reqs;
    if (g.rank != root) {
        reqs.push_back(recv_start(g, root, kTagScatter, recv, rbytes));
        out.wait(g, reqs);
        return out.error();
    }
    for (int i = 0; i < p; ++i) {
        if (i != root)
            reqs.push_back(send_start(g, i, kTagScatter, at(send, static_cast<std::size_t>(i) * sblock), sblock));
    }
    out.add(self_copy(recv, rbytes, at(send, static_cast<std::size_t>(root) * sblock), sblock));
    out.wait(g, reqs);
    return out.error();
}

}  // namespace strata::coll
