#include "gatekeeper/config.hpp"

#include "job/adapter_table.hpp"
#include "base/file.hpp"
#include "base/yaml.hpp"
#include "job/job_request.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

namespace strata::gatekeeper {

namespace {

namespace yaml = base::yaml;
using base::Result;
using base::Status;

// What the tables' readers fill.
struct Reading {
    Config c;
    // The configuration file's directory, absolute from the start: the
    // gatekeeper hands its paths to processes that run elsewhere (the job
    // directory under scratch, say).
    std::filesystem::path base;

    std::string file_path(const std::string& v) const {
        const std::filesystem::path p(v);
        return (p.is_absolute() || base.empty() ? p : base / p).string();
    }
};

// $TMPDIR, else /tmp.
std::string scratch_default() {
    const char* tmp = std::getenv("TMPDIR");
    return tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
}

template <class T>
Status number_set(const yaml::Value& v, long long lo, long long hi, const std::string& what, T& out) {
    Result<long long> n = yaml::integer(v, lo, hi, what);
    if (!n) return n.failure();
    out = static_cast<T>(*n);
    return {};
}

template <std::string Config::*member>
Status path_read(const yaml::Entry& e, Reading& r) {
    Result<std::string> p = yaml::nonempty_string(e.value, "'" + e.key + "' must be a path");
    if (!p) return p.failure();
    r.c.*member = r.file_path(*p);
    return {};
}

Status listen_read(const yaml::Entry& e, Reading& r) {
    Result<std::string> address = yaml::nonempty_string(e.value, "'listen' must be an address");
    if (!address) return address.failure();
    r.c.listen = *address;
    return {};
}

Status port_read(const yaml::Entry& e, Reading& r) {
    return number_set(e.value, 0, 65535, "'port' must be a number from 1 to 65535 (0: any free port)", r.c.port);
}

Status adapters_read(const yaml::Entry& e, Reading& r) {
    const YAML::Node& list = e.value.node();
    if (!list.IsSequence() || list.size() == 0) return e.value.fail("'adapters' must be a list such as [fork, slurm]");
    r.c.adapters.clear();
    for (const YAML::Node& a : list) {
        if (!a.IsScalar() || job::adapter_find(a.Scalar()) == nullptr)
            return e.value.of(a).fail("unknown adapter '" + (a.IsScalar() ? a.Scalar() : std::string("?")) +
                                      "'; expected " + job::adapter_names_text(false));
        r.c.adapters.push_back(a.Scalar());
    }
    return {};
}

const yaml::NamedStrings kEnvironment{
    "'environment' must be a map of NAME: value", job::env_name_valid, "is not an environment variable name",
    [](const std::string& name) { return "the value of '" + name + "' must be a string"; }};

Status environment_read(const yaml::Entry& e, Reading& r) {
    Result<std::vector<std::pair<std::string, std::string>>> env = yaml::named_strings(e.value, kEnvironment);
    if (!env) return env.failure();
    r.c.environment = *env;
    return {};
}

const yaml::Field<Config> kLimitFields[] = {
    {"max_jobs",
     [](const yaml::Entry& e, Config& c) {
         return number_set(e.value, 1, 100000, "'max_jobs' must be a number from 1 to 100000", c.max_jobs);
     }},
    {"max_jobs_per_user",
     [](const yaml::Entry& e, Config& c) {
         return number_set(e.value, 1, 100000, "'max_jobs_per_user' must be a number from 1 to 100000",
                           c.max_jobs_per_user);
     }},
    {"max_request_bytes",
     [](const yaml::Entry& e, Config& c) {
         return number_set(e.value, 65536, 64 << 20, "'max_request_bytes' must be a number from 65536 to 67108864",
                           c.max_request_bytes);
     }},
    {"max_stage_bytes",
     [](const yaml::Entry& e, Config& c) {
         return number_set(e.value, 0, 1LL << 40, "'max_stage_bytes' must be a number of bytes from 0 to 1099511627776",
                           c.max_stage_bytes);
     }},
    {"handshake_timeout",
     [](const yaml::Entry& e, Config& c) {
         return number_set(e.value, 1, 3600, "'handshake_timeout' must be seconds from 1 to 3600",
                           c.handshake_timeout_s);
     }},
};
const yaml::Table<Config> kLimits{kLimitFields, "limit"};

Status limits_read(const yaml::Entry& e, Reading& r) {
    return yaml::map_read(e.value, "'limits' must be a map (max_jobs, max_jobs_per_user, max_request_bytes, ...)",
                          kLimits, r.c);
}

const yaml::Field<Reading> kSettingFields[] = {
    {"listen", listen_read},
    {"port", port_read},
    {"ca_dir", path_read<&Config::ca_dir>, "'ca_dir' is missing; the gatekeeper needs ca_dir, cert, key and gridmap"},
    {"cert", path_read<&Config::cert>, "'cert' is missing; the gatekeeper needs ca_dir, cert, key and gridmap"},
    {"key", path_read<&Config::key>, "'key' is missing; the gatekeeper needs ca_dir, cert, key and gridmap"},
    {"gridmap", path_read<&Config::gridmap>,
     "'gridmap' is missing; the gatekeeper needs ca_dir, cert, key and gridmap"},
    {"adapters", adapters_read},
    {"scratch", path_read<&Config::scratch>},
    {"state_dir", path_read<&Config::state_dir>},
    {"environment", environment_read},
    {"limits", limits_read},
};
const yaml::Table<Reading> kSettings{kSettingFields, "setting"};

}  // namespace

bool Config::offers(const std::string& adapter) const {
    return std::find(adapters.begin(), adapters.end(), adapter) != adapters.end();
}

Result<Config> Config::parse(const std::string& text, const std::string& path) {
    // yaml-cpp's own words for a document that does not parse, without a label.
    const yaml::Document doc(text, path, {.malformed = ""});
    Result<yaml::Value> root = doc.root();
    if (!root) return root.failure();
    Result<base::Map<yaml::Value>> settings =
        yaml::map(*root, "expected a map of settings (listen, port, ca_dir, cert, key, gridmap, ...)");
    if (!settings) return settings.failure();
    settings->position = {};  // a missing setting is missing from the file, not from a line of it
    std::error_code ec;
    Reading r{Config{}, std::filesystem::absolute(path, ec).parent_path()};
    if (Status s = base::fields_read(kSettings, *settings, r); !s) return s.failure();
    if (r.c.state_dir.empty()) r.c.state_dir = r.file_path("state");
    if (r.c.scratch.empty()) r.c.scratch = scratch_default();
    return std::move(r.c);
}

Config Config::for_login() {
    Config c;
    c.adapters.clear();
    for (const job::AdapterInfo& a : job::kAdapterTable) c.adapters.emplace_back(a.name);
    c.scratch = scratch_default();
    return c;
}

Result<Config> Config::load(const std::string& path) {
    const base::Result<std::string> text = base::file_read(path, "configuration file");
    if (!text) return text.failure();
    return parse(*text, path);
}

}  // namespace strata::gatekeeper
