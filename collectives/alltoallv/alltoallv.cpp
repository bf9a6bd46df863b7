#include "collectives/alltoallv/alltoallv.hpp"

namespace strata::coll {

namespace {
const base::KnobString knob{"STRATA_ALLTOALLV_ALGORITHM", "",
                             "MPI_Alltoallv algorithm (empty: by the rules; strata-info lists the algorithms)"};
}  // namespace

const Registry<AlltoallvFn> alltoallv_algorithms{
    "alltoallv", knob,
    {
     {"pairwise", "none", fits::any, alltoallv_pairwise},
     {"multilevel", kSpansWords[static_cast<int>(Shape::multilevel)], fits::spans<Shape::multilevel>,
      alltoallv_shaped<Shape::multilevel>},
     {"two_level_site", kSpansWords[static_cast<int>(Shape::site)], fits::spans<Shape::site>,
      alltoallv_shaped<Shape::site>},
     {"two_level_machine", kSpansWords[static_cast<int>(Shape::machine)], fits::spans<Shape::machine>,
      alltoallv_shaped<Shape::machine>},
    },
    {
     {"multilevel"},
     {"pairwise"},
    }};

}  // namespace strata::coll
