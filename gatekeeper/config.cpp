#include "gatekeeper/config.hpp"

#include "adapters/adapter_table.hpp"
#include "base/file.hpp"
#include "launcher/job_request.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>

namespace strata::gatekeeper {

namespace {

std::string at(const std::string& path, const YAML::Mark& m, const std::string& what) {
    return path + ":" + std::to_string(m.line < 0 ? 1 : m.line + 1) + ":" + std::to_string(m.column < 0 ? 1 : m.column + 1) +
           ": " + what;
}

template <class T>
bool int_in(const YAML::Node& n, long long lo, long long hi, T& out) {
    long long v = 0;
    if (!n.IsScalar() || !YAML::convert<long long>::decode(n, v) || v < lo || v > hi) return false;
    out = static_cast<T>(v);
    return true;
}

}  // namespace

bool Config::offers(const std::string& adapter) const {
    return std::find(adapters.begin(), adapters.end(), adapter) != adapters.end();
}

std::optional<Config> Config::parse(const std::string& text, const std::string& path, std::string& error) {
    YAML::Node root;
    try {
        root = YAML::Load(text);
    } catch (const YAML::ParserException& e) {
        error = at(path, e.mark, e.msg);
        return std::nullopt;
    }
    auto fail = [&](const YAML::Node& n, const std::string& what) {
        error = at(path, n.Mark(), what);
        return std::nullopt;
    };
    if (!root.IsMap()) return fail(root, "expected a map of settings (listen, port, ca_dir, cert, key, gridmap, ...)");
    // Absolute from the start: the gatekeeper hands these paths to processes
    // that run elsewhere (the job directory under scratch, say).
    std::error_code ec;
    const std::filesystem::path base = std::filesystem::absolute(path, ec).parent_path();
    auto file_path = [&](const std::string& v) {
        const std::filesystem::path p(v);
        return (p.is_absolute() || base.empty() ? p : base / p).string();
    };
    Config c;
    std::set<std::string> seen;
    for (auto it = root.begin(); it != root.end(); ++it) {
        const std::string key = it->first.IsScalar() ? it->first.Scalar() : std::string();
        const YAML::Node v = it->second;
        if (!seen.insert(key).second) return fail(it->first, "'" + key + "' is given twice");
        auto scalar = [&](std::string& out) {
            if (!v.IsScalar() || v.Scalar().empty()) return false;
            out = v.Scalar();
            return true;
        };
        if (key == "listen") {
            if (!scalar(c.listen)) return fail(v, "'listen' must be an address");
        } else if (key == "port") {
            if (!int_in(v, 0, 65535, c.port))
                return fail(v, "'port' must be a number from 1 to 65535 (0: any free port)");
        } else if (key == "ca_dir" || key == "cert" || key == "key" || key == "gridmap" || key == "scratch" ||
                   key == "state_dir") {
            std::string s;
            if (!scalar(s)) return fail(v, "'" + key + "' must be a path");
            (key == "ca_dir"    ? c.ca_dir
             : key == "cert"    ? c.cert
             : key == "key"     ? c.key
             : key == "gridmap" ? c.gridmap
             : key == "scratch" ? c.scratch
                                : c.state_dir) = file_path(s);
        } else if (key == "adapters") {
            if (!v.IsSequence() || v.size() == 0) return fail(v, "'adapters' must be a list such as [fork, slurm]");
            c.adapters.clear();
            for (const YAML::Node& a : v) {
                if (!a.IsScalar() || launcher::adapter_find(a.Scalar()) == nullptr)
                    return fail(a, "unknown adapter '" + (a.IsScalar() ? a.Scalar() : std::string("?")) +
                                       "'; expected " + launcher::adapter_names_text(false));
                c.adapters.push_back(a.Scalar());
            }
        } else if (key == "environment") {
            if (!v.IsMap()) return fail(v, "'environment' must be a map of NAME: value");
            for (auto e = v.begin(); e != v.end(); ++e) {
                const std::string name = e->first.IsScalar() ? e->first.Scalar() : std::string();
                if (!launcher::env_name_valid(name))
                    return fail(e->first, "'" + name + "' is not an environment variable name");
                if (!e->second.IsScalar()) return fail(e->second, "the value of '" + name + "' must be a string");
                c.environment.emplace_back(name, e->second.Scalar());
            }
        } else if (key == "limits") {
            if (!v.IsMap()) return fail(v, "'limits' must be a map (max_jobs, max_jobs_per_user, max_request_bytes, ...)");
            std::set<std::string> limits_seen;
            for (auto l = v.begin(); l != v.end(); ++l) {
                const std::string name = l->first.IsScalar() ? l->first.Scalar() : std::string();
                if (!limits_seen.insert(name).second) return fail(l->first, "'" + name + "' is given twice");
                if (name == "max_jobs") {
                    if (!int_in(l->second, 1, 100000, c.max_jobs))
                        return fail(l->second, "'max_jobs' must be a number from 1 to 100000");
                } else if (name == "max_jobs_per_user") {
                    if (!int_in(l->second, 1, 100000, c.max_jobs_per_user))
                        return fail(l->second, "'max_jobs_per_user' must be a number from 1 to 100000");
                } else if (name == "max_request_bytes") {
                    if (!int_in(l->second, 65536, 64 << 20, c.max_request_bytes))
                        return fail(l->second, "'max_request_bytes' must be a number from 65536 to 67108864");
                } else if (name == "max_stage_bytes") {
                    if (!int_in(l->second, 0, 1LL << 40, c.max_stage_bytes))
                        return fail(l->second, "'max_stage_bytes' must be a number of bytes from 0 to 1099511627776");
                } else if (name == "handshake_timeout") {
                    if (!int_in(l->second, 1, 3600, c.handshake_timeout_s))
                        return fail(l->second, "'handshake_timeout' must be seconds from 1 to 3600");
                } else {
                    return fail(l->first, "unknown limit '" + name +
                                              "'; expected max_jobs, max_jobs_per_user, max_request_bytes, "
                                              "max_stage_bytes or handshake_timeout");
                }
            }
        } else {
            return fail(it->first, "unknown setting '" + key +
                                       "'; expected listen, port, ca_dir, cert, key, gridmap, adapters, scratch, "
                                       "state_dir, environment or limits");
        }
    }
    for (const auto& [name, value] : {std::pair<const char*, const std::string*>{"ca_dir", &c.ca_dir},
                                      {"cert", &c.cert}, {"key", &c.key}, {"gridmap", &c.gridmap}}) {
        if (value->empty()) {
            error = path + ": '" + name + "' is missing; the gatekeeper needs ca_dir, cert, key and gridmap";
            return std::nullopt;
        }
    }
    if (c.state_dir.empty()) c.state_dir = file_path("state");
    if (c.scratch.empty()) {
        const char* tmp = std::getenv("TMPDIR");
        c.scratch = tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
    }
    return c;
}

std::optional<Config> Config::load(const std::string& path, std::string& error) {
    const std::optional<std::string> text = base::file_read(path, "configuration file", error);
    if (!text) return std::nullopt;
    return parse(*text, path, error);
}

}  // namespace strata::gatekeeper
