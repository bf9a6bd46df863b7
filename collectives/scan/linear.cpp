#include "collectives/scan/scan.hpp"

namespace strata::coll {

adi::Error scan_linear(const Group& g, const void* send, void* recv, std::size_t count, const ReduceOp& op) {
    const int p = g.size();
    const std::size_t bytes = count * op.element_bytes();
    Outcome out;
    std::vector<adi::Request*> reqs;
    bytes_copy(recv, send, bytes);
    if (g.rank > 0) {
        Bytes prefix(bytes);
        reqs.push_back(recv_start(g, g.rank - 1, kTagScan, prefix.data(), bytes));
        if (!out.wait(g, reqs)) return out.error();
        op.apply(prefix.data(), recv, count);
    }
    if (g.rank + 1 < p) {
        reqs.push_back(send_start(g, g.rank + 1, kTagScan, recv, bytes));
        out.wait(g, reqs);
    }
    return out.error();
}

}  // namespace strata::coll
