// The YAML job file: top-level defaults and a list of subjobs that may
// override them (see README "Job descriptions"). Unknown keys are errors.
#include "launcher/job_request.hpp"

#include "wireup/emulation.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>

namespace strata::launcher {

namespace {

// What the top level and a subjob share; unset fields come from the top level.
struct Common {
    std::optional<std::string> executable;
    std::optional<std::vector<std::string>> arguments;
    std::vector<std::pair<std::string, std::string>> environment;
    std::optional<std::string> directory;
    std::optional<std::string> account;
    std::optional<bool> stage;
    std::vector<std::string> stage_files;
};

class YamlReader {
public:
    explicit YamlReader(const std::string& path) : path_(path) {}

    std::string at(const YAML::Mark& m, const std::string& what) const {
        const int line = m.line < 0 ? 1 : m.line + 1;
        const int column = m.column < 0 ? 1 : m.column + 1;
        return path_ + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + prefix_ + what;
    }

    void set_subjob(int index) { prefix_ = index < 0 ? "" : "subjob " + std::to_string(index) + ": "; }

    std::string scalar(const YAML::Node& n, const std::string& key, std::string& out) const {
        if (!n.IsScalar()) return at(n.Mark(), "'" + key + "' must be a string");
        out = n.Scalar();
        return {};
    }

    std::string strings(const YAML::Node& n, const std::string& key, std::vector<std::string>& out) const {
        if (!n.IsSequence()) return at(n.Mark(), "'" + key + "' must be a list of strings");
        for (const YAML::Node& item : n) {
            if (!item.IsScalar()) return at(item.Mark(), "'" + key + "' must be a list of strings");
            out.push_back(item.Scalar());
        }
        return {};
    }

    // A key of the top level or of a subjob; returns an error, or "" (also
    // when the key is not a common one: `known` tells).
    std::string common(const std::string& key, const YAML::Node& v, Common& c, bool& known) const {
        known = true;
        if (key == "executable") {
            std::string s;
            if (auto e = scalar(v, key, s); !e.empty()) return e;
            if (s.empty()) return at(v.Mark(), "'executable' is empty");
            c.executable = s;
        } else if (key == "arguments") {
            std::vector<std::string> args;
            if (auto e = strings(v, key, args); !e.empty()) return e;
            c.arguments = args;
        } else if (key == "environment") {
            if (!v.IsMap()) return at(v.Mark(), "'environment' must be a map of NAME: value");
            for (auto it = v.begin(); it != v.end(); ++it) {
                const std::string name = it->first.IsScalar() ? it->first.Scalar() : std::string();
                if (!env_name_valid(name))
                    return at(it->first.Mark(), "'" + name + "' is not an environment variable name");
                if (!it->second.IsScalar())
                    return at(it->second.Mark(), "environment variable '" + name + "' must have a string value");
                c.environment.emplace_back(name, it->second.Scalar());
            }
        } else if (key == "directory") {
            std::string s;
            if (auto e = scalar(v, key, s); !e.empty()) return e;
            c.directory = s;
        } else if (key == "account") {
            std::string s;
            if (auto e = scalar(v, key, s); !e.empty()) return e;
            c.account = s;
        } else if (key == "stage") {
            if (v.IsSequence()) {
                if (auto e = strings(v, key, c.stage_files); !e.empty()) return e;
                c.stage = true;
            } else {
                bool b = false;
                if (!v.IsScalar() || !YAML::convert<bool>::decode(v, b))
                    return at(v.Mark(), "'stage' must be true, false or a list of files, got '" +
                                            (v.IsScalar() ? v.Scalar() : std::string("a map")) + "'");
                c.stage = b;
            }
        } else {
            known = false;
        }
        return {};
    }

    // Checks that no key appears twice; yaml-cpp would keep one silently.
    std::string no_duplicates(const YAML::Node& map) const {
        std::map<std::string, YAML::Mark> seen;
        for (auto it = map.begin(); it != map.end(); ++it) {
            if (!it->first.IsScalar()) return at(it->first.Mark(), "keys must be plain words");
            const auto [where, fresh] = seen.emplace(it->first.Scalar(), it->first.Mark());
            if (!fresh)
                return at(it->first.Mark(), "'" + it->first.Scalar() + "' is given twice (first at " +
                                                std::to_string(where->second.line + 1) + ":" +
                                                std::to_string(where->second.column + 1) + ")");
        }
        return {};
    }

private:
    std::string path_;
    std::string prefix_;
};

// One link's figures, {latency_ms: N, bandwidth_mbit: N}, plus `sites` in an
// override (`pair` non-null).
std::string shape_parse(const YamlReader& r, const YAML::Node& v, const std::string& where, wireup::LinkShape& shape,
                        std::vector<std::pair<std::string, YAML::Mark>>* pair) {
    if (!v.IsMap()) return r.at(v.Mark(), "'" + where + "' must be a map such as {latency_ms: 10, bandwidth_mbit: 100}");
    if (auto e = r.no_duplicates(v); !e.empty()) return e;
    bool any = false;
    for (auto it = v.begin(); it != v.end(); ++it) {
        const std::string key = it->first.Scalar();
        const YAML::Node value = it->second;
        if (key == "sites" && pair != nullptr) {
            if (!value.IsSequence() || value.size() != 2)
                return r.at(value.Mark(), "'sites' must name two sites, e.g. [anl, ncsa]");
            for (const YAML::Node& site : value) {
                const std::string name = site.IsScalar() ? site.Scalar() : std::string();
                if (!wireup::emulation_site_valid(name))
                    return r.at(site.Mark(), "'" + name + "' is not a site name an override can use (not empty, "
                                                          "none of / : , ; =)");
                pair->emplace_back(name, site.Mark());
            }
            continue;
        }
        const bool known = std::any_of(std::begin(wireup::kFigures), std::end(wireup::kFigures),
                                       [&](const wireup::LinkFigure& f) { return key == f.key; });
        if (!known)
            return r.at(it->first.Mark(), "unknown key '" + key + "' in '" + where + "'; expected " +
                                              (pair != nullptr ? wireup::emulation_figure_names(", ") + " or sites"
                                                               : wireup::emulation_figure_names()));
        if (auto why = wireup::emulation_figure_set(shape, key, value.IsScalar() ? value.Scalar() : std::string());
            !why.empty())
            return r.at(value.Mark(), why);
        any = true;
    }
    if (!any) return r.at(v.Mark(), "'" + where + "' gives none of " + wireup::emulation_figure_names());
    if (pair != nullptr && pair->size() != 2) return r.at(v.Mark(), "'" + where + "' needs 'sites: [A, B]'");
    return {};
}

// network: {wan: {...}, lan: {...}, links: [{sites: [A, B], ...}], streams: N}:
// the wide-area emulation (wireup/emulation.hpp) and the TCP streams per link
// between sites (`streams`, 0 when not given). The sites overrides name are
// returned in `named`, to be checked against the job's.
std::string network_parse(const YamlReader& r, const YAML::Node& v, wireup::Emulation& out, int& streams,
                          std::vector<std::pair<std::string, YAML::Mark>>& named) {
    if (!v.IsMap())
        return r.at(v.Mark(), "'network' must be a map such as {wan: {latency_ms: 10, bandwidth_mbit: 100}}");
    if (auto e = r.no_duplicates(v); !e.empty()) return e;
    for (auto it = v.begin(); it != v.end(); ++it) {
        const std::string level = it->first.Scalar();
        const YAML::Node value = it->second;
        if (level == "wan" || level == "lan") {
            wireup::LinkShape shape;
            if (auto e = shape_parse(r, value, level, shape, nullptr); !e.empty()) return e;
            (level == "wan" ? out.wan : out.lan) = shape;
        } else if (level == "links") {
            if (!value.IsSequence()) return r.at(value.Mark(), "'links' must be a list of {sites: [A, B], ...}");
            for (const YAML::Node& item : value) {
                std::vector<std::pair<std::string, YAML::Mark>> pair;
                wireup::LinkShape shape;
                if (auto e = shape_parse(r, item, "links", shape, &pair); !e.empty()) return e;
                out.pairs.push_back({pair[0].first, pair[1].first, shape});
                named.insert(named.end(), pair.begin(), pair.end());
            }
        } else if (level == "streams") {
            const std::string text = value.IsScalar() ? value.Scalar() : std::string();
            if (auto why = wireup::streams_check(text, streams); !why.empty())
                return r.at(value.Mark(), "'streams': " + why);
        } else {
            return r.at(it->first.Mark(), "unknown level '" + level + "' in 'network'; expected wan (between sites), "
                                                                       "lan (between machines of a site), links or "
                                                                       "streams");
        }
    }
    return {};
}

}  // namespace

std::optional<JobRequest> parse_job_yaml(const std::string& text, const std::string& path, std::string& error) {
    YAML::Node root;
    try {
        root = YAML::Load(text);
    } catch (const YAML::ParserException& e) {
        error = path + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1) +
                ": malformed YAML: " + e.msg;
        return std::nullopt;
    }
    YamlReader r(path);
    auto fail = [&](std::string e) {
        error = std::move(e);
        return std::nullopt;
    };
    if (!root.IsMap())
        return fail(r.at(root.Mark(), "expected a map with 'executable' and 'subjobs' (a YAML job file) or an RSL "
                                      "request starting with '&' or '+'"));
    if (auto e = r.no_duplicates(root); !e.empty()) return fail(e);

    Common top;
    YAML::Node subjobs;
    bool have_subjobs = false;
    bool data_tls = false;
    wireup::Emulation emulation;
    int streams = 0;
    std::vector<std::pair<std::string, YAML::Mark>> emulated_sites;
    for (auto it = root.begin(); it != root.end(); ++it) {
        const std::string key = it->first.Scalar();
        bool known = false;
        if (auto e = r.common(key, it->second, top, known); !e.empty()) return fail(e);
        if (known) continue;
        if (key == "subjobs") {
            subjobs = it->second;
            have_subjobs = true;
            continue;
        }
        if (key == "network") {
            if (auto e = network_parse(r, it->second, emulation, streams, emulated_sites); !e.empty()) return fail(e);
            continue;
        }
        if (key == "security") {
            // security: {data: tls} encrypts the links between sites
            // (devices/tcp: STRATA_DATA_TLS=wan in every process).
            const YAML::Node v = it->second;  // a copy: it-> yields a temporary
            if (!v.IsMap()) return fail(r.at(v.Mark(), "'security' must be a map such as {data: tls}"));
            for (auto sec = v.begin(); sec != v.end(); ++sec) {
                const std::string name = sec->first.IsScalar() ? sec->first.Scalar() : std::string();
                if (name != "data")
                    return fail(r.at(sec->first.Mark(), "unknown security setting '" + name + "'; expected data"));
                const std::string value = sec->second.IsScalar() ? sec->second.Scalar() : std::string();
                if (value != "tls" && value != "plain")
                    return fail(r.at(sec->second.Mark(), "'data' must be tls (links between sites encrypted) or "
                                                         "plain, not '" + value + "'"));
                data_tls = value == "tls";
            }
            continue;
        }
        return fail(r.at(it->first.Mark(), "unknown key '" + key +
                                               "'; expected executable, arguments, environment, directory, account, "
                                               "stage, security, network or subjobs"));
    }
    if (!have_subjobs) return fail(r.at(root.Mark(), "no 'subjobs'; list at least one subjob with its contact and count"));
    if (!subjobs.IsSequence() || subjobs.size() == 0)
        return fail(r.at(subjobs.Mark(), "'subjobs' must be a list of at least one subjob"));

    JobRequest job;
    int index = 0;
    for (const YAML::Node& node : subjobs) {
        r.set_subjob(index);
        if (!node.IsMap()) return fail(r.at(node.Mark(), "expected a map with 'contact' and 'count'"));
        if (auto e = r.no_duplicates(node); !e.empty()) return fail(e);
        SubjobRequest s;
        s.contact.host = "localhost";
        Common mine;
        bool have_count = false;
        for (auto it = node.begin(); it != node.end(); ++it) {
            const std::string key = it->first.Scalar();
            // A copy: it->second lives in a proxy that dies with this statement.
            const YAML::Node v = it->second;
            bool known = false;
            if (auto e = r.common(key, v, mine, known); !e.empty()) return fail(e);
            if (known) continue;
            if (key == "contact") {
                std::string written;
                if (auto e = r.scalar(v, key, written); !e.empty()) return fail(e);
                std::string why;
                std::size_t offset = 0;
                std::optional<Contact> c = contact_parse(written, why, offset);
                if (!c) {
                    YAML::Mark m = v.Mark();
                    const bool quoted = m.pos >= 0 && static_cast<std::size_t>(m.pos) < text.size() &&
                                        (text[static_cast<std::size_t>(m.pos)] == '"' ||
                                         text[static_cast<std::size_t>(m.pos)] == '\'');
                    m.column += static_cast<int>(offset) + (quoted ? 1 : 0);
                    return fail(r.at(m, why));
                }
                s.contact = *c;
            } else if (key == "count") {
                const std::string t = v.IsScalar() ? v.Scalar() : std::string();
                if (const std::string why = subjob_count_parse(t, s.count); !why.empty())
                    return fail(r.at(v.Mark(), why));
                have_count = true;
            } else if (key == "site") {
                if (auto e = r.scalar(v, key, s.site); !e.empty()) return fail(e);
            } else if (key == "machine") {
                if (auto e = r.scalar(v, key, s.machine); !e.empty()) return fail(e);
            } else if (key == "host") {
                if (auto e = r.scalar(v, key, s.host); !e.empty()) return fail(e);
            } else if (key == "processor_name") {
                if (auto e = r.scalar(v, key, s.processor_name); !e.empty()) return fail(e);
            } else {
                return fail(r.at(it->first.Mark(), "unknown key '" + key +
                                                       "'; expected contact, count, executable, arguments, "
                                                       "environment, directory, account, stage, site, machine, host "
                                                       "or processor_name"));
            }
        }
        if (!have_count) return fail(r.at(node.Mark(), "no 'count'; give the number of processes"));
        const std::optional<std::string> exe = mine.executable ? mine.executable : top.executable;
        if (!exe) return fail(r.at(node.Mark(), "no 'executable'; give it at the top level or in the subjob"));
        s.executable = *exe;
        s.arguments = mine.arguments.value_or(top.arguments.value_or(std::vector<std::string>{}));
        // The subjob's variables are added to the top level's, replacing those of the same name.
        std::vector<std::pair<std::string, std::string>> env = top.environment;
        for (const auto& entry : mine.environment) {
            std::erase_if(env, [&](const auto& p) { return p.first == entry.first; });
            env.push_back(entry);
        }
        for (const auto& [name, value] : env) {
            if (name != "GLOBUS_LAN_ID") {
                s.environment.push_back(name + "=" + value);
            } else if (s.site.empty()) {
                s.site = value;
            } else if (s.site != value) {
                return fail(r.at(node.Mark(), "'site' is '" + s.site + "' but GLOBUS_LAN_ID is '" + value +
                                                  "'; give one"));
            }
        }
        const auto sets = [&](const char* name) {
            return std::any_of(env.begin(), env.end(), [&](const auto& p) { return p.first == name; });
        };
        if (data_tls && !sets("STRATA_DATA_TLS")) s.environment.push_back("STRATA_DATA_TLS=wan");
        if (!emulation.empty() && !sets("STRATA_EMULATION")) s.environment.push_back("STRATA_EMULATION=" + emulation.text());
        if (streams > 0 && !sets("STRATA_TCP_STREAMS"))
            s.environment.push_back("STRATA_TCP_STREAMS=" + std::to_string(streams));
        s.directory = mine.directory.value_or(top.directory.value_or(""));
        s.account = mine.account.value_or(top.account.value_or(""));
        const Common& staging = mine.stage ? mine : top;
        s.stage = staging.stage.value_or(false);
        s.stage_files = staging.stage_files;
        job.subjobs.push_back(std::move(s));
        ++index;
    }
    r.set_subjob(-1);
    for (const auto& [site, mark] : emulated_sites) {
        // Captured by name: clang 14 cannot capture a structured binding.
        if (std::none_of(job.subjobs.begin(), job.subjobs.end(),
                         [&name = site](const SubjobRequest& s) { return subjob_site(s) == name; }))
            return fail(r.at(mark, "'network' names site '" + site + "', which no subjob is at"));
    }
    return job;
}

}  // namespace strata::launcher
