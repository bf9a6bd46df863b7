#include "collectives/reduce/reduce.hpp"

namespace strata::coll {

namespace {
const base::KnobString knob{"STRATA_REDUCE_ALGORITHM", "",
                            "MPI_Reduce algorithm (empty: by the rules; strata-info lists the algorithms)"};
}  // namespace

const Registry<ReduceFn> reduce_algorithms{
    "reduce",
    knob,
    {
        {"binomial", "commutative operation", fits::commutative, reduce_binomial},
        {"segmented", "commutative operation, parameters from STRATA_PLOGP for the group's links",
         fits::modelled_and_commutative, reduce_segmented},
        {"binomial_ordered", "none", fits::any, reduce_binomial_ordered},
        {"rabenseifner", "commutative operation, at least 2^floor(log2 p) elements", fits::commutative_and_long,
         reduce_rabenseifner},
    },
    levels<ReduceFn, reduce_multilevel, Order::for_noncommutative>(),
    {
        // Across sites, with measured parameters: segments up the model's tree.
        {"segmented", 0, 1, 0},
        {"multilevel"},
        // Between sites and between the machines of a site every partial result crosses
        // each link once (the stages of the representatives of sites and machines).
        {"binomial", 0, 1, 0},
        {"binomial", 0, 1, 1},
        // Long vectors: halve the data per step instead of passing all of it up the tree.
        {"rabenseifner", 2 * KiB},
        {"binomial"},
        {"binomial_ordered"},
    }};

}  // namespace strata::coll
