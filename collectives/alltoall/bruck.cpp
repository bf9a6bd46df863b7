#include "collectives/alltoall/alltoall.hpp"

namespace strata::coll {

adi::Error alltoall_bruck(const Group& g, const void* send, std::size_t sblock, void* recv, std::size_t rblock) {
    const int p = g.size();
    const std::size_t block = rblock;
    Outcome out;
    auto u = [](int i) { return static_cast<std::size_t>(i); };
    if (sblock != rblock) out.add(adi::Error::truncated);
    const std::size_t copy = std::min(sblock, rblock);

    // Rotate so that position i holds the block for rank + i.
    Bytes tmp(u(p) * block);
    for (int i = 0; i < p; ++i) bytes_copy(tmp.data() + u(i) * block, at(send, u((g.rank + i) % p) * sblock), copy);

    // Round k: positions with bit k set travel to rank + k. After every round
    // position i holds a block still i - (bits done) ranks from its target;
    // after all rounds position i holds the block from rank - i.
    Bytes packed(u(p) * block), incoming(u(p) * block);
    for (int k = 1; k < p; k <<= 1) {
        std::size_t n = 0;
        for (int i = k; i < p; ++i) {
            if (i & k) bytes_copy(packed.data() + u(n++) * block, tmp.data() + u(i) * block, block);
        }
        if (!exchange(g, out, kTagAlltoall, (g.rank + k) % p, packed.data(), n * block, (g.rank - k + p) % p,
                      incoming.data(), n * block))
            return out.error();
        n = 0;
        for (int i = k; i < p; ++i) {
            if (i & k) bytes_copy(tmp.data() + u(i) * block, incoming.data() + u(n++) * block, block);
        }
    }
    // Undo the rotation: position i came from rank - i.
    for (int i = 0; i < p; ++i) bytes_copy(at(recv, u((g.rank - i + p) % p) * block), tmp.data() + u(i) * block, block);
    return out.error();
}

}  // namespace strata::coll
