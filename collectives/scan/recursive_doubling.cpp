#include "collectives/scan/scan.hpp"

#include <utility>

namespace strata::coll {

adi::Error scan_recursive_doubling(const Group& g, const void* send, void* recv, std::size_t count,
                                   const ReduceOp& op) {
    const int p = g.size();
    const int r = g.rank;
    const std::size_t bytes = count * op.element_bytes();
    Outcome out;

    // `recv` accumulates our prefix; `block` the reduction of the aligned
    // block of 2^k ranks containing us, which is what partners need.
    bytes_copy(recv, send, bytes);
    Bytes a(bytes), b(bytes);
    std::byte* block = a.data();
    std::byte* incoming = b.data();
    bytes_copy(block, send, bytes);
    for (int mask = 1; mask < p; mask <<= 1) {
        const int peer = r ^ mask;
        if (peer >= p) continue;
        if (!exchange(g, out, kTagScan, peer, block, bytes, peer, incoming, bytes)) return out.error();
        if (peer < r) {
            // The partner's block lies just below ours: it precedes both.
            op.apply(incoming, recv, count);
            op.apply(incoming, block, count);
        } else {
            op.apply(block, incoming, count);  // incoming = ours op theirs
            std::swap(block, incoming);
        }
    }
    return out.error();
}

}  // namespace strata::coll
