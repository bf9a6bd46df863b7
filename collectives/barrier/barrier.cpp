#include "collectives/barrier/barrier.hpp"

namespace strata::coll {

namespace {
const base::KnobString knob{"STRATA_BARRIER_ALGORITHM", "",
                             "MPI_Barrier algorithm (empty: by the rules; strata-info lists the algorithms)"};
}  // namespace

const Registry<BarrierFn> barrier_algorithms{
    "barrier", knob,
    {
     {"dissemination", "none", fits::any, barrier_dissemination},
     {"multilevel", kSpansWords[static_cast<int>(Shape::multilevel)], fits::spans<Shape::multilevel>,
      barrier_shaped<Shape::multilevel>},
     {"two_level_site", kSpansWords[static_cast<int>(Shape::site)], fits::spans<Shape::site>,
      barrier_shaped<Shape::site>},
     {"two_level_machine", kSpansWords[static_cast<int>(Shape::machine)], fits::spans<Shape::machine>,
      barrier_shaped<Shape::machine>},
    },
    {
     {"multilevel"},
     {"dissemination"},
    }};

}  // namespace strata::coll
