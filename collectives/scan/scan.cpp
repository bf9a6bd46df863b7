#include "collectives/scan/scan.hpp"

namespace strata::coll {

namespace {
const base::KnobString knob{"STRATA_SCAN_ALGORITHM", "",
                             "MPI_Scan algorithm (empty: by the rules; strata-info lists the algorithms)"};
}  // namespace

const Registry<ScanFn> scan_algorithms{
    "scan", knob,
    {
     {"recursive_doubling", "none", fits::any, scan_recursive_doubling},
     {"linear", "none", fits::any, scan_linear},
     {"multilevel", kSpansOrderedWords[static_cast<int>(Shape::multilevel)], fits::spans_ordered<Shape::multilevel>,
      scan_shaped<Shape::multilevel>},
     {"two_level_site", kSpansOrderedWords[static_cast<int>(Shape::site)], fits::spans_ordered<Shape::site>,
      scan_shaped<Shape::site>},
     {"two_level_machine", kSpansOrderedWords[static_cast<int>(Shape::machine)], fits::spans_ordered<Shape::machine>,
      scan_shaped<Shape::machine>},
    },
    {
     {"multilevel"},
     {"recursive_doubling"},
    }};

}  // namespace strata::coll
