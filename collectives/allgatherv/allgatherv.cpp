#include "collectives/allgatherv/allgatherv.hpp"

namespace strata::coll {

namespace {
const base::KnobString knob{"STRATA_ALLGATHERV_ALGORITHM", "",
                            "MPI_Allgatherv algorithm (empty: by the rules; strata-info lists the algorithms)"};
}  // namespace

const Registry<AllgathervFn> allgatherv_algorithms{"allgatherv",
                                                   knob,
                                                   {
                                                       {"bruck", "none", fits::any, allgatherv_bruck},
                                                       {"ring", "none", fits::any, allgatherv_ring},
                                                       {"direct", "none", fits::any, allgatherv_direct},
                                                   },
                                                   levels<AllgathervFn, allgatherv_multilevel>(),
                                                   {
                                                       {"multilevel"},
                                                       // Between sites: one round (allgather's rule).
                                                       {"direct", 0, 1, 0},
                                                       {"ring", 80 * KiB},
                                                       {"bruck"},
                                                   }};

}  // namespace strata::coll
