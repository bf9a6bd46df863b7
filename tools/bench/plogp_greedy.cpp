// plogp-greedy: where seed 002's greedy degree-bounded trees (section 3.1;
// collectives/plogp/model.hpp, greedy_shapes) beat the catalogue of tree
// shapes under the P-LogP model, offline: no MPI job, only the model's
// arithmetic on a parameter file's links.
//
//   plogp-greedy --params FILE [--quick]
//
// FILE is a parameter file (strata-plogp writes one) with a link inside site
// A ("link A A") and one between sites A and B ("link A B"); every site of the
// grids below gets the first, every two sites the second.
//
// 1. One layer, the model alone, P = 2..64 nodes: the catalogue
//    (candidate_shapes) against the greedy trees built for the segment size of
//    the catalogue's choice, both through choose(), on four networks: one
//    site (every child behind its parent's one link), the wide area (a link
//    per pair of sites), the wide area through gateways (s_w = max(os_w, g_l))
//    and one uplink (every child behind one wide-area link).
// 2. Strata's plans (WideArea::plan) on grids of S sites with R ranks each,
//    S * R <= 64, with and without gateways: the plan against the catalogue's
//    choice, and inside the sites against a catalogue that also had the k-ary
//    trees there.
//
// What a plan costs to make is plogp-plan-time's (plogp_plan_time.cpp).
//
// Sizes 1 KiB to 4 MiB by factors of 4 (--quick: 1 KiB, 64 KiB, 4 MiB and
// fewer node counts). Markdown tables on standard output.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/file.hpp"
#include "collectives/plogp/model.hpp"
#include "collectives/plogp/params.hpp"
#include "collectives/plogp/wide_area.hpp"
#include "tools/bench/plogp_grid.hpp"

namespace {

using namespace strata::coll::plogp;

struct Options {
    std::string params;
    bool quick = false;
};

[[noreturn]] void usage(const std::string& what) {
    std::fprintf(stderr, "plogp-greedy: %s\nusage: plogp-greedy --params FILE [--quick]\n", what.c_str());
    std::exit(2);
}

Options parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--params" && i + 1 < argc) {
            o.params = argv[++i];
        } else if (a == "--quick") {
            o.quick = true;
        } else {
            usage("unknown argument '" + a + "'");
        }
    }
    if (o.params.empty()) usage("--params is required");
    return o;
}

std::string human(std::size_t bytes) {
    if (bytes >= (1u << 20)) return std::to_string(bytes >> 20) + " MiB";
    return std::to_string(bytes >> 10) + " KiB";
}

// How much faster `better` is than `base`, in percent (negative: slower).
double gain(double base, double better) { return (base - better) / base * 100; }

std::string percent(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f%%", v);
    return buf;
}

// A tie within floating noise counts as equal.
int compare(double catalogue, double greedy) {
    if (greedy < catalogue * (1 - 1e-12)) return 1;
    if (greedy > catalogue * (1 + 1e-12)) return -1;
    return 0;
}

// ---- 1. One layer, the model alone ----

enum class Net { site, wide, gateway, uplink };

struct Network {
    Net net;
    const char* name;
};

// The trees of `shapes` over n nodes with their links: one link shared
// (site, uplink) or a copy per child (`own`, which must hold n links).
std::vector<Tree> trees_of(const std::vector<TreeShape>& shapes, int n, Net net, const Link& lan, const Link& wan,
                           std::vector<Link>& own) {
    const bool shared = net == Net::site || net == Net::uplink;
    const Link& link = net == Net::site ? lan : wan;
    std::vector<Tree> out;
    for (const TreeShape& s : shapes) {
        Tree t = make_tree(s, n, link);
        for (auto& edges : t.children) {
            for (Tree::Edge& e : edges) {
                if (!shared) e.link = &own[static_cast<std::size_t>(e.child)];
                if (net == Net::gateway) e.gateway = &lan;
            }
        }
        out.push_back(std::move(t));
    }
    return out;
}

struct Tally {
    int faster = 0, equal = 0, slower = 0;
    double best = 0, worst = 0;  // the largest gain and loss, percent
    int best_at = 0, worst_at = 0;
};

void one_layer(const Network& nw, const Link& lan, const Link& wan, const std::vector<std::size_t>& sizes,
               const std::vector<int>& counts) {
    const bool shared = nw.net == Net::site || nw.net == Net::uplink;
    const Link& link = nw.net == Net::site ? lan : wan;
    const Link* gateway = nw.net == Net::gateway ? &lan : nullptr;
    for (std::size_t bytes : sizes) {
        Tally t;
        for (int n : counts) {
            std::vector<Link> own(static_cast<std::size_t>(n), wan);
            const std::vector<Tree> cat = trees_of(candidate_shapes(n), n, nw.net, lan, wan, own);
            const Choice c = choose(cat, bytes, 1);
            const std::vector<TreeShape> shapes = greedy_shapes(n, link, c.segment, shared, gateway);
            if (shapes.empty()) continue;
            const Choice g = choose(trees_of(shapes, n, nw.net, lan, wan, own), bytes, 1);
            const double pct = gain(c.time, g.time);
            const int cmp = compare(c.time, g.time);
            if (cmp == 0) ++t.equal;
            if (cmp > 0) ++t.faster;
            if (cmp < 0) ++t.slower;
            if (cmp > 0 && pct > t.best) {
                t.best = pct;
                t.best_at = n;
            }
            if (cmp < 0 && pct < t.worst) {
                t.worst = pct;
                t.worst_at = n;
            }
        }
        const std::string best = t.faster > 0 ? percent(t.best) + " (P = " + std::to_string(t.best_at) + ")" : "-";
        const std::string worst = t.slower > 0 ? percent(-t.worst) + " (P = " + std::to_string(t.worst_at) + ")" : "-";
        std::printf("| %s | %s | %d | %d | %d | %s | %s |\n", nw.name, human(bytes).c_str(), t.faster, t.equal,
                    t.slower, best.c_str(), worst.c_str());
    }
}

// ---- 2. Strata's plans ----

// The best two-layer tree with every shape of candidate_shapes over the sites
// and every one of candidate_shapes(ranks) inside them (the k-ary trees too),
// wired as WideArea wires it (a link per pair of sites, one per site inside).
double with_kary_inside(int sites, int ranks, bool gateways, const Link& lan, const Link& wan, std::size_t bytes) {
    static const Link wph, lph;
    const int n = sites * ranks;
    std::vector<Link> own(static_cast<std::size_t>(n), wan), inside(static_cast<std::size_t>(sites), lan);
    std::vector<Tree> trees;
    for (const TreeShape& w : candidate_shapes(sites)) {
        for (const TreeShape& l : candidate_shapes(ranks)) {
            Tree t = make_two_layer(w, wph, l, lph, std::vector<int>(static_cast<std::size_t>(sites), ranks));
            for (int v = 0; v < n; ++v) {
                for (Tree::Edge& e : t.children[static_cast<std::size_t>(v)]) {
                    const bool across = e.link == &wph;
                    Link* const site = &inside[static_cast<std::size_t>(v / ranks)];
                    e.link = across ? &own[static_cast<std::size_t>(e.child)] : site;
                    if (across && gateways) e.gateway = site;
                }
            }
            trees.push_back(std::move(t));
        }
    }
    return choose(trees, bytes, 1).time;
}

struct Grid {
    int sites, ranks;
};

std::vector<Grid> grids(bool quick) {
    std::vector<Grid> out;
    for (int s : {2, 4, 8, 16, 32, 64}) {
        for (int r : {1, 2, 4, 8, 16, 32}) {
            if (s * r > 64 || (quick && s * r != 64 && s * r != 8)) continue;
            out.push_back({s, r});
        }
    }
    return out;
}

std::string plan_cell(const WideArea& model, const std::vector<int>& world, Grid g, bool gateways, const Link& lan,
                      const Link& wan, std::size_t bytes) {
    const Plan& plan = model.plan(world, 0, bytes, 1);
    const Candidates c = model.candidates(world, 0, bytes, 1);
    if (plan.choice.tree < c.catalogue) return "=";
    std::string cell = plan.name + " " + percent(gain(c.catalogue_choice.time, plan.choice.time));
    if (g.ranks > 2) {
        const double kary = with_kary_inside(g.sites, g.ranks, gateways, lan, wan, bytes);
        cell += " (k-ary inside: " + percent(gain(kary, plan.choice.time)) + ")";
    }
    return cell;
}

void plans(const Link& lan, const Link& wan, const std::vector<std::size_t>& measured,
           const std::vector<std::size_t>& sizes, bool quick) {
    for (bool gateways : {false, true}) {
        for (const Grid& g : grids(quick)) {
            const std::vector<std::string> labels = strata::bench::site_labels(g.sites, g.ranks);
            const auto made = WideArea::make(strata::bench::uniform_grid(g.sites, lan, wan, measured), labels,
                                             std::vector<bool>(labels.size(), gateways));
            if (!made.ok()) usage(made.error());
            std::vector<int> world(labels.size());
            for (std::size_t r = 0; r < world.size(); ++r) world[r] = static_cast<int>(r);
            std::printf("| %dx%d | %s |", g.sites, g.ranks, gateways ? "yes" : "no");
            for (std::size_t bytes : sizes) {
                std::printf(" %s |", plan_cell(**made, world, g, gateways, lan, wan, bytes).c_str());
            }
            std::printf("\n");
        }
    }
}

}  // namespace

int main(int argc, char** argv) {
    const Options o = parse(argc, argv);
    const strata::base::Result<std::string> text = strata::base::file_read(o.params, "the parameter file");
    if (!text.ok()) usage(text.error());
    const strata::base::Result<Params> params = Params::parse(*text, o.params);
    if (!params.ok()) usage(params.error());
    const Link* lan = params->link("A", "A");
    const Link* wan = params->link("A", "B");
    if (lan == nullptr || wan == nullptr) usage(o.params + " needs the links A A and A B");

    std::vector<std::size_t> sizes;
    for (std::size_t b = 1 << 10; b <= (std::size_t{4} << 20); b *= o.quick ? 64 : 4) sizes.push_back(b);
    std::vector<int> counts;
    for (int n = 2; n <= 64; n += o.quick ? 7 : 1) counts.push_back(n);

    std::printf("One layer, the model alone: P = 2..64 nodes, greedy trees against the catalogue's choice.\n\n");
    std::printf("| network | size | greedy faster | equal | slower | largest gain | largest loss |\n");
    std::printf("|---|---|---|---|---|---|---|\n");
    for (const Network& nw : {Network{Net::site, "one site"}, Network{Net::wide, "wide area"},
                              Network{Net::gateway, "wide area, gateways"}, Network{Net::uplink, "one uplink"}}) {
        one_layer(nw, *lan, *wan, sizes, counts);
    }

    std::printf("\nStrata's plans (sites x ranks, from rank 0): '=' the catalogue's tree; else the greedy plan and its "
                "gain over the catalogue's choice (and over a catalogue with k-ary trees inside the sites too).\n\n");
    std::printf("| grid | gateways |");
    for (std::size_t bytes : sizes) std::printf(" %s |", human(bytes).c_str());
    std::printf("\n|---|---|");
    for (std::size_t i = 0; i < sizes.size(); ++i) std::printf("---|");
    std::printf("\n");
    plans(*lan, *wan, params->sizes(), sizes, o.quick);
    return 0;
}
