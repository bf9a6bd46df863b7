#include "collectives/reduce_scatter/reduce_scatter.hpp"

namespace strata::coll {

namespace {
const base::KnobString knob{"STRATA_REDUCE_SCATTER_ALGORITHM", "",
                            "MPI_Reduce_scatter algorithm (empty: by the rules; strata-info lists the algorithms)"};
}  // namespace

const Registry<ReduceScatterFn> reduce_scatter_algorithms{
    "reduce_scatter",
    knob,
    {
        {"reduce_scatterv", "none", fits::any, reduce_scatter_reduce_scatterv},
        {"recursive_halving", "commutative operation", fits::commutative, reduce_scatter_recursive_halving},
        {"pairwise", "commutative operation", fits::commutative, reduce_scatter_pairwise},
    },
    levels<ReduceScatterFn, reduce_scatter_multilevel, Order::for_noncommutative>(),
    {
        {"multilevel"},
        // Commutative: halving below 512 KiB, then pairwise (no power-of-two fold, each piece moves once).
        {"pairwise", 512 * KiB},
        {"recursive_halving"},
        {"reduce_scatterv"},
    }};

}  // namespace strata::coll
