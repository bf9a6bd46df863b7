#include "collectives/gather/gather.hpp"

namespace strata::coll {

namespace {
constexpr std::size_t KiB = 1024;
const base::KnobString knob{"STRATA_GATHER_ALGORITHM", "",
                             "MPI_Gather algorithm (empty: by the rules; strata-info lists the algorithms)"};
}  // namespace

const Registry<GatherFn> gather_algorithms{
    "gather", knob,
    {
     {"binomial", "none", fits::any, gather_binomial},
     {"linear", "none", fits::any, gather_linear},
     {"multilevel", kSpansWords[static_cast<int>(Shape::multilevel)], fits::spans<Shape::multilevel>,
      gather_shaped<Shape::multilevel>},
     {"two_level_site", kSpansWords[static_cast<int>(Shape::site)], fits::spans<Shape::site>,
      gather_shaped<Shape::site>},
     {"two_level_machine", kSpansWords[static_cast<int>(Shape::machine)], fits::spans<Shape::machine>,
      gather_shaped<Shape::machine>},
    },
    {
     {"multilevel"},
     // Large blocks: no intermediate copies, the root's link is the limit anyway.
     {"linear", 32 * KiB},
     {"binomial"},
    }};

}  // namespace strata::coll
