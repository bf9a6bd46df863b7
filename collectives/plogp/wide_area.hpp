// This job's wide-area model: the P-LogP parameters that STRATA_PLOGP names
// and every world rank's site, for the algorithms that follow the model.
// Every process reads the same file and has the same cards, so every process
// builds the same trees and makes the same choices.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "collectives/plogp/model.hpp"
#include "collectives/plogp/params.hpp"

namespace strata::coll::plogp {

class WideArea {
public:
    // Reads STRATA_PLOGP's file, if the variable is set, and checks that it
    // has a link between every two of `sites` (world rank -> site label).
    // Called once by MPI_Init, before any collective; false with `error`
    // ("STRATA_PLOGP: FILE:LINE: what").
    static bool configure(const std::vector<std::string>& sites, std::string& error);
    // The model, or null when the job gave no parameters.
    static const WideArea* get();

    // The link class between two world ranks, or null when the file has none
    // (two ranks of one site without a line for the site with itself).
    const Link* link(int world_a, int world_b) const;
    // Whether there is a link between every two of the world ranks `world`.
    bool covers(const std::vector<int>& world) const;
    // The tree of `shape` over n nodes, node i being world rank world_of(i),
    // each edge with the link class between its ends (which covers() vouches for).
    Tree tree(TreeShape shape, int n, const std::function<int(int)>& world_of) const;

private:
    Params params_;
    std::vector<std::string> sites_;
};

}  // namespace strata::coll::plogp
