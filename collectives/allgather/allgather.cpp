#include "collectives/allgather/allgather.hpp"

namespace strata::coll {

namespace {
const base::KnobString knob{"STRATA_ALLGATHER_ALGORITHM", "",
                            "MPI_Allgather algorithm (empty: by the rules; strata-info lists the algorithms)"};
}  // namespace

const Registry<AllgatherFn> allgather_algorithms{
    "allgather",
    knob,
    {
        {"bruck", "none", fits::any, allgather_bruck},
        {"ring", "none", fits::any, allgather_ring},
        {"direct", "none", fits::any, allgather_direct},
    },
    levels<AllgatherFn, allgather_multilevel>(),
    {
        {"multilevel"},
        // Between sites (every pair with its own link): one round, each block
        // crossing one link once.
        {"direct", 0, 1, 0},
        // Result of 80 KiB and more: bandwidth-bound, nearest-neighbour ring.
        {"ring", 80 * KiB},
        {"bruck"},
    }};

}  // namespace strata::coll
