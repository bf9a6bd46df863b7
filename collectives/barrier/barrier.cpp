#include "collectives/barrier/barrier.hpp"

namespace strata::coll {

namespace {
const base::KnobString knob{"STRATA_BARRIER_ALGORITHM", "",
                            "MPI_Barrier algorithm (empty: by the rules; strata-info lists the algorithms)"};
}  // namespace

const Registry<BarrierFn> barrier_algorithms{"barrier",
                                             knob,
                                             {
                                                 {"dissemination", "none", fits::any, barrier_dissemination},
                                             },
                                             levels<BarrierFn, barrier_multilevel>(),
                                             {
                                                 {"multilevel"},
                                                 {"dissemination"},
                                             }};

}  // namespace strata::coll
