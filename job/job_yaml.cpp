// The YAML job file: top-level defaults and a list of subjobs that may
// override them (see README "Job descriptions"), each level a table of fields
// (base/fields.hpp). Unknown keys are errors.
#include "job/job_request.hpp"

#include "base/yaml.hpp"
#include "wireup/binding.hpp"
#include "wireup/emulation.hpp"
#include "wireup/settings.hpp"

#include <algorithm>
#include <array>

namespace strata::job {

namespace {

namespace yaml = base::yaml;
using base::Result;
using base::Status;

// What the top level and a subjob share; unset fields come from the top level.
struct Common {
    std::optional<std::string> executable;
    std::optional<std::vector<std::string>> arguments;
    std::vector<std::pair<std::string, std::string>> environment;
    std::optional<std::string> directory;
    std::optional<std::string> stdin_file, stdout_file, stderr_file;  // stdin, stdout, stderr
    std::optional<std::string> account;
    std::optional<std::string> strata;  // an ssh site's Strata prefix
    std::optional<std::string> queue;
    std::optional<std::string> project;
    std::optional<int> max_wall_time;  // minutes
    std::optional<yaml::Value> host_count;                     // checked against the subjob's count
    std::optional<yaml::Value> max_memory, min_memory;         // megabytes per process, checked when read
    std::optional<bool> stage;
    std::vector<std::string> stage_files;
    std::optional<std::string> bind_to;  // STRATA_BIND_TO (wireup/binding.hpp)
};

// The top level: the defaults, and what only it says.
struct Top : Common {
    std::optional<yaml::Value> subjobs;  // read once every default is known
    bool data_tls = false;
    wireup::Emulation emulation;
    int streams = 0;  // 0: not given
    // The sites `network` overrides name, to be checked against the subjobs'.
    std::vector<std::pair<std::string, base::Position>> emulated_sites;
};

// A subjob: what it overrides, and the rest of its request.
struct Sub : Common {
    SubjobRequest s;
};

Result<std::string> string_of(const yaml::Entry& e) {
    return yaml::string(e.value, "'" + e.key + "' must be a string");
}

// The text of a scalar, "" for anything else.
std::string scalar_of(const yaml::Value& v) { return v.node().IsScalar() ? v.node().Scalar() : std::string(); }

// --- Fields of the top level and of a subjob alike

template <class Out, std::optional<std::string> Common::*member>
Status common_string_read(const yaml::Entry& e, Out& out) {
    Result<std::string> s = string_of(e);
    if (!s) return s.failure();
    out.*member = *s;
    return {};
}

template <class Out>
Status executable_read(const yaml::Entry& e, Out& out) {
    if (Status s = common_string_read<Out, &Common::executable>(e, out); !s) return s;
    if (out.executable->empty()) return e.value.fail("'executable' is empty");
    return {};
}

template <class Out>
Status arguments_read(const yaml::Entry& e, Out& out) {
    Result<std::vector<std::string>> args = yaml::strings(e.value, "'arguments' must be a list of strings");
    if (!args) return args.failure();
    out.arguments = *args;
    return {};
}

const yaml::NamedStrings kEnvironment{
    "'environment' must be a map of NAME: value", env_name_valid, "is not an environment variable name",
    [](const std::string& name) { return "environment variable '" + name + "' must have a string value"; },
    wireup::setting_fault};

template <class Out>
Status environment_read(const yaml::Entry& e, Out& out) {
    Result<std::vector<std::pair<std::string, std::string>>> env = yaml::named_strings(e.value, kEnvironment);
    if (!env) return env.failure();
    out.environment = *env;
    return {};
}

template <class Out>
Status stage_read(const yaml::Entry& e, Out& out) {
    if (e.value.node().IsSequence()) {
        Result<std::vector<std::string>> files = yaml::strings(e.value, "'stage' must be a list of strings");
        if (!files) return files.failure();
        out.stage_files = *files;
        out.stage = true;
        return {};
    }
    const std::string written = e.value.node().IsScalar() ? e.value.node().Scalar() : std::string("a map");
    Result<bool> b = yaml::boolean(e.value, "'stage' must be true, false or a list of files, got '" + written + "'");
    if (!b) return b.failure();
    out.stage = *b;
    return {};
}

template <class Out>
Status wall_time_read(const yaml::Entry& e, Out& out) {
    const base::Result<int> minutes = wall_time_parse(scalar_of(e.value), "max_wall_time");
    if (!minutes) return e.value.fail(minutes.error());
    out.max_wall_time = *minutes;
    return {};
}

template <class Out>
Status job_type_read(const yaml::Entry& e, Out&) {
    if (Status s = job_type_check(scalar_of(e.value), e.key); !s) return e.value.fail(s.error());
    return {};
}

// host_count, max_memory, min_memory: kept as written, for the subjob to
// check against its count and adapter (memory_parse's range is checked now).
template <class Out, std::optional<yaml::Value> Common::*member, bool memory>
Status kept_read(const yaml::Entry& e, Out& out) {
    if (memory) {
        if (Result<int> mb = memory_parse(scalar_of(e.value), e.key); !mb) return e.value.fail(mb.error());
    }
    out.*member = e.value;
    return {};
}

// bind_to: core|socket|none, what mpirun -bind-to says for the whole job.
template <class Out>
Status bind_to_read(const yaml::Entry& e, Out& out) {
    const std::string value = scalar_of(e.value);
    if (!wireup::bind_to_parse(value)) {
        const std::string written = e.value.node().IsScalar() ? ", not '" + value + "'" : std::string();
        return e.value.fail("'bind_to' must be " + std::string(wireup::kBindTo.expects) + written);
    }
    out.bind_to = value;
    return {};
}

template <class Out>
constexpr std::array<yaml::Field<Out>, 18> kCommon{{
    {"executable", executable_read<Out>},
    {"arguments", arguments_read<Out>},
    {"environment", environment_read<Out>},
    {"directory", common_string_read<Out, &Common::directory>},
    {"stdin", common_string_read<Out, &Common::stdin_file>},
    {"stdout", common_string_read<Out, &Common::stdout_file>},
    {"stderr", common_string_read<Out, &Common::stderr_file>},
    {"account", common_string_read<Out, &Common::account>},
    {"strata", common_string_read<Out, &Common::strata>},
    {"queue", common_string_read<Out, &Common::queue>},
    {"project", common_string_read<Out, &Common::project>},
    {"max_wall_time", wall_time_read<Out>},
    {"job_type", job_type_read<Out>},
    {"host_count", kept_read<Out, &Common::host_count, false>},
    {"max_memory", kept_read<Out, &Common::max_memory, true>},
    {"min_memory", kept_read<Out, &Common::min_memory, true>},
    {"stage", stage_read<Out>},
    {"bind_to", bind_to_read<Out>},
}};

// The fields of `parts`, one table after another.
template <class T, std::size_t... N>
constexpr std::array<T, (N + ...)> joined(const std::array<T, N>&... parts) {
    std::array<T, (N + ...)> out{};
    auto next = out.begin();
    ((next = std::copy(parts.begin(), parts.end(), next)), ...);
    return out;
}

// --- network: {wan: {...}, lan: {...}, links: [{sites: [A, B], ...}], streams: N}: the wide-area
// emulation (wireup/emulation.hpp) and the TCP streams per link between sites.

// One link's figures, {latency_ms: N, bandwidth_mbit: N, ...}, and in `links` its sites.
struct Shape {
    wireup::LinkShape shape;
    bool any = false;  // a figure is given
    std::vector<std::pair<std::string, base::Position>> sites;
};

Status figure_read(const yaml::Entry& e, Shape& out) {
    if (base::Status set = wireup::emulation_figure_set(out.shape, e.key, scalar_of(e.value)); !set)
        return e.value.fail(set.error());
    out.any = true;
    return {};
}

Status sites_read(const yaml::Entry& e, Shape& out) {
    if (!e.value.node().IsSequence() || e.value.node().size() != 2)
        return e.value.fail("'sites' must name two sites, e.g. [anl, ncsa]");
    for (const YAML::Node& node : e.value.node()) {
        const yaml::Value site = e.value.of(node);
        const std::string name = scalar_of(site);
        if (!wireup::emulation_site_valid(name))
            return site.fail("'" + name + "' is not a site name an override can use (not empty, none of / : , ; =)");
        out.sites.emplace_back(name, site.position());
    }
    return {};
}

// The figures as wireup's table (kFigures) names them; in `links`, `sites` too.
std::vector<yaml::Field<Shape>> shape_fields(bool sites) {
    std::vector<yaml::Field<Shape>> out;
    for (const wireup::LinkFigure& f : wireup::kFigures) out.push_back({f.key, figure_read});
    if (sites) out.push_back({"sites", sites_read});
    return out;
}

// `v`, the value of `where` (wan, lan or links).
Result<Shape> shape_read(const yaml::Value& v, const std::string& where) {
    static const std::vector<yaml::Field<Shape>> kLevel = shape_fields(false);
    static const std::vector<yaml::Field<Shape>> kLink = shape_fields(true);
    const bool link = where == "links";
    Shape out;
    if (Status s = yaml::map_read(v, "'" + where + "' must be a map such as {latency_ms: 10, bandwidth_mbit: 100}",
                                  yaml::Table<Shape>{link ? kLink : kLevel, "key", " in '" + where + "'"}, out);
        !s)
        return s.failure();
    if (!out.any) return v.fail("'" + where + "' gives none of " + wireup::emulation_figure_names());
    if (link && out.sites.size() != 2) return v.fail("'" + where + "' needs 'sites: [A, B]'");
    return out;
}

template <std::optional<wireup::LinkShape> wireup::Emulation::*level>
Status level_read(const yaml::Entry& e, Top& top) {
    Result<Shape> shape = shape_read(e.value, e.key);
    if (!shape) return shape.failure();
    if (const std::string fault = wireup::uplink_fault(shape->shape);
        level == &wireup::Emulation::uplink && !fault.empty())
        return e.value.fail("'uplink': " + fault);
    top.emulation.*level = shape->shape;
    return {};
}

Status links_read(const yaml::Entry& e, Top& top) {
    if (!e.value.node().IsSequence()) return e.value.fail("'links' must be a list of {sites: [A, B], ...}");
    for (const YAML::Node& item : e.value.node()) {
        Result<Shape> link = shape_read(e.value.of(item), "links");
        if (!link) return link.failure();
        top.emulation.pairs.push_back({link->sites[0].first, link->sites[1].first, link->shape});
        top.emulated_sites.insert(top.emulated_sites.end(), link->sites.begin(), link->sites.end());
    }
    return {};
}

Status streams_read(const yaml::Entry& e, Top& top) {
    const base::Result<int> streams = wireup::streams_check(scalar_of(e.value));
    if (!streams) return e.value.fail("'streams': " + streams.error());
    top.streams = *streams;
    return {};
}

const yaml::Field<Top> kNetworkFields[] = {
    {"wan", level_read<&wireup::Emulation::wan>, nullptr, "between sites"},
    {"lan", level_read<&wireup::Emulation::lan>, nullptr, "between machines of a site"},
    {"uplink", level_read<&wireup::Emulation::uplink>, nullptr, "each site's own, shared by all it sends to other sites"},
    {"links", links_read},
    {"streams", streams_read},
};
const yaml::Table<Top> kNetwork{kNetworkFields, "level", " in 'network'"};

// security: {data: tls} encrypts the links between sites (devices/tcp:
// STRATA_DATA_TLS=wan in every process).
const yaml::Field<Top> kSecurityFields[] = {
    {"data",
     [](const yaml::Entry& e, Top& top) -> Status {
         const std::string value = scalar_of(e.value);
         if (value != "tls" && value != "plain")
             return e.value.fail("'data' must be tls (links between sites encrypted) or plain, not '" + value + "'");
         top.data_tls = value == "tls";
         return {};
     }},
};
const yaml::Table<Top> kSecurity{kSecurityFields, "security setting"};

// --- The top level

Status security_read(const yaml::Entry& e, Top& top) {
    return yaml::map_read(e.value, "'security' must be a map such as {data: tls}", kSecurity, top);
}

Status network_read(const yaml::Entry& e, Top& top) {
    return yaml::map_read(e.value, "'network' must be a map such as {wan: {latency_ms: 10, bandwidth_mbit: 100}}",
                          kNetwork, top);
}

Status subjobs_read(const yaml::Entry& e, Top& top) {
    if (!e.value.node().IsSequence() || e.value.node().size() == 0)
        return e.value.fail("'subjobs' must be a list of at least one subjob");
    top.subjobs = e.value;
    return {};
}

const auto kTopFields = joined(kCommon<Top>, std::array<yaml::Field<Top>, 3>{{
                                                 {"security", security_read},
                                                 {"network", network_read},
                                                 {"subjobs", subjobs_read,
                                                  "no 'subjobs'; list at least one subjob with its contact and count"},
                                             }});
const yaml::Table<Top> kTop{kTopFields};

// --- A subjob

Status contact_read(const yaml::Entry& e, Sub& sub) {
    Result<std::string> written = string_of(e);
    if (!written) return written.failure();
    base::Result<Contact> c = contact_parse(*written, [&](std::size_t offset, const std::string& why) {
        base::Position at = e.value.position();
        at.column += static_cast<int>(offset) + (e.value.quoted() ? 1 : 0);
        return e.value.document().fail(at, why);
    });
    if (!c) return c.failure();
    sub.s.contact = *c;
    return {};
}

Status count_read(const yaml::Entry& e, Sub& sub) {
    const base::Result<int> count = subjob_count_parse(scalar_of(e.value));
    if (!count) return e.value.fail(count.error());
    sub.s.count = *count;
    return {};
}

template <std::string SubjobRequest::*member>
Status label_read(const yaml::Entry& e, Sub& sub) {
    Result<std::string> s = string_of(e);
    if (!s) return s.failure();
    sub.s.*member = *s;
    return {};
}

Status subjob_network_read(const yaml::Entry& e, Sub& sub) {
    Result<std::string> s = string_of(e);
    if (!s) return s.failure();
    const Result<bool> private_site = network_parse(*s);
    if (!private_site) return e.value.fail(private_site.error());
    sub.s.network_private = *private_site;
    return {};
}

const auto kSubjobFields = joined(std::array<yaml::Field<Sub>, 2>{{
                                      {"contact", contact_read},
                                      {"count", count_read, "no 'count'; give the number of processes"},
                                  }},
                                  kCommon<Sub>,
                                  std::array<yaml::Field<Sub>, 5>{{
                                      {"site", label_read<&SubjobRequest::site>},
                                      {"network", subjob_network_read},
                                      {"machine", label_read<&SubjobRequest::machine>},
                                      {"host", label_read<&SubjobRequest::host>},
                                      {"processor_name", label_read<&SubjobRequest::processor_name>},
                                  }});
const yaml::Table<Sub> kSubjob{kSubjobFields};

// The subjob's environment: the top level's, with the subjob's variables
// replacing those of the same name; GLOBUS_LAN_ID is its site; what the top
// level's security and network settings imply unless the subjob sets it.
Status environment_merge(const yaml::Value& node, const Top& top, const Sub& sub, SubjobRequest& s) {
    std::vector<std::pair<std::string, std::string>> env = top.environment;
    for (const auto& entry : sub.environment) {
        std::erase_if(env, [&](const auto& p) { return p.first == entry.first; });
        env.push_back(entry);
    }
    for (const auto& [name, value] : env) {
        if (name != "GLOBUS_LAN_ID") {
            s.command.env.emplace_back(name, value);
        } else if (s.site.empty()) {
            s.site = value;
        } else if (s.site != value) {
            return node.fail("'site' is '" + s.site + "' but GLOBUS_LAN_ID is '" + value + "'; give one");
        }
    }
    const auto sets = [&](const char* name) {
        return std::any_of(env.begin(), env.end(), [&](const auto& p) { return p.first == name; });
    };
    Environment& out = s.command.env;
    // What the job's keys set (wireup/settings.hpp), unless its environment
    // sets the variable itself.
    const auto key_sets = [&](const wireup::Setting& setting, const std::string& value) {
        if (!sets(setting.variable)) out.emplace_back(setting.variable, value);
    };
    if (top.data_tls) key_sets(wireup::kDataTls, wireup::kDataTls.job_value);
    if (!top.emulation.empty()) key_sets(wireup::kEmulation, top.emulation.text());
    const std::optional<std::string>& bind = sub.bind_to ? sub.bind_to : top.bind_to;
    if (bind) key_sets(wireup::kBindTo, *bind);
    if (top.streams > 0) key_sets(wireup::kTcpStreams, std::to_string(top.streams));
    return {};
}

// host_count against the subjob's count and adapter; max_memory (else
// min_memory) as Slurm's memory per process, said in `ignored` at a fork
// contact, which has no scheduler to ask (as job_rsl.cpp does).
Status batch_resolve(const Top& top, const Sub& sub, SubjobRequest& s, std::vector<std::string>& ignored) {
    const auto given = [&](std::optional<yaml::Value> Common::*m) { return sub.*m ? sub.*m : top.*m; };
    if (const std::optional<yaml::Value> hosts = given(&Common::host_count)) {
        const Result<int> n = host_count_parse(scalar_of(*hosts), s.count, "host_count");
        if (!n) return hosts->fail(n.error());
        if (!host_count_allowed(*n, s.contact.adapter, s.host))
            return hosts->fail("'host_count: " + scalar_of(*hosts) + "': " + kForkOneHost);
        s.batch.host_count = *n;
    }
    const std::optional<yaml::Value> most = given(&Common::max_memory);
    const std::optional<yaml::Value> least = given(&Common::min_memory);
    const int most_mb = most ? *memory_parse(scalar_of(*most), "max_memory") : 0;
    const int least_mb = least ? *memory_parse(scalar_of(*least), "min_memory") : 0;
    switch (memory_choose(most_mb, least_mb, s.contact.adapter, s.batch.memory_mb)) {
        case MemoryOutcome::least_above_most:
            return least->fail("'min_memory' (" + scalar_of(*least) + ") is more than 'max_memory' (" +
                               scalar_of(*most) + ")");
        case MemoryOutcome::ignored:
            ignored.push_back((most ? *most : *least).position().text() + ": '" +
                              std::string(most ? "max_memory" : "min_memory") + "': " + kMemoryIgnored);
            break;
        case MemoryOutcome::asked: break;
    }
    return {};
}

Result<SubjobRequest> subjob_read(const yaml::Value& node, const Top& top, std::vector<std::string>& ignored) {
    Sub sub;
    sub.s.contact.host = "localhost";
    if (Status st = yaml::map_read(node, "expected a map with 'contact' and 'count'", kSubjob, sub); !st)
        return st.failure();
    SubjobRequest s = std::move(sub.s);
    const std::optional<std::string> exe = sub.executable ? sub.executable : top.executable;
    if (!exe) return node.fail("no 'executable'; give it at the top level or in the subjob");
    s.command.program = *exe;
    s.command.args = sub.arguments.value_or(top.arguments.value_or(std::vector<std::string>{}));
    if (Status st = environment_merge(node, top, sub, s); !st) return st.failure();
    s.command.directory = sub.directory.value_or(top.directory.value_or(""));
    s.command.stdin_file = sub.stdin_file.value_or(top.stdin_file.value_or(""));
    s.command.stdout_file = sub.stdout_file.value_or(top.stdout_file.value_or(""));
    s.command.stderr_file = sub.stderr_file.value_or(top.stderr_file.value_or(""));
    s.account = sub.account.value_or(top.account.value_or(""));
    s.strata = sub.strata.value_or(top.strata.value_or(""));
    s.batch.queue = sub.queue.value_or(top.queue.value_or(""));
    s.batch.project = sub.project.value_or(top.project.value_or(""));
    s.batch.max_wall_time_min = sub.max_wall_time.value_or(top.max_wall_time.value_or(0));
    if (Status st = batch_resolve(top, sub, s, ignored); !st) return st.failure();
    const Common& staging = sub.stage ? static_cast<const Common&>(sub) : top;
    s.stage = staging.stage.value_or(false);
    s.stage_files = staging.stage_files;
    return s;
}

}  // namespace

Result<JobRequest> parse_job_yaml(const std::string& text, const std::string& path) {
    yaml::Document doc(text, path);
    Result<yaml::Value> root = doc.root();
    if (!root) return root.failure();
    Top top;
    if (Status s = yaml::map_read(*root,
                                  "expected a map with 'executable' and 'subjobs' (a YAML job file) or an RSL "
                                  "request starting with '&' or '+'",
                                  kTop, top);
        !s)
        return s.failure();
    JobRequest job;
    for (const YAML::Node& node : top.subjobs->node()) {
        doc.prefix_set("subjob " + std::to_string(job.subjobs.size()) + ": ");
        Result<SubjobRequest> s = subjob_read(top.subjobs->of(node), top, job.ignored);
        if (!s) return s.failure();
        job.subjobs.push_back(std::move(*s));
    }
    doc.prefix_set("");
    for (const auto& [site, at] : top.emulated_sites) {
        // Captured by name: clang 14 cannot capture a structured binding.
        if (std::none_of(job.subjobs.begin(), job.subjobs.end(),
                         [&name = site](const SubjobRequest& s) { return subjob_site(s) == name; }))
            return doc.fail(at, "'network' names site '" + site + "', which no subjob is at");
    }
    return job;
}

}  // namespace strata::job
