#include <algorithm>

#include "collectives/alltoall/alltoall.hpp"
#include "collectives/collectives.hpp"
#include "collectives/multilevel.hpp"

namespace strata::coll {

// Every process's whole send buffer goes up to its coarsest cluster's
// representative; the representatives swap, per pair of clusters, one
// message holding every block from one cluster to the other (on a grid: one
// wide-area message per pair of sites instead of one per pair of processes);
// each then hands its ranks their blocks down the stages.
adi::Error alltoall_multilevel(const Group& g, Shape shape, const void* send, std::size_t sblock, void* recv,
                               std::size_t rblock) {
    const Hierarchy& h = hierarchy(g, shape);
    const std::vector<Stage>& stages = h.plan(g.rank, 0);
    const auto p = static_cast<std::size_t>(g.size());
    const std::size_t block = rblock;
    const std::size_t moved = std::min(sblock, rblock);  // of each block (the rest of a short one stays as it was)
    Outcome out;
    if (sblock > rblock) out.add(adi::Error::truncated);  // as a flat algorithm placing its own block
    Carry carry{send, sblock * p, {}};
    if (!gather_up(g, out, h, stages, 0, Layout::uniform(g.size(), sblock * p).sizes, carry)) return out.error();
    if (!stages.empty() && stages.front().index == 0) {
        const Stage& s = stages.front();
        const StageGroup sg(g, s);
        const std::vector<int>& mine = h.members(1, s.clusters[static_cast<std::size_t>(s.me)]);
        // Member j's cluster, and where each rank sits in its cluster.
        std::vector<const std::vector<int>*> clusters;
        std::vector<std::size_t> cluster_of(p), position(p);
        for (std::size_t j = 0; j < s.clusters.size(); ++j) {
            clusters.push_back(&h.members(1, s.clusters[j]));
            for (std::size_t i = 0; i < clusters[j]->size(); ++i) {
                cluster_of[static_cast<std::size_t>((*clusters[j])[i])] = j;
                position[static_cast<std::size_t>((*clusters[j])[i])] = i;
            }
        }
        // To member j: from each of my ranks (travel order) the blocks for
        // each of j's ranks (travel order); from j the reverse.
        std::vector<std::size_t> scounts, sdispls, rcounts, rdispls;
        std::size_t stotal = 0;
        for (const std::vector<int>* c : clusters) {
            const std::size_t bytes = mine.size() * c->size() * block;
            scounts.push_back(bytes);
            sdispls.push_back(stotal);
            rcounts.push_back(bytes);
            rdispls.push_back(stotal);
            stotal += bytes;
        }
        Bytes out_blocks(stotal), in_blocks(stotal);
        for (std::size_t j = 0; j < clusters.size(); ++j) {
            std::byte* to = out_blocks.data() + sdispls[j];
            for (std::size_t m = 0; m < mine.size(); ++m) {
                for (int d : *clusters[j]) {
                    bytes_copy(to, at(carry.data, (m * p + static_cast<std::size_t>(d)) * sblock), moved);
                    to += block;
                }
            }
        }
        if (!out.add(alltoallv(sg.group(), out_blocks.data(), scounts, sdispls, in_blocks.data(), rcounts, rdispls)))
            return out.error();
        // Down-bundle: for each of my ranks (travel order) its blocks from
        // every rank, in rank order: its receive buffer.
        Bytes down(mine.size() * p * block);
        for (std::size_t m = 0; m < mine.size(); ++m) {
            for (std::size_t src = 0; src < p; ++src) {
                const std::size_t j = cluster_of[src];
                const std::size_t from = rdispls[j] + (position[src] * mine.size() + m) * block;
                bytes_copy(down.data() + (m * p + src) * block, in_blocks.data() + from, block);
            }
        }
        carry.storage = std::move(down);
        carry.data = carry.storage.data();
        carry.bytes = carry.storage.size();
    }
    scatter_down(g, out, h, stages, 1, Layout::uniform(g.size(), p * block).sizes, carry, recv, p * block);
    return out.error();
}

}  // namespace strata::coll
