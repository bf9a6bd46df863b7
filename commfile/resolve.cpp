// From definitions to groups of world ranks, for one job's processor names.
#include "commfile/comm_file.hpp"

#include <algorithm>
#include <numeric>

namespace strata::commfile {

namespace {

class Resolver {
public:
    Resolver(const File& f, const std::vector<std::string>& names) : f_(f), names_(names), world_(names.size()) {
        std::iota(world_.begin(), world_.end(), 0);
    }

    std::vector<Resolved> all() {
        std::vector<Resolved> out(f_.defs.size());
        // A parent comes before its children, and intercomms after every comm.
        for (std::size_t i = 0; i < f_.defs.size(); ++i) {
            const Definition& d = f_.defs[i];
            if (d.inter) {
                out[i] = inter(d, out[static_cast<std::size_t>(d.first)], out[static_cast<std::size_t>(d.second)]);
            } else if (d.parent >= 0 && !out[static_cast<std::size_t>(d.parent)].error.empty()) {
                out[i].error = out[static_cast<std::size_t>(d.parent)].error;
            } else {
                out[i] = comm(d, d.parent < 0 ? world_ : out[static_cast<std::size_t>(d.parent)].group);
            }
        }
        return out;
    }

private:
    Resolved comm(const Definition& d, const std::vector<int>& domain) {
        Resolved out;
        std::vector<std::vector<int>> picked(d.members.size());
        std::vector<int> taken_by(names_.size(), -1);  // world rank -> member
        std::size_t size = 0;
        for (std::size_t i = 0; i < d.members.size(); ++i) {
            const Member& m = d.members[i];
            picked[i] = select(m, domain);
            if (picked[i].empty()) {
                out.error = f_.at(m.line) + missing(d, m);
                return out;
            }
            for (int r : picked[i]) {
                int& owner = taken_by[static_cast<std::size_t>(r)];
                if (owner >= 0) {
                    out.error = f_.at(m.line) + "processor '" + names_[static_cast<std::size_t>(r)] +
                                "' is selected twice in comm '" + d.name + "' (also at line " +
                                std::to_string(d.members[static_cast<std::size_t>(owner)].line) + ")";
                    return out;
                }
                owner = static_cast<int>(i);
            }
            size += picked[i].size();
        }
        // Keyed members first, at their ranks; the others fill the free ranks in order.
        out.group.assign(size, -1);
        std::vector<int> rank_owner(size, -1);
        for (std::size_t i = 0; i < d.members.size(); ++i) {
            const Member& m = d.members[i];
            if (m.key < 0) continue;
            for (std::size_t j = 0; j < picked[i].size(); ++j) {
                const std::size_t at = static_cast<std::size_t>(m.key) + j;
                if (at >= size) {
                    out.error = f_.at(m.line) + "key " + std::to_string(m.key) + " of processor '" + m.text +
                                "' puts a process at rank " + std::to_string(at) + ", beyond comm '" + d.name +
                                "' of size " + std::to_string(size);
                    out.group.clear();
                    return out;
                }
                if (rank_owner[at] >= 0) {
                    out.error = f_.at(m.line) + "key " + std::to_string(m.key) + " of processor '" + m.text +
                                "' puts a process at rank " + std::to_string(at) + ", which processor '" +
                                d.members[static_cast<std::size_t>(rank_owner[at])].text + "' (line " +
                                std::to_string(d.members[static_cast<std::size_t>(rank_owner[at])].line) +
                                ") takes too";
                    out.group.clear();
                    return out;
                }
                rank_owner[at] = static_cast<int>(i);
                out.group[at] = picked[i][j];
            }
        }
        std::size_t free = 0;
        for (std::size_t i = 0; i < d.members.size(); ++i) {
            if (d.members[i].key >= 0) continue;
            for (int r : picked[i]) {
                while (out.group[free] >= 0) ++free;
                out.group[free] = r;
            }
        }
        return out;
    }

    // The processes one member names, among `domain` (the parent's, in its rank order).
    std::vector<int> select(const Member& m, const std::vector<int>& domain) const {
        std::vector<int> out;
        if (!m.re) {
            for (int r : domain) {
                if (names_[static_cast<std::size_t>(r)] == m.text) out.push_back(r);
            }
            return out;
        }
        std::map<std::string, std::vector<int>> matched;  // alphabetical order of the names
        for (int r : domain) {
            const std::string& n = names_[static_cast<std::size_t>(r)];
            if (m.re->match(n)) matched[n].push_back(r);
        }
        for (const auto& [name, ranks] : matched) out.insert(out.end(), ranks.begin(), ranks.end());
        return out;
    }

    std::string missing(const Definition& d, const Member& m) const {
        const std::string in_parent =
            d.parent < 0 ? std::string()
                         : " of the parent comm '" + f_.defs[static_cast<std::size_t>(d.parent)].name + "'";
        if (m.re) return "'" + m.text + "' matches no processor name of the job's processes" + in_parent;
        const bool anywhere = std::find(names_.begin(), names_.end(), m.text) != names_.end();
        if (anywhere && d.parent >= 0)
            return "processor '" + m.text + "' is not in the parent comm '" +
                   f_.defs[static_cast<std::size_t>(d.parent)].name + "'";
        return "no process of the job has the processor name '" + m.text + "'";
    }

    Resolved inter(const Definition& d, const Resolved& a, const Resolved& b) const {
        Resolved out;
        if (!a.error.empty() || !b.error.empty()) {
            out.error = a.error.empty() ? b.error : a.error;
            return out;
        }
        for (int r : a.group) {
            if (std::find(b.group.begin(), b.group.end(), r) != b.group.end()) {
                out.error = f_.at(d.line) + "the sides of intercomm '" + d.name + "' overlap: processor '" +
                            names_[static_cast<std::size_t>(r)] + "' is in both '" +
                            f_.defs[static_cast<std::size_t>(d.first)].name + "' and '" +
                            f_.defs[static_cast<std::size_t>(d.second)].name + "'";
                return out;
            }
        }
        out.group = a.group;
        out.second = b.group;
        return out;
    }

    const File& f_;
    const std::vector<std::string>& names_;
    std::vector<int> world_;
};

}  // namespace

std::vector<Resolved> resolve(const File& file, const std::vector<std::string>& processor_names) {
    return Resolver(file, processor_names).all();
}

}  // namespace strata::commfile
