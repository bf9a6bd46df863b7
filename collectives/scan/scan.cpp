#include "collectives/scan/scan.hpp"

namespace strata::coll {

namespace {
const base::KnobString knob{"STRATA_SCAN_ALGORITHM", "",
                            "MPI_Scan algorithm (empty: by the rules; strata-info lists the algorithms)"};
}  // namespace

const Registry<ScanFn> scan_algorithms{"scan",
                                       knob,
                                       {
                                           {"recursive_doubling", "none", fits::any, scan_recursive_doubling},
                                           {"linear", "none", fits::any, scan_linear},
                                       },
                                       levels<ScanFn, scan_multilevel, Order::always>(),
                                       {
                                           {"multilevel"},
                                           {"recursive_doubling"},
                                       }};

}  // namespace strata::coll
