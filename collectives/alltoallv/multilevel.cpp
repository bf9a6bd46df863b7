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

}  // namespace

// As alltoall_multilevel, with the sizes known only to each sender: counts
// travel beside the data (up, across the coarsest stage and down).
adi::Error alltoallv_multilevel(const Group& g, Shape shape, const void* send, std::span<const std::size_t> scounts,
                                std::span<const std::size_t> sdispls, void* recv, std::span<const std::size_t> rcounts,
                                std::span<const std::size_t> rdispls) {
    const Hierarchy& h = hierarchy(g, shape);
    const std::vector<Stage> stages = h.plan(g.rank, 0);
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
    if (!stages.empty() && stages.front().index == 0) {
        const Stage& s = stages.front();
        const StageGroup sg(g, s);
        const std::vector<int>& mine = h.members(1, s.clusters[static_cast<std::size_t>(s.me)]);
        const ClusterBlocks have(c.counts, c.data.data, p);
        // To member j: the sizes, then the blocks, from each of my ranks to each of j's.
        std::vector<std::size_t> head_out, ho_counts, ho_displs, hi_counts, hi_displs, out_counts, out_displs;
        std::vector<std::byte> body_out;
        for (int cluster : s.clusters) {
            const std::vector<int>& theirs = h.members(1, cluster);
            ho_displs.push_back(head_out.size() * kCountBytes);
            out_displs.push_back(body_out.size());
            for (std::size_t m = 0; m < mine.size(); ++m) {
                for (int d : theirs) {
                    const auto dest = static_cast<std::size_t>(d);
                    head_out.push_back(have.size(m, dest));
                    body_out.insert(body_out.end(), have.block(m, dest), have.block(m, dest) + have.size(m, dest));
                }
            }
            ho_counts.push_back(head_out.size() * kCountBytes - ho_displs.back());
            out_counts.push_back(body_out.size() - out_displs.back());
            hi_displs.push_back(hi_counts.empty() ? 0 : hi_displs.back() + hi_counts.back());
            hi_counts.push_back(theirs.size() * mine.size() * kCountBytes);
        }
        std::vector<std::size_t> head_in((hi_displs.back() + hi_counts.back()) / kCountBytes);
        if (!out.add(
                alltoallv(sg.group(), head_out.data(), ho_counts, ho_displs, head_in.data(), hi_counts, hi_displs)))
            return out.error();
        std::vector<std::size_t> in_counts, in_displs;
        std::size_t in_total = 0;
        for (std::size_t j = 0; j < s.clusters.size(); ++j) {
            const auto first = head_in.begin() + static_cast<std::ptrdiff_t>(hi_displs[j] / kCountBytes);
            in_counts.push_back(std::accumulate(first, first + static_cast<std::ptrdiff_t>(hi_counts[j] / kCountBytes),
                                                std::size_t{0}));
            in_displs.push_back(in_total);
            in_total += in_counts.back();
        }
        std::vector<std::byte> body_in(in_total);
        if (!out.add(
                alltoallv(sg.group(), body_out.data(), out_counts, out_displs, body_in.data(), in_counts, in_displs)))
            return out.error();
        // Down-bundle: for each of my ranks (travel order), its blocks from
        // every rank in rank order, with their sizes.
        std::vector<std::size_t> cluster_at(p), position(p);  // per sender
        for (std::size_t j = 0; j < s.clusters.size(); ++j) {
            const std::vector<int>& theirs = h.members(1, s.clusters[j]);
            for (std::size_t i = 0; i < theirs.size(); ++i) {
                cluster_at[static_cast<std::size_t>(theirs[i])] = j;
                position[static_cast<std::size_t>(theirs[i])] = i;
            }
        }
        // Offsets of every received block: per member j, sender i of j, receiver m of mine.
        std::vector<std::vector<std::size_t>> offset(s.clusters.size());
        for (std::size_t j = 0; j < s.clusters.size(); ++j) {
            std::size_t o = in_displs[j];
            const std::size_t* sizes = head_in.data() + hi_displs[j] / kCountBytes;
            for (std::size_t k = 0; k < hi_counts[j] / kCountBytes; ++k) {
                offset[j].push_back(o);
                o += sizes[k];
            }
        }
        Counted down;
        for (std::size_t m = 0; m < mine.size(); ++m) {
            for (std::size_t src = 0; src < p; ++src) {
                const std::size_t j = cluster_at[src];
                const std::size_t k = position[src] * mine.size() + m;
                const std::size_t bytes = head_in[hi_displs[j] / kCountBytes + k];
                down.counts.push_back(bytes);
                down.data.storage.insert(down.data.storage.end(),
                                         body_in.begin() + static_cast<std::ptrdiff_t>(offset[j][k]),
                                         body_in.begin() + static_cast<std::ptrdiff_t>(offset[j][k] + bytes));
            }
        }
        down.data.data = down.data.storage.data();
        down.data.bytes = down.data.storage.size();
        c = std::move(down);
    }
    if (!scatter_counted_down(g, out, h, stages, 1, p, c)) return out.error();
    // My blocks from every rank, in rank order: into their places.
    for (std::size_t src = 0, at_ = 0; src < p; at_ += c.counts[src], ++src)
        out.add(self_copy(at(recv, rdispls[src]), rcounts[src], at(c.data.data, at_), c.counts[src]));
    return out.error();
}

}  // namespace strata::coll
