#include "collectives/alltoall/alltoall.hpp"

namespace strata::coll {

namespace {
const base::KnobString knob{"STRATA_ALLTOALL_ALGORITHM", "",
                             "MPI_Alltoall algorithm (empty: by the rules; strata-info lists the algorithms)"};
}  // namespace

const Registry<AlltoallFn> alltoall_algorithms{
    "alltoall", knob,
    {
     {"bruck", "none", fits::any, alltoall_bruck},
     {"pairwise", "none", fits::any, alltoall_pairwise},
     {"multilevel", kSpansWords[static_cast<int>(Shape::multilevel)], fits::spans<Shape::multilevel>,
      alltoall_shaped<Shape::multilevel>},
     {"two_level_site", kSpansWords[static_cast<int>(Shape::site)], fits::spans<Shape::site>,
      alltoall_shaped<Shape::site>},
     {"two_level_machine", kSpansWords[static_cast<int>(Shape::machine)], fits::spans<Shape::machine>,
      alltoall_shaped<Shape::machine>},
    },
    {
     {"multilevel"},
     // Bruck only pays off for tiny blocks on many processes.
     {"pairwise", 257},
     {"bruck", 0, 8},
     {"pairwise"},
    }};

}  // namespace strata::coll
