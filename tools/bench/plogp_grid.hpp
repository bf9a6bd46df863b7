// What plogp-greedy and plogp-plan-time share: the parameters of a uniform
// grid (every site the same link inside it, every two sites the same link
// between them) and its sites' labels, "S0", "S1", ... Only the interfaces
// collectives/plogp has had since the model's first version, so that
// plogp-plan-time still builds against an earlier commit's model.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "collectives/plogp/params.hpp"

namespace strata::bench {

// "S3". Built by appending: GCC 12 at -O3 warns -Wrestrict inside libstdc++
// on a literal + std::string&& (GCC bug 105329).
inline std::string site_label(int site) {
    std::string out = "S";
    out += std::to_string(site);
    return out;
}

// The label of each rank of `sites` sites of `ranks` ranks, site by site.
inline std::vector<std::string> site_labels(int sites, int ranks) {
    std::vector<std::string> out;
    for (int s = 0; s < sites; ++s) out.insert(out.end(), static_cast<std::size_t>(ranks), site_label(s));
    return out;
}

inline coll::plogp::Params uniform_grid(int sites, const coll::plogp::Link& inside, const coll::plogp::Link& between,
                                        const std::vector<std::size_t>& sizes) {
    coll::plogp::Params p;
    p.set_sizes(sizes);
    for (int a = 0; a < sites; ++a) {
        p.set(site_label(a), site_label(a), inside);
        for (int b = a + 1; b < sites; ++b) p.set(site_label(a), site_label(b), between);
    }
    return p;
}

}  // namespace strata::bench
