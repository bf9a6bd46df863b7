#include "collectives/scatter/scatter.hpp"

namespace strata::coll {

namespace {
constexpr std::size_t KiB = 1024;
const base::KnobString knob{"STRATA_SCATTER_ALGORITHM", "",
                             "MPI_Scatter algorithm (empty: by the rules; strata-info lists the algorithms)"};
}  // namespace

const Registry<ScatterFn> scatter_algorithms{
    "scatter", knob,
    {
     {"binomial", "none", fits::any, scatter_binomial},
     {"linear", "none", fits::any, scatter_linear},
     {"multilevel", kSpansWords[static_cast<int>(Shape::multilevel)], fits::spans<Shape::multilevel>,
      scatter_shaped<Shape::multilevel>},
     {"two_level_site", kSpansWords[static_cast<int>(Shape::site)], fits::spans<Shape::site>,
      scatter_shaped<Shape::site>},
     {"two_level_machine", kSpansWords[static_cast<int>(Shape::machine)], fits::spans<Shape::machine>,
      scatter_shaped<Shape::machine>},
    },
    {
     {"multilevel"},
     {"linear", 32 * KiB},
     {"binomial"},
    }};

}  // namespace strata::coll
