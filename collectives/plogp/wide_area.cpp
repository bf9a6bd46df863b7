#include "collectives/plogp/wide_area.hpp"

#include <algorithm>
#include <numeric>
#include <optional>

#include "base/file.hpp"
#include "base/knob.hpp"

namespace strata::coll::plogp {

namespace {

const base::KnobString params_file{"STRATA_PLOGP", "",
                                   "a P-LogP parameter file (strata-plogp writes one), or 'measure' to measure "
                                   "them in MPI_Init: wide-area collectives choose their tree and segment size by "
                                   "the model; empty: no model"};

constexpr const char* kMeasure = "measure";

std::unique_ptr<WideArea>& current() {
    static std::unique_ptr<WideArea> model;
    return model;
}

// Plans remembered at most; a program that broadcasts many sizes starts over.
constexpr std::size_t kPlans = 256;

// The shapes tried inside a site (its members are close: the deep trees of
// candidate_shapes pay off across the wide area).
const std::vector<TreeShape> kSiteShapes{
    {ShapeKind::flat}, {ShapeKind::chain}, {ShapeKind::binary}, {ShapeKind::binomial}};

}  // namespace

base::Status WideArea::configure(const std::vector<std::string>& sites, const std::vector<bool>& gateway) {
    const std::string& path = params_file.get();
    if (path.empty() || path == kMeasure) return {};
    base::Result<std::string> text = base::file_read(path, "the parameter file");
    if (!text.ok()) return std::move(text).failure().prefixed("STRATA_PLOGP: ");
    base::Result<Params> params = Params::parse(*text, path);
    if (!params.ok()) return std::move(params).failure().prefixed("STRATA_PLOGP: ");
    base::Status installed = install(std::move(*params), sites, gateway);
    if (!installed.ok()) {
        std::string what = "STRATA_PLOGP: ";
        what += path;
        what += ": ";
        what += installed.error();
        what += " (this job's sites)";
        return base::Error{what};
    }
    return {};
}

bool WideArea::measuring() { return params_file.get() == kMeasure; }

base::Status WideArea::install(Params params, const std::vector<std::string>& sites,
                               const std::vector<bool>& gateway) {
    base::Result<std::unique_ptr<WideArea>> model = make(std::move(params), sites, gateway);
    if (!model.ok()) return std::move(model).failure();
    current() = std::move(*model);
    return {};
}

base::Result<std::unique_ptr<WideArea>> WideArea::make(Params params, const std::vector<std::string>& sites,
                                                       const std::vector<bool>& gateway) {
    base::Status covered = params.covers(sites);
    if (!covered.ok()) return std::move(covered).failure();
    auto model = std::make_unique<WideArea>();
    model->params_ = std::move(params);
    std::vector<std::string> names;
    for (std::size_t r = 0; r < sites.size(); ++r) {
        auto at = std::find(names.begin(), names.end(), sites[r]);
        if (at == names.end()) {
            at = names.insert(names.end(), sites[r]);
            model->gateway_.push_back(false);
        }
        const auto index = static_cast<std::size_t>(at - names.begin());
        model->site_of_.push_back(static_cast<int>(index));
        if (r < gateway.size() && gateway[r]) model->gateway_[index] = true;
    }
    for (const std::string& a : names) {
        auto& row = model->link_.emplace_back();
        for (const std::string& b : names) row.push_back(model->params_.link(a, b));
    }
    return model;
}

const WideArea* WideArea::get() { return current().get(); }

const Link* WideArea::link(int world_a, int world_b) const {
    return link_[static_cast<std::size_t>(site_of_[static_cast<std::size_t>(world_a)])]
                [static_cast<std::size_t>(site_of_[static_cast<std::size_t>(world_b)])];
}

bool WideArea::covers(std::span<const int> world) const {
    std::vector<int> members(link_.size(), 0);  // per site
    for (int w : world) ++members[static_cast<std::size_t>(site_of_[static_cast<std::size_t>(w)])];
    for (std::size_t a = 0; a < members.size(); ++a) {
        if (members[a] == 0) continue;
        for (std::size_t b = a; b < members.size(); ++b) {
            if (members[b] == 0 || (a == b && members[a] < 2)) continue;
            if (link_[a][b] == nullptr) return false;
        }
    }
    return true;
}

namespace {

// A plan's nodes: the group's ranks site by site, the sites in the order their
// first member follows the root, and how many each site has.
struct Order {
    std::vector<int> member;  // node -> group rank
    std::vector<int> sizes;   // per site, in that order
};

Order order_of(const std::vector<int>& site, int root) {  // site: group rank -> site index
    const int p = static_cast<int>(site.size());
    std::vector<int> sites;
    std::vector<std::vector<int>> members;
    for (int i = 0; i < p; ++i) {
        const int r = (root + i) % p;
        auto at = std::find(sites.begin(), sites.end(), site[static_cast<std::size_t>(r)]);
        if (at == sites.end()) {
            sites.push_back(site[static_cast<std::size_t>(r)]);
            members.emplace_back();
            at = sites.end() - 1;
        }
        members[static_cast<std::size_t>(at - sites.begin())].push_back(r);
    }
    Order o;
    for (const std::vector<int>& m : members) {
        o.member.insert(o.member.end(), m.begin(), m.end());
        o.sizes.push_back(static_cast<int>(m.size()));
    }
    return o;
}

// One candidate's shapes: over the sites, and inside them (none: one layer).
struct Shapes {
    TreeShape wan;
    std::optional<TreeShape> lan;
};

// Builds the trees of `shapes` over the nodes of `o` into c, over a
// placeholder link (WideArea::wire gives the edges theirs).
void add_trees(Candidates& c, const std::vector<Shapes>& shapes, const Order& o) {
    static const Link placeholder;
    const int p = static_cast<int>(o.member.size());
    for (const Shapes& s : shapes) {
        if (s.lan) {
            c.trees.push_back(make_two_layer(s.wan, placeholder, *s.lan, placeholder, o.sizes));
            c.names.push_back(s.wan.name() + "+" + s.lan->name());
        } else {
            c.trees.push_back(make_tree(s.wan, p, placeholder));
            c.names.push_back(s.wan.name());
        }
    }
}

}  // namespace

const Link* WideArea::gateway_of(std::span<const int> world, const Candidates& c, int node) const {
    const int w = world[static_cast<std::size_t>(c.member[static_cast<std::size_t>(node)])];
    return gateway_[static_cast<std::size_t>(site_of_[static_cast<std::size_t>(w)])] ? link(w, w) : nullptr;
}

void WideArea::wire(Candidates& c, std::span<const int> world, std::size_t from) const {
    const auto world_of = [&](int node) {
        return world[static_cast<std::size_t>(c.member[static_cast<std::size_t>(node)])];
    };
    const auto site = [&](int node) { return site_of_[static_cast<std::size_t>(world_of(node))]; };
    for (std::size_t i = from; i < c.trees.size(); ++i) {
        Tree& t = c.trees[i];
        for (int v = 0; v < t.size(); ++v) {
            for (Tree::Edge& e : t.children[static_cast<std::size_t>(v)]) {
                e.link = link(world_of(v), world_of(e.child));
                // An edge out of a site with a gateway pays the site's own
                // link first (null when the parameters have none for it: one
                // machine there).
                if (site(v) != site(e.child)) e.gateway = gateway_of(world, c, v);
            }
        }
    }
}

Candidates WideArea::candidates(std::span<const int> world, int root, std::size_t bytes, std::size_t unit) const {
    std::vector<int> site;  // group rank -> site index
    for (int w : world) site.push_back(site_of_[static_cast<std::size_t>(w)]);
    const Order o = order_of(site, root);
    const auto sites = static_cast<int>(o.sizes.size());
    const bool layered = std::any_of(o.sizes.begin(), o.sizes.end(), [](int s) { return s > 1; });
    const auto world_of = [&](int node) {
        return world[static_cast<std::size_t>(o.member[static_cast<std::size_t>(node)])];
    };

    Candidates c;
    c.member = o.member;
    std::vector<Shapes> shapes;
    for (const TreeShape& wan : candidate_shapes(sites)) {
        if (!layered) {
            shapes.push_back({wan, std::nullopt});
            continue;
        }
        for (const TreeShape& lan : kSiteShapes) shapes.push_back({wan, lan});
    }
    add_trees(c, shapes, o);
    wire(c, world, 0);
    c.catalogue = c.trees.size();
    c.catalogue_choice = choose(c.trees, bytes, unit);

    // The greedy trees for the chosen segment size, each beside the chosen
    // tree's other layer. Over the sites the root's coordinator (node 0)
    // sends to a site of its own per child, with the gateway term.
    const Shapes& best = shapes[c.catalogue_choice.tree];
    const std::size_t segment = c.catalogue_choice.segment;
    std::vector<Shapes> more;
    if (sites >= 3) {
        const Link& wan = *link(world_of(0), world_of(o.sizes[0]));
        for (const TreeShape& g : greedy_shapes(sites, wan, segment, false, gateway_of(world, c, 0)))
            more.push_back({g, best.lan});
    }
    if (layered) {
        // Inside a site the children share its link; the largest site's link
        // paces the trees of every site.
        const auto largest = std::max_element(o.sizes.begin(), o.sizes.end()) - o.sizes.begin();
        const int coordinator = std::accumulate(o.sizes.begin(), o.sizes.begin() + largest, 0);
        const Link& lan = *link(world_of(coordinator), world_of(coordinator));
        for (const TreeShape& g : greedy_shapes(o.sizes[static_cast<std::size_t>(largest)], lan, segment, true))
            more.push_back({best.wan, g});
    }
    add_trees(c, more, o);
    wire(c, world, c.catalogue);
    return c;
}

const Plan& WideArea::plan(std::span<const int> world, int root, std::size_t bytes, std::size_t unit) const {
    if (auto at = plans_.find(Probe{world, root, bytes, unit}); at != plans_.end()) return *at->second;
    if (plans_.size() >= kPlans) plans_.clear();
    Key key{std::vector<int>(world.begin(), world.end()), root, bytes, unit};

    Candidates c = candidates(world, root, bytes, unit);
    auto plan = std::make_unique<Plan>();
    const int p = static_cast<int>(world.size());
    plan->member = std::move(c.member);
    plan->node.assign(static_cast<std::size_t>(p), 0);
    for (int v = 0; v < p; ++v) plan->node[static_cast<std::size_t>(plan->member[static_cast<std::size_t>(v)])] = v;
    // choose() over all of c.trees, without searching the catalogue's again:
    // the earlier tree wins a tie.
    plan->choice = c.catalogue_choice;
    if (c.trees.size() > c.catalogue) {
        const Choice g = choose(std::span<const Tree>(c.trees).subspan(c.catalogue), bytes, unit);
        if (g.time < plan->choice.time) plan->choice = {c.catalogue + g.tree, g.segment, g.time};
    }
    plan->name = c.names[plan->choice.tree];
    plan->tree = std::move(c.trees[plan->choice.tree]);
    plan->parent.assign(static_cast<std::size_t>(p), -1);
    for (int v = 0; v < p; ++v) {
        for (const Tree::Edge& e : plan->tree.children[static_cast<std::size_t>(v)]) {
            plan->parent[static_cast<std::size_t>(e.child)] = v;
        }
    }
    return *plans_.emplace(std::move(key), std::move(plan)).first->second;
}

}  // namespace strata::coll::plogp
