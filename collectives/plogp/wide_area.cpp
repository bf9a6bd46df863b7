#include "collectives/plogp/wide_area.hpp"

#include <algorithm>

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

Candidates WideArea::candidates(std::span<const int> world, int root) const {
    Candidates c;
    const int p = static_cast<int>(world.size());
    const auto site = [&](int rank) {
        return site_of_[static_cast<std::size_t>(world[static_cast<std::size_t>(rank)])];
    };
    // Sites in the order their first member follows the root, then the nodes site by site.
    std::vector<int> sites;
    std::vector<std::vector<int>> members;
    for (int i = 0; i < p; ++i) {
        const int r = (root + i) % p;
        auto at = std::find(sites.begin(), sites.end(), site(r));
        if (at == sites.end()) {
            sites.push_back(site(r));
            members.emplace_back();
            at = sites.end() - 1;
        }
        members[static_cast<std::size_t>(at - sites.begin())].push_back(r);
    }
    std::vector<int> sizes;
    for (const std::vector<int>& m : members) {
        c.member.insert(c.member.end(), m.begin(), m.end());
        sizes.push_back(static_cast<int>(m.size()));
    }

    // The trees, built over a placeholder link, then each edge given the
    // link class between its ends.
    static const Link placeholder;
    const bool layered = std::any_of(sizes.begin(), sizes.end(), [](int s) { return s > 1; });
    for (const TreeShape& wan : candidate_shapes(static_cast<int>(sites.size()))) {
        if (!layered) {
            c.trees.push_back(make_tree(wan, p, placeholder));
            c.names.push_back(wan.name());
            continue;
        }
        for (const TreeShape& lan : kSiteShapes) {
            c.trees.push_back(make_two_layer(wan, placeholder, lan, placeholder, sizes));
            c.names.push_back(wan.name() + "+" + lan.name());
        }
    }
    const auto world_of = [&](int node) {
        return world[static_cast<std::size_t>(c.member[static_cast<std::size_t>(node)])];
    };
    // An edge out of a site with a gateway pays the site's own link first
    // (null when the parameters have none for it: one machine there).
    const auto gateway_of = [&](int node) -> const Link* {
        const int w = world_of(node);
        return gateway_[static_cast<std::size_t>(site_of_[static_cast<std::size_t>(w)])] ? link(w, w) : nullptr;
    };
    for (Tree& t : c.trees) {
        for (int v = 0; v < p; ++v) {
            for (Tree::Edge& e : t.children[static_cast<std::size_t>(v)]) {
                e.link = link(world_of(v), world_of(e.child));
                if (site(c.member[static_cast<std::size_t>(v)]) != site(c.member[static_cast<std::size_t>(e.child)]))
                    e.gateway = gateway_of(v);
            }
        }
    }
    return c;
}

const Plan& WideArea::plan(std::span<const int> world, int root, std::size_t bytes, std::size_t unit) const {
    if (auto at = plans_.find(Probe{world, root, bytes, unit}); at != plans_.end()) return *at->second;
    if (plans_.size() >= kPlans) plans_.clear();
    Key key{std::vector<int>(world.begin(), world.end()), root, bytes, unit};

    Candidates c = candidates(world, root);
    auto plan = std::make_unique<Plan>();
    const int p = static_cast<int>(world.size());
    plan->member = std::move(c.member);
    plan->node.assign(static_cast<std::size_t>(p), 0);
    for (int v = 0; v < p; ++v) plan->node[static_cast<std::size_t>(plan->member[static_cast<std::size_t>(v)])] = v;
    plan->choice = choose(c.trees, bytes, unit);
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
