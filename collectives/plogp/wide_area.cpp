#include "collectives/plogp/wide_area.hpp"

#include <iterator>
#include <map>
#include <memory>
#include <optional>

#include "base/file.hpp"
#include "base/knob.hpp"

namespace strata::coll::plogp {

namespace {

const base::KnobString params_file{"STRATA_PLOGP", "",
                                   "a P-LogP parameter file (strata-plogp writes one): wide-area broadcasts "
                                   "choose their tree and segment size by the model; empty: no model"};

std::unique_ptr<WideArea>& current() {
    static std::unique_ptr<WideArea> model;
    return model;
}

}  // namespace

bool WideArea::configure(const std::vector<std::string>& sites, std::string& error) {
    const std::string& path = params_file.get();
    if (path.empty()) return true;
    std::string why;
    const std::optional<std::string> text = base::file_read(path, "the parameter file", why);
    if (!text) {
        error = "STRATA_PLOGP: " + why;
        return false;
    }
    auto model = std::make_unique<WideArea>();
    if (!Params::parse(*text, path, model->params_, why)) {
        error = "STRATA_PLOGP: " + why;
        return false;
    }
    if (!model->params_.covers(sites, why)) {
        error = "STRATA_PLOGP: " + path + ": " + why + " (this job's sites)";
        return false;
    }
    model->sites_ = sites;
    current() = std::move(model);
    return true;
}

const WideArea* WideArea::get() { return current().get(); }

const Link* WideArea::link(int world_a, int world_b) const {
    return params_.link(sites_[static_cast<std::size_t>(world_a)], sites_[static_cast<std::size_t>(world_b)]);
}

bool WideArea::covers(const std::vector<int>& world) const {
    std::map<std::string, int> members;  // per site of `world`
    for (int w : world) ++members[sites_[static_cast<std::size_t>(w)]];
    for (auto a = members.begin(); a != members.end(); ++a) {
        if (a->second > 1 && params_.link(a->first, a->first) == nullptr) return false;
        for (auto b = std::next(a); b != members.end(); ++b) {
            if (params_.link(a->first, b->first) == nullptr) return false;
        }
    }
    return true;
}

Tree WideArea::tree(TreeShape shape, int n, const std::function<int(int)>& world_of) const {
    static const Link placeholder;
    Tree t = make_tree(shape, n, placeholder);
    for (int v = 0; v < n; ++v) {
        for (Tree::Edge& e : t.children[static_cast<std::size_t>(v)]) e.link = link(world_of(v), world_of(e.child));
    }
    return t;
}

}  // namespace strata::coll::plogp
