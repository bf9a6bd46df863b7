// The communicator file mpirun writes from the job (mpirun -gencomm), as
// MetaMPICH wrote one from its meta-configuration.
#include "commfile/comm_file.hpp"

#include <cctype>
#include <cstdint>
#include <set>

namespace strata::commfile {

namespace {

std::string xml_escaped(const std::string& s) {
    std::string out;
    for (char c : s) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            default: out += c;
        }
    }
    return out;
}

// The length of the UTF-8 character at s[i] if it is one XML 1.0 allows
// (no control characters), else 0.
std::size_t xml_char_length(const std::string& s, std::size_t i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) return c < 0x20 || c == 0x7f ? 0 : 1;
    const std::size_t n = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 0;
    if (n == 0 || c > 0xf4 || i + n > s.size()) return 0;
    std::uint32_t cp = c & (0x7fu >> n);
    for (std::size_t k = 1; k < n; ++k) {
        const auto t = static_cast<unsigned char>(s[i + k]);
        if ((t & 0xc0) != 0x80) return 0;
        cp = (cp << 6) | (t & 0x3fu);
    }
    const std::uint32_t least = n == 2 ? 0x80 : n == 3 ? 0x800 : 0x10000;
    const bool allowed = cp >= least && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff) && cp != 0xfffe && cp != 0xffff;
    return allowed ? n : 0;
}

bool xml_text_valid(const std::string& s) {
    for (std::size_t i = 0; i < s.size();) {
        const std::size_t n = xml_char_length(s, i);
        if (n == 0) return false;
        i += n;
    }
    return !s.empty();
}

// A processor name as a member: itself, or, when it looks like a regular
// expression, one that matches exactly it.
std::string member_text(const std::string& name) {
    if (!member_is_pattern(name)) return name;
    std::string out;
    for (char c : name) {
        if (std::string("*+?[](){}|^$\\.").find(c) != std::string::npos) out += '\\';
        out += c;
    }
    return out;
}

// `wanted`, or, where another has it, "wanted_2", "wanted_3", ...; cut to
// fit MPI_MAX_OBJECT_NAME (127 characters), as the reader requires.
std::string name_unique(const std::string& wanted, std::set<std::string>& taken) {
    constexpr std::size_t kMax = 127;
    std::string name = wanted.substr(0, kMax);
    for (int n = 2; taken.count(name) != 0; ++n) {
        std::string suffix = "_";
        suffix += std::to_string(n);
        name = wanted.substr(0, kMax - suffix.size()) + suffix;
    }
    taken.insert(name);
    return name;
}

struct Group {
    std::string name;
    std::vector<std::string> processors;  // each once, in rank order
};

void processor_add(Group& g, const std::string& name) {
    for (const std::string& p : g.processors) {
        if (p == name) return;
    }
    g.processors.push_back(name);
}

void comm_write(std::string& out, const Group& g, const std::string& indent) {
    out += indent + "<comm name=\"" + xml_escaped(g.name) + "\">\n";
    for (const std::string& p : g.processors) {
        const std::string member = xml_escaped(member_text(p));
        // The reader trims an element's text, not an attribute.
        const bool padded = !p.empty() && (std::isspace(static_cast<unsigned char>(p.front())) != 0 ||
                                           std::isspace(static_cast<unsigned char>(p.back())) != 0);
        out += indent +
               (padded ? "  <processor name=\"" + member + "\"/>\n" : "  <processor>" + member + "</processor>\n");
    }
}

// The job's sites, each with its machines.
struct Layout {
    std::vector<Group> sites;
    std::vector<std::vector<Group>> machines;  // per site
};

base::Status place_check(const Place& p, std::map<std::string, const Place*>& owner) {
    for (const auto& [what, label] : {std::pair{"site label", &p.site}, std::pair{"machine name", &p.machine},
                                      std::pair{"processor name", &p.processor_name}}) {
        if (!xml_text_valid(*label)) {
            return base::Error{std::string("the ") + what + " '" + *label +
                               "' cannot name a communicator: it is empty, not UTF-8, or has control characters"};
        }
    }
    if (p.processor_name.size() > 255) {
        return base::Error{"the processor name '" + p.processor_name.substr(0, 20) +
                           "...' is longer than MPI_MAX_PROCESSOR_NAME allows"};
    }
    const auto [it, fresh] = owner.emplace(p.processor_name, &p);
    if (fresh || (it->second->site == p.site && it->second->machine == p.machine)) return {};
    return base::Error{"processor name '" + p.processor_name + "' is on machine '" + it->second->machine +
                       "' of site '" + it->second->site + "' and on machine '" + p.machine + "' of site '" + p.site +
                       "'; a communicator file tells processes apart by processor name, so give each machine's "
                       "subjobs their own processor_name"};
}

Group& group_find(std::vector<Group>& groups, const std::string& name) {
    for (Group& g : groups) {
        if (g.name == name) return g;
    }
    return groups.emplace_back(Group{name, {}});
}

base::Result<Layout> layout_of(const std::vector<Place>& ranks) {
    Layout out;
    std::map<std::string, const Place*> owner;  // processor name -> first place
    for (const Place& p : ranks) {
        if (base::Status s = place_check(p, owner); !s) return s.failure();
        Group& site = group_find(out.sites, p.site);
        out.machines.resize(out.sites.size());
        processor_add(site, p.processor_name);
        processor_add(group_find(out.machines[static_cast<std::size_t>(&site - out.sites.data())], p.machine),
                      p.processor_name);
    }
    return out;
}

// The sites keep their labels; a machine its label unless a site or another
// site's machine has it, then "SITE_MACHINE". The names taken go to `taken`.
void names_give(Layout& l, std::set<std::string>& taken) {
    std::map<std::string, int> machine_label_uses;
    for (Group& s : l.sites) s.name = name_unique(s.name, taken);
    for (const auto& ms : l.machines) {
        for (const Group& m : ms) ++machine_label_uses[m.name];
    }
    for (std::size_t s = 0; s < l.sites.size(); ++s) {
        for (Group& m : l.machines[s]) {
            const bool qualify = taken.count(m.name) != 0 || machine_label_uses[m.name] > 1;
            m.name = name_unique(qualify ? l.sites[s].name + "_" + m.name : m.name, taken);
        }
    }
}

}  // namespace

base::Result<std::string> generate(const std::vector<Place>& ranks) {
    base::Result<Layout> l = layout_of(ranks);
    if (!l) return l.failure();
    std::set<std::string> taken;
    names_give(*l, taken);
    std::string out =
        "<?xml version=\"1.0\"?>\n"
        "<!-- Written by mpirun -gencomm from the job: a comm per site, a comm per machine\n"
        "     inside its site, and an intercomm between every two sites. -->\n"
        "<communicators>\n";
    for (std::size_t s = 0; s < l->sites.size(); ++s) {
        comm_write(out, l->sites[s], "  ");
        for (const Group& m : l->machines[s]) {
            comm_write(out, m, "    ");
            out += "    </comm>\n";
        }
        out += "  </comm>\n";
    }
    for (std::size_t a = 0; a < l->sites.size(); ++a) {
        for (std::size_t b = a + 1; b < l->sites.size(); ++b) {
            const std::string name = name_unique(l->sites[a].name + "_" + l->sites[b].name, taken);
            out += "  <intercomm name=\"" + xml_escaped(name) + "\"><first>" + xml_escaped(l->sites[a].name) +
                   "</first><second>" + xml_escaped(l->sites[b].name) + "</second></intercomm>\n";
        }
    }
    out += "</communicators>\n";
    return out;
}

}  // namespace strata::commfile
