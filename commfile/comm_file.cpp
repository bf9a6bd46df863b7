#include "commfile/comm_file.hpp"

#include "base/file.hpp"
#include "commfile/tree.hpp"

#include <algorithm>
#include <set>

namespace strata::commfile {

const std::vector<int>* File::named(const std::string& name) const {
    const auto it = by_name.find(name);
    return it == by_name.end() ? nullptr : &it->second;
}

std::string File::at(int line) const { return where + ":" + std::to_string(line) + ": "; }

bool member_is_pattern(const std::string& text) { return text.find_first_of("*+?[](){}|^$\\") != std::string::npos; }

namespace {

// Gives the tree its meaning: definitions, colours, parents and sides, and
// every check the file alone allows.
class Builder {
public:
    explicit Builder(File& file) : f_(file) {}

    base::Status top(const Node& root) {
        for (const Node& n : root.children) {
            if (base::Status s = child(n, -1); !s) return s;
        }
        for (const Node* node : intercomms_) {
            if (base::Status s = intercomm(*node); !s) return s;
        }
        for (std::size_t i = 0; i < f_.defs.size(); ++i) {
            Definition& d = f_.defs[i];
            std::vector<int>& same = f_.by_name[d.name];
            if (!same.empty() && f_.defs[static_cast<std::size_t>(same.front())].inter != d.inter) {
                // Intercomms come after every comm: `d` is the intercomm.
                const Definition& comm = f_.defs[static_cast<std::size_t>(same.front())];
                return fail(d.line, "'" + d.name + "' names both an intercomm and the comm at line " +
                                        std::to_string(comm.line));
            }
            d.color = static_cast<int>(same.size());
            if (same.empty()) f_.names.push_back(d.name);
            same.push_back(static_cast<int>(i));
        }
        return {};
    }

private:
    base::Status child(const Node& n, int parent) {
        if (n.element == "comm") return comm(n, parent);
        if (n.element == "intercomm") intercomms_.push_back(&n);
        return {};
    }

    base::Status comm(const Node& n, int parent) {
        Definition d;
        d.name = n.fields.at("name").value;
        d.line = n.line;
        d.parent = parent;
        if (base::Status s = name_check(d.name, n.line); !s) return s;
        std::map<int, int> keys;  // key -> line
        for (const Node& c : n.children) {
            if (c.element != "processor") continue;
            Member m;
            m.text = c.fields.at("name").value;
            m.line = c.line;
            // A processor name has 255 characters at most (MPI_MAX_PROCESSOR_NAME),
            // so 510 fit any name with its regular expression characters
            // escaped; the bound also limits the regular expression engine's
            // recursion.
            if (m.text.size() > 510) {
                return fail(c.line, "the processor '" + m.text.substr(0, 20) + "...' is longer than 510 characters");
            }
            if (const auto k = c.fields.find("key"); k != c.fields.end()) {
                m.key = k->second.number;
                if (const auto [it, fresh] = keys.emplace(m.key, c.line); !fresh) {
                    return fail(c.line, "key " + k->second.value + " is given twice in comm '" + d.name +
                                            "' (first at line " + std::to_string(it->second) + ")");
                }
            }
            if (base::Status s = pattern_compile(m); !s) return s;
            if (parent >= 0) {
                if (base::Status s = in_parent(m, f_.defs[static_cast<std::size_t>(parent)]); !s) return s;
            }
            d.members.push_back(std::move(m));
        }
        if (d.members.empty()) return fail(n.line, "comm '" + d.name + "' has no processor");
        const int index = static_cast<int>(f_.defs.size());
        f_.defs.push_back(std::move(d));
        for (const Node& c : n.children) {
            if (base::Status s = child(c, index); !s) return s;
        }
        return {};
    }

    base::Status intercomm(const Node& n) {
        Definition d;
        d.inter = true;
        d.name = n.fields.at("name").value;
        d.line = n.line;
        if (base::Status s = name_check(d.name, n.line); !s) return s;
        const Node* sides[2] = {nullptr, nullptr};
        for (const Node& c : n.children) {
            const Node*& side = sides[c.element == "first" ? 0 : 1];
            if (side != nullptr) {
                return fail(c.line, "intercomm '" + d.name + "' has a second <" + c.element + "> (first at line " +
                                        std::to_string(side->line) + ")");
            }
            side = &c;
        }
        for (int s = 0; s < 2; ++s) {
            if (sides[s] == nullptr) {
                return fail(n.line, "intercomm '" + d.name + "' needs a <" + (s == 0 ? "first" : "second") + ">");
            }
            base::Result<int> found = side_find(*sides[s]);
            if (!found) return found.failure();
            (s == 0 ? d.first : d.second) = *found;
        }
        const Definition& a = f_.defs[static_cast<std::size_t>(d.first)];
        const Definition& b = f_.defs[static_cast<std::size_t>(d.second)];
        if (a.parent != b.parent) {
            return fail(n.line, "the sides of intercomm '" + d.name + "' have different parents: '" + a.name + "' is " +
                                    parent_text(a) + ", '" + b.name + "' is " + parent_text(b));
        }
        d.parent = a.parent;
        if (base::Status s = disjoint(d, a, b); !s) return s;
        f_.defs.push_back(std::move(d));
        return {};
    }

    // The comm one side names (and its colour).
    base::Result<int> side_find(const Node& side) {
        const std::string& name = side.fields.at("name").value;
        std::vector<int> same;
        for (std::size_t i = 0; i < f_.defs.size(); ++i) {
            if (!f_.defs[i].inter && f_.defs[i].name == name) same.push_back(static_cast<int>(i));
        }
        if (same.empty()) return fail(side.line, "no comm is named '" + name + "'");
        int color = 0;
        if (const auto c = side.fields.find("color"); c != side.fields.end()) color = c->second.number;
        if (color >= static_cast<int>(same.size())) {
            return fail(side.line, "color " + std::to_string(color) +
                                       " is out of range: " + std::to_string(same.size()) + " comm(s) are named '" +
                                       name + "' (colors 0 to " + std::to_string(same.size() - 1) + ")");
        }
        return same[static_cast<std::size_t>(color)];
    }

    // Sides made of processor names only can be seen to overlap here.
    base::Status disjoint(const Definition& d, const Definition& a, const Definition& b) {
        std::set<std::string> names;
        for (const Member& m : a.members) {
            if (!m.re) names.insert(m.text);
        }
        for (const Member& m : b.members) {
            if (!m.re && names.count(m.text) != 0) {
                return fail(d.line, "the sides of intercomm '" + d.name + "' overlap: processor '" + m.text +
                                        "' is in both '" + a.name + "' and '" + b.name + "'");
            }
        }
        return {};
    }

    std::string parent_text(const Definition& d) const {
        if (d.parent < 0) return "at the top level";
        return "in '" + f_.defs[static_cast<std::size_t>(d.parent)].name + "' (line " +
               std::to_string(f_.defs[static_cast<std::size_t>(d.parent)].line) + ")";
    }

    base::Status pattern_compile(Member& m) {
        if (!member_is_pattern(m.text)) return {};
        auto re = Pattern::compile(m.text);
        if (!re) return fail(m.line, "'" + m.text + "' is not a usable regular expression: " + re.failure().text);
        m.re = std::move(*re);
        return {};
    }

    // A processor name must be one its parent has (a regular expression is
    // matched among the parent's processes when the job is known).
    base::Status in_parent(const Member& m, const Definition& parent) {
        if (m.re) return {};
        for (const Member& p : parent.members) {
            if (p.re ? p.re->match(m.text) : p.text == m.text) return {};
        }
        return fail(m.line, "processor '" + m.text + "' is not in the parent comm '" + parent.name + "' (line " +
                                std::to_string(parent.line) + ")");
    }

    base::Status name_check(const std::string& name, int line) {
        // MPI_Comm_get_name returns the name; it must fit MPI_MAX_OBJECT_NAME.
        if (name.size() < 128) return {};
        return fail(line, "the name '" + name.substr(0, 20) + "...' is longer than 127 characters");
    }

    base::Error fail(int line, const std::string& what) const { return base::Error{f_.at(line) + what}; }

    File& f_;
    std::vector<const Node*> intercomms_;  // read once every comm is known
};

}  // namespace

base::Result<File> parse(const std::string& text, const std::string& where) {
    // Past a UTF-8 byte order mark, which libxml2 and yaml-cpp skip themselves.
    const std::size_t bom = text.rfind("\xEF\xBB\xBF", 0) == 0 ? 3 : 0;
    const auto first = text.find_first_not_of(" \t\r\n", bom);
    const bool xml = first != std::string::npos && text[first] == '<';
    const base::Result<Node> root = xml ? xml_read(text, where) : yaml_read(text, where);
    if (!root) return root.failure();
    File f;
    f.where = where;
    if (base::Status s = Builder(f).top(*root); !s) return s.failure();
    return f;
}

base::Result<File> load(const std::string& path) {
    const base::Result<std::string> text = base::file_read(path, "communicator file");
    if (!text) return text.failure();
    return parse(*text, path);
}

}  // namespace strata::commfile
