#include "collectives/bcast/bcast.hpp"

namespace strata::coll {

adi::Error bcast_linear(const Group& g, void* buf, std::size_t bytes, int root) {
    // A short message travels in pieces of kPiece bytes, which the methods of
    // one host send eagerly: each piece leaves at once for every receiver,
    // where a rendezvous would wait for each receiver to answer (on a host with
    // more processes than cores, a wake-up each). Every process derives the
    // same pieces from `bytes` alone. Longer messages go whole: a single-copy
    // method lets every receiver read from the root's buffer at once.
    constexpr std::size_t kPiece = 16 * KiB, kPieces = 4;
    const std::size_t piece = bytes <= kPiece * kPieces ? kPiece : std::max<std::size_t>(bytes, 1);
    const std::size_t pieces = std::max<std::size_t>((bytes + piece - 1) / piece, 1);  // an empty message is one
    Outcome out;
    std::vector<adi::Request*> reqs;
    for (std::size_t i = 0; i < pieces; ++i) {
        const std::size_t at = i * piece, n = std::min(piece, bytes - at);
        if (g.rank != root) {
            reqs.push_back(recv_start(g, root, kTagBcast, coll::at(buf, at), n));
        } else {
            // Farthest first, as the binomial tree does: rank order would
            // favour the processes just after the root.
            for (int k = g.size() - 1; k > 0; --k) {
                reqs.push_back(send_start(g, (root + k) % g.size(), kTagBcast, coll::at(buf, at), n));
            }
        }
    }
    out.wait(g, reqs);
    return out.error();
}

}  // namespace strata::coll
