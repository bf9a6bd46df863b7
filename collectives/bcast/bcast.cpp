#include "collectives/bcast/bcast.hpp"
#include "wireup/topology.hpp"

namespace strata::coll {

namespace {
const base::KnobString knob{"STRATA_BCAST_ALGORITHM", "",
                            "MPI_Bcast algorithm (empty: by the rules; strata-info lists the algorithms)"};
}  // namespace

const Registry<BcastFn> bcast_algorithms{
    "bcast",
    knob,
    {
        {"binomial", "none", fits::any, bcast_binomial},
        {"linear", "none", fits::any, bcast_linear},
        {"segmented", "parameters from STRATA_PLOGP for the group's links", fits::modelled, bcast_segmented},
        {"scatter_allgather", "none", fits::any, bcast_scatter_allgather},
    },
    levels<BcastFn, bcast_multilevel>(),
    {
        // Across sites, with measured parameters (STRATA_PLOGP): in the segments
        // and down the tree the model finds fastest, through the sites'
        // coordinators when sites have several processes.
        {"segmented", 0, 1, 0},
        // Between sites and between the machines of a site the message crosses each
        // link once (the stages of the representatives of sites and machines).
        {"multilevel"},
        // Between the machines of one site (a multilevel stage, or a group
        // without more levels), where the parameters have the site's own
        // links: the segments and the tree the model finds fastest there too.
        {"segmented", 0, 1, 1},
        {"binomial", 0, 1, 0},
        {"binomial", 0, 1, 1},
        // Inside one host (every process reaches the others over a fast method),
        // 3 or 4 processes: each receiver copies from the root's buffer at the
        // same time, in one round instead of the tree's two dependent ones.
        {"linear", 0, 3, wireup::kVendor, 4},
        {"linear", 0, 3, wireup::kNode, 4},
        // Long messages on enough processes: scatter + ring allgather beats the tree.
        {"scatter_allgather", 12 * KiB, 8},
        {"binomial"},
    }};

}  // namespace strata::coll
