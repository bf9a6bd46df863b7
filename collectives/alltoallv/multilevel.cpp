#include <numeric>

#include "collectives/alltoallv/alltoallv.hpp"
#include "collectives/collectives.hpp"
#include "collectives/multilevel.hpp"

namespace strata::coll {

namespace {

// A cluster's blocks in travel order of their senders, each sender's blocks
// in rank order of their receivers: sizes in `counts` (p per sender), data
// back to back.
struct ClusterBlocks {
    const std::vector<std::size_t>& counts;
    const std::byte* data;
    std::size_t p;
    std::vector<std::size_t> offsets;  // of each block
    ClusterBlocks(const std::vector<std::size_t>& c, const void* d, std::size_t procs)
        : counts(c), data(static_cast<const std::byte*>(d)), p(procs), offsets(c.size() + 1, 0) {
        std::partial_sum(c.begin(), c.end(), offsets.begin() + 1);
    }
    std::size_t size(std::size_t sender, std::size_t dest) const { return counts[sender * p + dest]; }
    const std::byte* block(std::size_t sender, std::size_t dest) const { return data + offsets[sender * p + dest]; }
};

// Pieces of a buffer, one per stage member, back to back: alltoallv's counts
// and displacements.
struct Pieces {
    std::vector<std::size_t> counts, displs;
    std::size_t total = 0;
    void add(std::size_t bytes) {
        counts.push_back(bytes);
        displs.push_back(total);
        total += bytes;
    }
};

// What one representative sends the others at the coarsest stage: to member
// j the sizes (`heads`), then the blocks (`bodies`), from each rank of its
// cluster (travel order) to each of j's.
struct Outgoing {
    std::vector<std::size_t> heads;
    Pieces head_pieces;
    Bytes bodies;
    Pieces body_pieces;
};

Outgoing outgoing(const Hierarchy& h, const Stage& s, const std::vector<int>& mine, const ClusterBlocks& have) {
    Outgoing o;
    for (int cluster : s.clusters) {
        const std::size_t heads = o.heads.size();
        const std::size_t bodies = o.bodies.size();
        for (std::size_t m = 0; m < mine.size(); ++m) {
            for (int d : h.members(1, cluster)) {
                const auto dest = static_cast<std::size_t>(d);
                o.heads.push_back(have.size(m, dest));
                o.bodies.insert(o.bodies.end(), have.block(m, dest), have.block(m, dest) + have.size(m, dest));
            }
        }
        o.head_pieces.add((o.heads.size() - heads) * kCountBytes);
        o.body_pieces.add(o.bodies.size() - bodies);
    }
    return o;
}

// The down-bundle of my cluster from what the others sent: for each of my
// ranks (travel order), its blocks from every rank in rank order, with sizes.
// From member j came, for each of j's ranks i and each of mine m, one block:
// size heads[j's piece + i * |mine| + m].
Counted incoming(const Hierarchy& h, const Stage& s, std::size_t mine, std::size_t p,
                 const std::vector<std::size_t>& heads, const Pieces& head_pieces, const Bytes& bodies,
                 const Pieces& body_pieces) {
    std::vector<std::size_t> member(p), position(p);  // per sender
    std::vector<std::vector<std::size_t>> offset(s.clusters.size());  // per member, of each block it sent
    for (std::size_t j = 0; j < s.clusters.size(); ++j) {
        const std::vector<int>& theirs = h.members(1, s.clusters[j]);
        for (std::size_t i = 0; i < theirs.size(); ++i) {
            member[static_cast<std::size_t>(theirs[i])] = j;
            position[static_cast<std::size_t>(theirs[i])] = i;
        }
        std::size_t o = body_pieces.displs[j];
        for (std::size_t k = 0; k < head_pieces.counts[j] / kCountBytes; ++k) {
            offset[j].push_back(o);
            o += heads[head_pieces.displs[j] / kCountBytes + k];
        }
    }
    Counted down;
    for (std::size_t m = 0; m < mine; ++m) {
        for (std::size_t src = 0; src < p; ++src) {
            const std::size_t j = member[src];
            const std::size_t k = position[src] * mine + m;
            const std::size_t bytes = heads[head_pieces.displs[j] / kCountBytes + k];
            const auto from = bodies.begin() + static_cast<std::ptrdiff_t>(offset[j][k]);
            down.counts.push_back(bytes);
            down.data.storage.insert(down.data.storage.end(), from, from + static_cast<std::ptrdiff_t>(bytes));
        }
    }
    down.data.data = down.data.storage.data();
    down.data.bytes = down.data.storage.size();
    return down;
}

// The coarsest stage: the representatives swap, per pair of clusters, the
// sizes and then the blocks between them; `c` becomes my cluster's down-bundle.
bool swap_clusters(const Group& g, Outcome& out, const Hierarchy& h, const Stage& s, std::size_t p, Counted& c) {
    const StageGroup sg(g, s);
    const std::vector<int>& mine = h.members(1, s.clusters[static_cast<std::size_t>(s.me)]);
    const Outgoing o = outgoing(h, s, mine, ClusterBlocks(c.counts, c.data.data, p));
    Pieces head_in;
    for (int cluster : s.clusters) head_in.add(h.members(1, cluster).size() * mine.size() * kCountBytes);
    const Bytes heads_out = counts_to_wire(o.heads);
    Bytes heads_in(head_in.total);
    if (!out.add(alltoallv(sg.group(), heads_out.data(), o.head_pieces.counts, o.head_pieces.displs, heads_in.data(),
                           head_in.counts, head_in.displs)))
        return false;
    const std::vector<std::size_t> heads = counts_from_wire(heads_in);
    Pieces body_in;
    for (std::size_t j = 0; j < s.clusters.size(); ++j) {
        const auto first = heads.begin() + static_cast<std::ptrdiff_t>(head_in.displs[j] / kCountBytes);
        body_in.add(std::accumulate(first, first + static_cast<std::ptrdiff_t>(head_in.counts[j] / kCountBytes),
                                    std::size_t{0}));
    }
    Bytes bodies(body_in.total);
    if (!out.add(alltoallv(sg.group(), o.bodies.data(), o.body_pieces.counts, o.body_pieces.displs, bodies.data(),
                           body_in.counts, body_in.displs)))
        return false;
    c = incoming(h, s, mine.size(), p, heads, head_in, bodies, body_in);
    return true;
}

}  // namespace

// As alltoall_multilevel, with the sizes known only to each sender: counts
// travel beside the data (up, across the coarsest stage and down).
adi::Error alltoallv_multilevel(const Group& g, Shape shape, const void* send, std::span<const std::size_t> scounts,
                                std::span<const std::size_t> sdispls, void* recv, std::span<const std::size_t> rcounts,
                                std::span<const std::size_t> rdispls) {
    const Hierarchy& h = hierarchy(g, shape);
    const std::vector<Stage>& stages = h.plan(g.rank, 0);
    const auto p = static_cast<std::size_t>(g.size());
    // My blocks, back to back in rank order of their receivers.
    Counted c{{scounts.begin(), scounts.end()}, {}};
    c.data.storage.resize(std::accumulate(scounts.begin(), scounts.end(), std::size_t{0}));
    for (std::size_t d = 0, at_ = 0; d < p; at_ += scounts[d], ++d)
        bytes_copy(c.data.storage.data() + at_, at(send, sdispls[d]), scounts[d]);
    c.data.data = c.data.storage.data();
    c.data.bytes = c.data.storage.size();
    Outcome out;
    if (!gather_counted_up(g, out, h, stages, 0, p, c)) return out.error();
    if (!stages.empty() && stages.front().index == 0 && !swap_clusters(g, out, h, stages.front(), p, c))
        return out.error();
    if (!scatter_counted_down(g, out, h, stages, 1, p, c)) return out.error();
    // My blocks from every rank, in rank order: into their places.
    for (std::size_t src = 0, at_ = 0; src < p; at_ += c.counts[src], ++src)
        out.add(self_copy(at(recv, rdispls[src]), rcounts[src], at(c.data.data, at_), c.counts[src]));
    return out.error();
}

}  // namespace strata::coll
