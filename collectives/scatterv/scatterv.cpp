#include "collectives/scatterv/scatterv.hpp"

namespace strata::coll {

namespace {
const base::KnobString knob{"STRATA_SCATTERV_ALGORITHM", "",
                             "MPI_Scatterv algorithm (empty: by the rules; strata-info lists the algorithms)"};
}  // namespace

const Registry<ScattervFn> scatterv_algorithms{
    "scatterv", knob,
    {
     {"linear", "none", fits::any, scatterv_linear},
     {"multilevel", kSpansWords[static_cast<int>(Shape::multilevel)], fits::spans<Shape::multilevel>,
      scatterv_shaped<Shape::multilevel>},
     {"two_level_site", kSpansWords[static_cast<int>(Shape::site)], fits::spans<Shape::site>,
      scatterv_shaped<Shape::site>},
     {"two_level_machine", kSpansWords[static_cast<int>(Shape::machine)], fits::spans<Shape::machine>,
      scatterv_shaped<Shape::machine>},
    },
    {
     {"multilevel"},
     {"linear"},
    }};

}  // namespace strata::coll
