#include "collectives/gather/gather.hpp"

namespace strata::coll {

namespace {
const base::KnobString knob{"STRATA_GATHER_ALGORITHM", "",
                            "MPI_Gather algorithm (empty: by the rules; strata-info lists the algorithms)"};
}  // namespace

const Registry<GatherFn> gather_algorithms{
    "gather",
    knob,
    {
        {"binomial", "none", fits::any, gather_binomial},
        {"linear", "none", fits::any, gather_linear},
    },
    levels<GatherFn, gather_multilevel>(),
    {
        {"multilevel"},
        // Between sites (every pair with its own link): every block straight to
        // the root, one latency instead of the tree's log2(p).
        {"linear", 0, 1, 0},
        // Large blocks: no intermediate copies, the root's link is the limit anyway.
        {"linear", 32 * KiB},
        {"binomial"},
    }};

}  // namespace strata::coll
