#include "collectives/gatherv/gatherv.hpp"

namespace strata::coll {

namespace {
const base::KnobString knob{"STRATA_GATHERV_ALGORITHM", "",
                            "MPI_Gatherv algorithm (empty: by the rules; strata-info lists the algorithms)"};
}  // namespace

const Registry<GathervFn> gatherv_algorithms{"gatherv",
                                             knob,
                                             {
                                                 {"linear", "none", fits::any, gatherv_linear},
                                             },
                                             levels<GathervFn, gatherv_multilevel>(),
                                             {
                                                 {"multilevel"},
                                                 {"linear"},
                                             }};

}  // namespace strata::coll
