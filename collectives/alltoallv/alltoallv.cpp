#include "collectives/alltoallv/alltoallv.hpp"

namespace strata::coll {

namespace {
const base::KnobString knob{"STRATA_ALLTOALLV_ALGORITHM", "",
                            "MPI_Alltoallv algorithm (empty: by the rules; strata-info lists the algorithms)"};
}  // namespace

const Registry<AlltoallvFn> alltoallv_algorithms{"alltoallv",
                                                 knob,
                                                 {
                                                     {"pairwise", "none", fits::any, alltoallv_pairwise},
                                                 },
                                                 levels<AlltoallvFn, alltoallv_multilevel>(),
                                                 {
                                                     {"multilevel"},
                                                     {"pairwise"},
                                                 }};

}  // namespace strata::coll
