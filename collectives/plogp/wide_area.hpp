// This job's wide-area model: the P-LogP parameters that STRATA_PLOGP names
// and every world rank's site, for the algorithms that follow the model.
// Every process reads the same file and has the same cards, so every process
// builds the same trees and makes the same choices.
#pragma once

#include <algorithm>
#include <cstddef>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "base/result.hpp"
#include "collectives/plogp/model.hpp"
#include "collectives/plogp/params.hpp"

namespace strata::coll::plogp {

// A segmented tree over a group, as the model chose it for one message.
// Tree node 0 is the root. Nodes are ordered site by site: the root's site
// first, then the others in the order their first member follows the root
// (group ranks root, root + 1, ..., wrapping); inside a site, members in that
// order, the first (the root in its own site) the site's coordinator. With one
// member per site the tree is one of candidate_shapes over the sites; with
// more, MagPIe's two layers: a wide-area tree over the coordinators and one
// tree inside every site, the segments pipelined through the coordinators.
// Either layer may instead be one of seed 002's greedy trees (Candidates).
struct Plan {
    std::string name;         // "binomial", "4-ary+chain" (wide area + inside sites), "flat+greedy-6"
    Choice choice;            // the segment size and the predicted time
    Tree tree;                // over the nodes
    std::vector<int> member;  // node -> group rank
    std::vector<int> node;    // group rank -> node
    std::vector<int> parent;  // node -> its parent node (-1 at the root)

    std::size_t segments(std::size_t bytes) const {
        return bytes == 0 ? 1 : (bytes + choice.segment - 1) / choice.segment;
    }
};

// The trees a plan chooses among for one message, over nodes in a plan's
// order. First the catalogue: every shape of candidate_shapes over the sites,
// and with several members in a site, each with every one of flat, chain,
// binary and binomial inside the sites. Then seed 002's greedy trees
// (greedy_shapes) for the segment size of the catalogue's choice: over the
// sites, each with the chosen tree inside them, paced by the link from the
// root's site to the next one; and inside the sites, each under the chosen
// tree over them, paced by the largest site's own link. (The paper builds its
// trees for a segment size; the catalogue's search gives the one to build
// for, and the greedy trees then have their own segment search.)
struct Candidates {
    std::vector<Tree> trees;
    std::vector<std::string> names;  // one per tree
    std::vector<int> member;         // node -> group rank
    std::size_t catalogue = 0;       // trees[0, catalogue) are the catalogue's
    Choice catalogue_choice;         // choose() among the catalogue's trees
};

class WideArea {
public:
    // Reads STRATA_PLOGP's file, if the variable names one, and checks that
    // it has a link between every two of `sites` (world rank -> site label).
    // `gateway` (world rank -> whether its site's traffic to other sites
    // leaves through a gateway, a private site's relay; empty: none does)
    // gives the model's gateway term (model.hpp). Called once by MPI_Init,
    // before any collective; fails with "STRATA_PLOGP: FILE:LINE: what".
    static base::Status configure(const std::vector<std::string>& sites, const std::vector<bool>& gateway = {});
    // Whether STRATA_PLOGP is "measure": MPI_Init measures the parameters
    // (plogp::measure over MPI_COMM_WORLD) once the world can communicate,
    // then installs them.
    static bool measuring();
    // Makes the model of `params` (make) this job's.
    static base::Status install(Params params, const std::vector<std::string>& sites,
                                const std::vector<bool>& gateway = {});
    // The model, or null when the job gave no parameters.
    static const WideArea* get();
    // The model of `params` for a job whose world rank r is at site sites[r]
    // (and sends to other sites through a gateway when gateway[r]); the
    // failure names the first pair of sites it has no link for.
    static base::Result<std::unique_ptr<WideArea>> make(Params params, const std::vector<std::string>& sites,
                                                        const std::vector<bool>& gateway = {});

    // The link class between two world ranks, or null when the file has none
    // (two ranks of one site without a line for the site with itself).
    const Link* link(int world_a, int world_b) const;
    // Whether there is a link between every two of the world ranks `world`.
    bool covers(std::span<const int> world) const;
    // The tree and segment size the model finds fastest for `bytes` (segments
    // whole multiples of `unit`) from group rank `root` over the group
    // `world` (group rank -> world rank), which covers() must vouch for.
    // Computed once per group, root and size, then remembered.
    const Plan& plan(std::span<const int> world, int root, std::size_t bytes, std::size_t unit) const;
    // The trees plan() chooses among for `bytes` (for checking its choice:
    // optimum()). The plan is the fastest of them; a greedy tree only where it
    // is faster than the catalogue's choice.
    Candidates candidates(std::span<const int> world, int root, std::size_t bytes, std::size_t unit) const;

private:
    // Gives the edges of c.trees[from...] the link classes between their ends
    // (the trees are built over a placeholder), and the gateway term.
    void wire(Candidates& c, std::span<const int> world, std::size_t from) const;
    // What sends from the group's `node` to another site pay first: its site's
    // own link when the site's traffic leaves through a gateway, else null.
    const Link* gateway_of(std::span<const int> world, const Candidates& c, int node) const;

    Params params_;
    std::vector<int> site_of_;                    // world rank -> site index
    std::vector<bool> gateway_;                   // site index -> its traffic out goes through a gateway
    std::vector<std::vector<const Link*>> link_;  // site index x site index
    // plan()'s memory, looked up by a view of the group (Probe) so that a
    // repeated call allocates nothing.
    struct Key {
        std::vector<int> world;
        int root;
        std::size_t bytes, unit;
    };
    struct Probe {
        std::span<const int> world;
        int root;
        std::size_t bytes, unit;
    };
    struct KeyLess {
        using is_transparent = void;
        template <class A, class B>
        bool operator()(const A& a, const B& b) const {
            if (a.root != b.root || a.bytes != b.bytes || a.unit != b.unit)
                return std::tie(a.root, a.bytes, a.unit) < std::tie(b.root, b.bytes, b.unit);
            return std::lexicographical_compare(a.world.begin(), a.world.end(), b.world.begin(), b.world.end());
        }
    };
    mutable std::map<Key, std::unique_ptr<Plan>, KeyLess> plans_;
};

}  // namespace strata::coll::plogp
