#include "collectives/alltoall/alltoall.hpp"

namespace strata::coll {

namespace {
const base::KnobString knob{"STRATA_ALLTOALL_ALGORITHM", "",
                            "MPI_Alltoall algorithm (empty: by the rules; strata-info lists the algorithms)"};
}  // namespace

const Registry<AlltoallFn> alltoall_algorithms{"alltoall",
                                               knob,
                                               {
                                                   {"bruck", "none", fits::any, alltoall_bruck},
                                                   {"pairwise", "none", fits::any, alltoall_pairwise},
                                               },
                                               levels<AlltoallFn, alltoall_multilevel>(),
                                               {
                                                   // Large blocks are bandwidth-bound: gathering a
                                                   // site's blocks first only adds copies (the wide
                                                   // area carries the same bytes either way).
                                                   {"pairwise", 16 * KiB},
                                                   {"multilevel"},
                                                   // Bruck only pays off for tiny blocks on many processes.
                                                   {"pairwise", 257},
                                                   {"bruck", 0, 8},
                                                   {"pairwise"},
                                               }};

}  // namespace strata::coll
