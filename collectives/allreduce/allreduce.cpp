#include "collectives/allreduce/allreduce.hpp"
#include "wireup/topology.hpp"

namespace strata::coll {

namespace {
const base::KnobString knob{"STRATA_ALLREDUCE_ALGORITHM", "",
                            "MPI_Allreduce algorithm (empty: by the rules; strata-info lists the algorithms)"};
}  // namespace

const Registry<AllreduceFn> allreduce_algorithms{
    "allreduce",
    knob,
    {
        {"recursive_doubling", "none", fits::any, allreduce_recursive_doubling},
        {"linear", "none", fits::any, allreduce_linear},
        {"segmented", "commutative operation, parameters from STRATA_PLOGP for the group's links",
         fits::modelled_and_commutative, allreduce_segmented},
        {"rabenseifner", "commutative operation, at least 2^floor(log2 p) elements", fits::commutative_and_long,
         allreduce_rabenseifner},
    },
    levels<AllreduceFn, allreduce_multilevel, Order::for_noncommutative>(),
    {
        // Across sites, with measured parameters: segments up the model's tree
        // and the result's back down it.
        {"segmented", 0, 1, 0},
        {"multilevel"},
        // Between sites and between machines: fewest crossings of the slow links.
        {"recursive_doubling", 0, 1, 0},
        {"recursive_doubling", 0, 1, 1},
        // Long vectors: halve the data per step instead of passing all of it up and down.
        {"rabenseifner", 2 * KiB},
        {"recursive_doubling", 2 * KiB},
        // Short vectors on 3 or 4 processes of one host: the same two rounds,
        // with only rank 0 busy between them.
        {"linear", 0, 3, wireup::kVendor, 4},
        {"linear", 0, 3, wireup::kNode, 4},
        {"recursive_doubling"},
    }};

}  // namespace strata::coll
