#include "collectives/allgatherv/allgatherv.hpp"

namespace strata::coll {

namespace {
constexpr std::size_t KiB = 1024;
const base::KnobString knob{"STRATA_ALLGATHERV_ALGORITHM", "",
                             "MPI_Allgatherv algorithm (empty: by the rules; strata-info lists the algorithms)"};
}  // namespace

const Registry<AllgathervFn> allgatherv_algorithms{
    "allgatherv", knob,
    {
     {"bruck", "none", fits::any, allgatherv_bruck},
     {"ring", "none", fits::any, allgatherv_ring},
     {"multilevel", kSpansWords[static_cast<int>(Shape::multilevel)], fits::spans<Shape::multilevel>,
      allgatherv_shaped<Shape::multilevel>},
     {"two_level_site", kSpansWords[static_cast<int>(Shape::site)], fits::spans<Shape::site>,
      allgatherv_shaped<Shape::site>},
     {"two_level_machine", kSpansWords[static_cast<int>(Shape::machine)], fits::spans<Shape::machine>,
      allgatherv_shaped<Shape::machine>},
    },
    {
     {"multilevel"},
     {"ring", 80 * KiB},
     {"bruck"},
    }};

}  // namespace strata::coll
