#include "collectives/scatterv/scatterv.hpp"

namespace strata::coll {

namespace {
const base::KnobString knob{"STRATA_SCATTERV_ALGORITHM", "",
                            "MPI_Scatterv algorithm (empty: by the rules; strata-info lists the algorithms)"};
}  // namespace

const Registry<ScattervFn> scatterv_algorithms{"scatterv",
                                               knob,
                                               {
                                                   {"linear", "none", fits::any, scatterv_linear},
                                               },
                                               levels<ScattervFn, scatterv_multilevel>(),
                                               {
                                                   {"multilevel"},
                                                   {"linear"},
                                               }};

}  // namespace strata::coll
