#include "collectives/scatter/scatter.hpp"

namespace strata::coll {

namespace {
const base::KnobString knob{"STRATA_SCATTER_ALGORITHM", "",
                            "MPI_Scatter algorithm (empty: by the rules; strata-info lists the algorithms)"};
}  // namespace

const Registry<ScatterFn> scatter_algorithms{"scatter",
                                             knob,
                                             {
                                                 {"binomial", "none", fits::any, scatter_binomial},
                                                 {"linear", "none", fits::any, scatter_linear},
                                             },
                                             levels<ScatterFn, scatter_multilevel>(),
                                             {
                                                 {"multilevel"},
                                                 // Between sites: one round (gather's rule).
                                                 {"linear", 0, 1, 0},
                                                 {"linear", 32 * KiB},
                                                 {"binomial"},
                                             }};

}  // namespace strata::coll
