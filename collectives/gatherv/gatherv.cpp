#include "collectives/gatherv/gatherv.hpp"

namespace strata::coll {

namespace {
const base::KnobString knob{"STRATA_GATHERV_ALGORITHM", "",
                             "MPI_Gatherv algorithm (empty: by the rules; strata-info lists the algorithms)"};
}  // namespace

const Registry<GathervFn> gatherv_algorithms{
    "gatherv", knob,
    {
     {"linear", "none", fits::any, gatherv_linear},
     {"multilevel", kSpansWords[static_cast<int>(Shape::multilevel)], fits::spans<Shape::multilevel>,
      gatherv_shaped<Shape::multilevel>},
     {"two_level_site", kSpansWords[static_cast<int>(Shape::site)], fits::spans<Shape::site>,
      gatherv_shaped<Shape::site>},
     {"two_level_machine", kSpansWords[static_cast<int>(Shape::machine)], fits::spans<Shape::machine>,
      gatherv_shaped<Shape::machine>},
    },
    {
     {"multilevel"},
     {"linear"},
    }};

}  // namespace strata::coll
