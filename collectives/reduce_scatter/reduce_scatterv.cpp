#include "collectives/reduce/reduce.hpp"
#include "collectives/reduce_scatter/reduce_scatter.hpp"
#include "collectives/scatterv/scatterv.hpp"

namespace strata::coll {

adi::Error reduce_scatter_reduce_scatterv(const Group& g, const void* send, void* recv,
                                          std::span<const std::size_t> counts, const ReduceOp& op) {
    const std::size_t eb = op.element_bytes();
    std::vector<std::size_t> bytes(counts.size()), displs(counts.size());
    std::size_t total = 0;
    for (std::size_t i = 0; i < counts.size(); ++i) {
        displs[i] = total * eb;
        bytes[i] = counts[i] * eb;
        total += counts[i];
    }
    Bytes whole(g.rank == 0 ? total * eb : 0);
    Outcome out;
    if (!out.add(reduce_binomial_ordered(g, send, whole.data(), total, op, 0))) return out.error();
    out.add(scatterv_linear(g, whole.data(), bytes, displs, recv, bytes[static_cast<std::size_t>(g.rank)], 0));
    return out.error();
}

}  // namespace strata::coll
