#include "collectives/inter/inter.hpp"

#include <numeric>

namespace strata::coll::inter {

adi::Error reduce_scatter(const Groups& g, const void* send, void* recv, Sizes counts, const ReduceOp& op) {
    // Both groups' vectors have the same length (MPI-2 7.3.1), the sum of
    // either group's counts; each leader reduces its group's, swaps the result
    // for the other group's and scatters that by its group's counts.
    Outcome out;
    const bool leader = g.local.rank == 0;
    const std::size_t size = op.element_bytes();
    const std::size_t elements = std::accumulate(counts.begin(), counts.end(), std::size_t{0});
    const std::size_t bytes = elements * size;
    Bytes ours(leader ? bytes : 0), theirs(leader ? bytes : 0);
    if (!out.add(coll::reduce(g.local, send, ours.data(), elements, op, 0))) return out.error();
    if (leader && !exchange(g.remote, out, kTagInterReduceScatter, 0, ours.data(), bytes, 0, theirs.data(), bytes))
        return out.error();
    std::vector<std::size_t> scounts(counts.size()), sdispls(counts.size());
    std::size_t offset = 0;
    for (std::size_t i = 0; i < counts.size(); ++i) {
        scounts[i] = counts[i] * size;
        sdispls[i] = offset;
        offset += scounts[i];
    }
    const std::size_t mine = scounts[static_cast<std::size_t>(g.local.rank)];
    out.add(coll::scatterv(g.local, theirs.data(), scounts, sdispls, recv, mine, 0));
    return out.error();
}

}  // namespace strata::coll::inter
