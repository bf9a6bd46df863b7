// Classic Globus RSL (the subset MPICH-G2 users wrote), by recursive descent:
//
//   specification := '+' { '(' request ')' }  |  request
//   request       := '&' { relation }
//   relation      := '(' attribute '=' { value } ')'
//   value         := literal | '"' ... '"' | "'" ... "'" | '(' { value } ')'
//
// Quotes are escaped by doubling them; "(* ... *)" is a comment. Attribute
// names compare without case and without '_' (as Globus does).
#include "job/job_request.hpp"

#include "base/fields.hpp"
#include "wireup/settings.hpp"

#include <cctype>
#include <cstring>
#include <optional>

namespace strata::job {

namespace {

using base::Position;
using base::Result;
using base::Status;

struct Value {
    Position pos;
    bool sequence = false;  // '(' values ')'
    std::string text;       // a literal or a quoted string, unescaped
    bool quoted = false;
    std::vector<Value> items;
};

struct Relation {
    Position open;  // the '('
    Position attr_pos;
    std::string attribute;  // as written
    std::vector<Value> values;
};

struct Request {
    Position pos;  // the '&'
    std::vector<Relation> relations;
};

class RslParser {
public:
    RslParser(const std::string& text, const std::string& path) : text_(text), path_(path) {}

    // The requests, or the first problem.
    Result<std::vector<Request>> parse() {
        std::vector<Request> out;
        skip_blank();
        if (at_end()) return fail(here(), "expected an RSL request ('&(...)') or multi-request ('+(&(...))...'), got "
                                          "an empty file");
        if (peek() == '+') {
            ++i_;
            skip_blank();
            if (peek() != '(') return fail(here(), "expected '(' to start a request after '+', got " + got());
            while (peek() == '(') {
                const Position open = here();
                ++i_;
                skip_blank();
                Request r;
                if (Status s = parse_request(r); !s) return s.failure();
                if (peek() != ')')
                    return fail(here(), "expected ')' to close the request started at " + open.text() + ", got " + got());
                ++i_;
                out.push_back(std::move(r));
                skip_blank();
            }
        } else {
            Request r;
            if (Status s = parse_request(r); !s) return s.failure();
            out.push_back(std::move(r));
        }
        skip_blank();
        if (!at_end()) return fail(here(), "expected the end of the file after the request, got " + got());
        return out;
    }

    std::string where(const Position& p) const { return path_ + ":" + p.text() + ": "; }

private:
    Status parse_request(Request& r) {
        if (peek() != '&') return fail(here(), "expected '&' to start a request, got " + got());
        r.pos = here();
        ++i_;
        skip_blank();
        if (peek() != '(') return fail(here(), "expected '(' to start a relation after '&', got " + got());
        while (peek() == '(') {
            Relation rel;
            if (Status s = parse_relation(rel); !s) return s;
            r.relations.push_back(std::move(rel));
            skip_blank();
        }
        return {};
    }

    Status parse_relation(Relation& rel) {
        rel.open = here();
        ++i_;
        skip_blank();
        rel.attr_pos = here();
        while (!at_end() && literal_char(peek())) rel.attribute += text_[i_++];
        if (rel.attribute.empty()) return fail(here(), "expected an attribute name after '(', got " + got());
        skip_blank();
        if (peek() != '=') {
            if (peek() == '!' || peek() == '<' || peek() == '>')
                return fail(here(), "only '=' relations are supported; '" + rel.attribute + "' needs '='");
            return fail(here(), "expected '=' after '" + rel.attribute + "', got " + got());
        }
        ++i_;
        relation_open_ = rel.open;
        if (Status s = parse_values(rel.values, rel.open, "relation"); !s) return s;
        ++i_;
        return {};
    }

    // Values up to (not past) the ')' that closes what was opened at `open`.
    Status parse_values(std::vector<Value>& out, const Position& open, const char* what) {
        for (;;) {
            skip_blank();
            if (at_end() || peek() == '&' || peek() == '+' || peek() == '=' || peek() == '|')
                return fail(here(), std::string("expected ')' to close the ") + what + " started at " + open.text() +
                                        ", got " + got());
            if (peek() == ')') return {};
            Value v;
            v.pos = here();
            if (peek() == '(') {
                if (starts_relation())
                    return fail(here(), "expected ')' to close the relation started at " + relation_open_.text() +
                                            ", got '('");
                ++i_;
                v.sequence = true;
                if (Status s = parse_values(v.items, v.pos, "value list"); !s) return s;
                ++i_;
            } else if (peek() == '"' || peek() == '\'') {
                if (Status s = parse_quoted(v); !s) return s;
            } else if (peek() == '$') {
                return fail(here(), "RSL variables ($(NAME)) are not supported; write the value itself");
            } else if (peek() == '#') {
                return fail(here(), "RSL concatenation ('#') is not supported; write the value as one string");
            } else if (literal_char(peek())) {
                while (!at_end() && literal_char(peek())) v.text += text_[i_++];
            } else {
                return fail(here(), "unexpected " + got() + " in a value; quote it (\"...\")");
            }
            out.push_back(std::move(v));
        }
    }

    // At a quote: the string up to the matching one; a quote inside is doubled.
    Status parse_quoted(Value& v) {
        const char q = peek();
        v.quoted = true;
        ++i_;
        for (;;) {
            if (at_end()) return fail(v.pos, std::string("unterminated string; expected a closing ") + q);
            if (text_[i_] == q) {
                if (i_ + 1 < text_.size() && text_[i_ + 1] == q) {
                    v.text += q;
                    i_ += 2;
                    continue;
                }
                ++i_;
                return {};
            }
            v.text += text_[i_++];
        }
    }

    // At '(': whether "(attribute =" follows, i.e. the relation before was not closed.
    bool starts_relation() {
        const std::size_t saved = i_;
        ++i_;
        skip_blank();
        std::size_t n = 0;
        for (; !at_end() && literal_char(peek()); ++i_) ++n;
        skip_blank();
        const bool yes = n > 0 && peek() == '=';
        i_ = saved;
        return yes;
    }

    static bool literal_char(char c) {
        const unsigned char u = static_cast<unsigned char>(c);
        return !std::isspace(u) && std::strchr("()=&|+\"'!<>#$^", c) == nullptr;
    }

    void skip_blank() {
        for (;;) {
            while (!at_end() && std::isspace(static_cast<unsigned char>(text_[i_]))) ++i_;
            if (text_.compare(i_, 2, "(*") != 0) return;
            const std::size_t end = text_.find("*)", i_ + 2);
            i_ = end == std::string::npos ? text_.size() : end + 2;
        }
    }

    bool at_end() const { return i_ >= text_.size(); }
    char peek() const { return at_end() ? '\0' : text_[i_]; }
    std::string got() const {
        if (at_end()) return "the end of the file";
        return {'\'', text_[i_], '\''};
    }
    Position here() const {
        Position p{1, 1};
        for (std::size_t k = 0; k < i_; ++k) {
            if (text_[k] == '\n') {
                ++p.line;
                p.column = 1;
            } else {
                ++p.column;
            }
        }
        return p;
    }
    base::Error fail(const Position& p, const std::string& what) const { return base::Error{where(p) + what}; }

    const std::string& text_;
    const std::string& path_;
    std::size_t i_ = 0;
    Position relation_open_;
};

// Messages about one subjob: "PATH:LINE:COLUMN: subjob N: what".
class SubjobPlaces final : public base::Locator {
public:
    SubjobPlaces(const std::string& path, std::size_t index)
        : path_(path), who_("subjob " + std::to_string(index) + ": ") {}

    base::Error at(const Position& where, const std::string& what) const override {
        return base::Error{path_ + ":" + where.text() + ": " + who_ + what};
    }

private:
    const std::string& path_;
    std::string who_;
};

// A relation's values as the table's readers see them.
struct Values {
    const Relation* rel;
    const base::Locator* places;

    // Where the values start (the attribute when there are none).
    Position position() const { return rel->values.empty() ? rel->attr_pos : rel->values[0].pos; }
    base::Error fail(const Position& where, const std::string& what) const { return places->at(where, what); }

    // The relation's only value, a string.
    Result<std::string> single() const {
        const std::vector<Value>& v = rel->values;
        if (v.size() == 1 && !v[0].sequence) return v[0].text;
        return fail(position(), "'" + rel->attribute + "' takes a single value, got " +
                                    (v.empty() ? std::string("none")
                                               : std::to_string(v.size()) + (v[0].sequence ? " list" : " values")));
    }
    // Every value, each a string.
    Result<std::vector<std::string>> strings() const {
        std::vector<std::string> out;
        for (const Value& v : rel->values) {
            if (v.sequence) return fail(v.pos, "'" + rel->attribute + "' takes strings, not a parenthesized list");
            out.push_back(v.text);
        }
        return out;
    }
};

using Attribute = base::Entry<Values>;

// A value kept to be checked once the whole request is read (it depends on
// another attribute), with where it was written.
struct Later {
    std::string text;
    Position at;
    std::string attribute;  // as written
    bool given() const { return !attribute.empty(); }
};

// What the table's readers fill.
struct Reading {
    SubjobRequest s;
    std::optional<bool> stage;
    Position stage_files_at;
    Later host_count, max_memory, min_memory, max_time, wall_time, username, account;
    std::vector<std::string> library_path;
    std::vector<std::string> ignored;  // "LINE:COLUMN: 'NAME': why"
    // The site as the attribute and as the environment's GLOBUS_LAN_ID say
    // it: one of them, or both alike.
    std::string site;
    Position site_at;
    std::string lan_id;
};

// Attribute names compare without case and without '_', as Globus does.
std::string attribute_fold(const std::string& name) {
    std::string out;
    for (char c : name)
        if (c != '_') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

template <std::string SubjobRequest::*member>
Status string_read(const Attribute& a, Reading& r) {
    Result<std::string> v = a.value.single();
    if (!v) return v.failure();
    r.s.*member = *v;
    return {};
}

template <std::vector<std::string> SubjobRequest::*member>
Status strings_read(const Attribute& a, Reading& r) {
    Result<std::vector<std::string>> v = a.value.strings();
    if (!v) return v.failure();
    r.s.*member = *v;
    return {};
}

// The same for a field of a part of the subjob (its command, its batch request).
template <class Part, Part SubjobRequest::*part, std::string Part::*member>
Status part_string_read(const Attribute& a, Reading& r) {
    Result<std::string> v = a.value.single();
    if (!v) return v.failure();
    (r.s.*part).*member = *v;
    return {};
}

template <std::string Command::*member>
constexpr auto command_string_read = part_string_read<Command, &SubjobRequest::command, member>;
template <std::string Batch::*member>
constexpr auto batch_string_read = part_string_read<Batch, &SubjobRequest::batch, member>;

Status arguments_read(const Attribute& a, Reading& r) {
    Result<std::vector<std::string>> v = a.value.strings();
    if (!v) return v.failure();
    r.s.command.args = *v;
    return {};
}

Status contact_read(const Attribute& a, Reading& r) {
    Result<std::string> written = a.value.single();
    if (!written) return written.failure();
    Result<Contact> c = contact_parse(*written, [&](std::size_t offset, const std::string& why) {
        Position at = a.value.position();
        at.column += static_cast<int>(offset) + (a.value.rel->values[0].quoted ? 1 : 0);
        return a.value.fail(at, why);
    });
    if (!c) return c.failure();
    r.s.contact = *c;
    return {};
}

// An attribute's single value, kept for a check after the whole request.
template <Later Reading::*member>
Status later_read(const Attribute& a, Reading& r) {
    Result<std::string> written = a.value.single();
    if (!written) return written.failure();
    r.*member = Later{*written, a.value.position(), a.key};
    return {};
}

Status job_type_read(const Attribute& a, Reading&) {
    Result<std::string> written = a.value.single();
    if (!written) return written.failure();
    if (Status s = job_type_check(*written, a.key); !s) return a.value.fail(a.value.position(), s.error());
    return {};
}

Status library_path_read(const Attribute& a, Reading& r) {
    Result<std::vector<std::string>> v = a.value.strings();
    if (!v) return v.failure();
    r.library_path = *v;
    return {};
}

Status dry_run_read(const Attribute& a, Reading&) {
    Result<std::string> written = a.value.single();
    if (!written) return written.failure();
    std::string lower = *written;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower == "no" || lower == "false") return {};
    if (lower == "yes" || lower == "true")
        return a.value.fail(a.value.position(), "'" + a.key + "=yes': Strata has no dry run; mpirun -dumprsl prints "
                                                "the job without running it");
    return a.value.fail(a.value.position(), "'" + a.key + "' must be yes or no, got '" + *written + "'");
}

Status count_read(const Attribute& a, Reading& r) {
    Result<std::string> written = a.value.single();
    if (!written) return written.failure();
    const Result<int> count = subjob_count_parse(*written);
    if (!count) return a.value.fail(a.value.position(), count.error());
    r.s.count = *count;
    return {};
}

Status environment_read(const Attribute& a, Reading& r) {
    for (const Value& v : a.value.rel->values) {
        if (!v.sequence || v.items.size() != 2 || v.items[0].sequence || v.items[1].sequence)
            return a.value.fail(v.pos, "'environment' takes (NAME value) pairs, e.g. (environment=(FOO bar))");
        const std::string& name = v.items[0].text;
        if (!env_name_valid(name))
            return a.value.fail(v.items[0].pos, "'" + name + "' is not an environment variable name");
        if (std::string fault = wireup::setting_fault(name, v.items[1].text); !fault.empty())
            return a.value.fail(v.items[1].pos, fault);
        if (name == "GLOBUS_LAN_ID")
            r.lan_id = v.items[1].text;
        else
            r.s.command.env.emplace_back(name, v.items[1].text);
    }
    return {};
}

Status executable_read(const Attribute& a, Reading& r) {
    if (Status s = command_string_read<&Command::program>(a, r); !s) return s;
    if (r.s.command.program.empty()) return a.value.fail(a.value.position(), "'executable' is empty");
    return {};
}

Status stage_read(const Attribute& a, Reading& r) {
    Result<std::string> written = a.value.single();
    if (!written) return written.failure();
    std::string lower = *written;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower == "yes" || lower == "true" || lower == "no" || lower == "false") {
        r.stage = lower == "yes" || lower == "true";
        return {};
    }
    return a.value.fail(a.value.position(), "'stage' must be yes or no, got '" + *written + "'");
}

Status label_read(const Attribute& a, Reading&) {
    Result<std::string> label = a.value.single();  // regenerated when printed
    if (!label) return label.failure();
    return {};
}

Status stage_files_read(const Attribute& a, Reading& r) {
    r.stage_files_at = a.position;
    return strings_read<&SubjobRequest::stage_files>(a, r);
}

Status network_read(const Attribute& a, Reading& r) {
    Result<std::string> text = a.value.single();
    if (!text) return text.failure();
    const Result<bool> private_site = network_parse(*text);
    if (!private_site) return a.value.fail(a.value.position(), private_site.error());
    r.s.network_private = *private_site;
    return {};
}

Status site_read(const Attribute& a, Reading& r) {
    Result<std::string> site = a.value.single();
    if (!site) return site.failure();
    r.site = *site;
    r.site_at = a.value.position();
    return {};
}

const base::Field<Reading, Values> kAttributeFields[] = {
    {"resourceManagerContact", contact_read},
    {"count", count_read, "no 'count'; add (count=N)"},
    {"jobType", job_type_read},
    {"label", label_read},
    {"environment", environment_read},
    {"libraryPath", library_path_read},
    {"directory", command_string_read<&Command::directory>},
    {"stdin", command_string_read<&Command::stdin_file>},
    {"stdout", command_string_read<&Command::stdout_file>},
    {"stderr", command_string_read<&Command::stderr_file>},
    {"account", later_read<&Reading::account>},
    {"username", later_read<&Reading::username>},
    {"strata", string_read<&SubjobRequest::strata>},
    {"queue", batch_string_read<&Batch::queue>},
    {"project", batch_string_read<&Batch::project>},
    {"maxWallTime", later_read<&Reading::wall_time>},
    {"maxTime", later_read<&Reading::max_time>},
    {"hostCount", later_read<&Reading::host_count>},
    {"maxMemory", later_read<&Reading::max_memory>},
    {"minMemory", later_read<&Reading::min_memory>},
    {"dryRun", dry_run_read},
    {"executable", executable_read, "no 'executable'; add (executable=PATH)"},
    {"arguments", arguments_read},
    {"stage", stage_read},
    {"stageFiles", stage_files_read},
    {"site", site_read},
    {"machine", string_read<&SubjobRequest::machine>},
    {"host", string_read<&SubjobRequest::host>},
    {"processorName", string_read<&SubjobRequest::processor_name>},
    {"network", network_read},
};
// The rest of GRAM's RSL schema (GT2 names and GRAM5's alike, compared as
// attribute names are): accepted and said on stderr (why: what Strata does
// instead), or refused (why: what to write instead).
struct GramAttribute {
    const char* name;
    bool refused;
    const char* why;
};
constexpr const char* kStaging = "GASS URLs are not read; stage local files with (stageFiles=...)";
constexpr GramAttribute kGramOthers[] = {
    {"gramMyjob", false, "obsolete, and ignored by GRAM itself"},
    {"maxCpuTime", false, "Strata limits wall time only (maxWallTime)"},
    {"subjobStartType", false, "every subjob waits at Strata's startup barrier"},
    {"subjobCommsType", false, "every subjob joins the one MPI_COMM_WORLD"},
    {"twoPhase", false, "a GRAM job manager's commit protocol; strata-gatekeeper keeps its own records"},
    {"saveState", false, "a GRAM job manager's state file; strata-gatekeeper keeps its own records"},
    {"saveJobDescription", false, "a GRAM job manager's copy of the request"},
    {"expiration", false, "a GRAM job manager's clean-up delay"},
    {"proxyTimeout", false, "the delegated proxy lives STRATA_DELEGATION_HOURS"},
    {"scratchDir", false, "staged files go to a job directory of Strata's own"},
    {"gassCache", false, "staged files go to a job directory of Strata's own"},
    {"stdoutPosition", false, "for a restarted GRAM job's output; Strata does not restart jobs"},
    {"stderrPosition", false, "for a restarted GRAM job's output; Strata does not restart jobs"},
    {"logLevel", false, "strata-gatekeeper logs every decision"},
    {"logPattern", false, "strata-gatekeeper logs every decision"},
    {"restart", true, "Strata does not restart a GRAM job; run the job again"},
    {"remoteIoUrl", true, kStaging},
    {"fileStageIn", true, kStaging},
    {"fileStageInShared", true, kStaging},
    {"fileStageOut", true, "output is not staged out; it goes to mpirun, or to a file at the site (stdout=...)"},
    {"fileCleanUp", true, "Strata removes what it staged; other files at the site are the job's"},
};

Status gram_other_read(const Attribute& a, Reading& r);

const base::Table<Reading, Values> kAttributes{kAttributeFields, "attribute", "", attribute_fold, gram_other_read};

Status gram_other_read(const Attribute& a, Reading& r) {
    const std::string key = attribute_fold(a.key);
    for (const GramAttribute& g : kGramOthers) {
        if (attribute_fold(g.name) != key) continue;
        if (g.refused) return a.value.fail(a.position, "'" + a.key + "' cannot be honoured: " + g.why);
        r.ignored.push_back(a.position.text() + ": '" + a.key + "': " + g.why);
        return {};
    }
    return a.value.fail(a.position, "unknown attribute '" + a.key + "'; expected " + base::fields_expected(kAttributes) +
                                        ", or another attribute of GRAM's RSL schema (README: \"RSL\")");
}

// maxMemory is asked of Slurm as the memory of each process, else minMemory
// (Slurm reserves what it is asked for); no more than maxMemory may be the
// least. A fork contact has no scheduler to ask: said on stderr.
Status memory_resolve(Reading& r, const Values& places) {
    int most = 0, least = 0;
    for (auto [later, out] : {std::pair{&r.max_memory, &most}, std::pair{&r.min_memory, &least}}) {
        if (!later->given()) continue;
        const Result<int> mb = memory_parse(later->text, later->attribute);
        if (!mb) return places.fail(later->at, mb.error());
        *out = *mb;
    }
    switch (memory_choose(most, least, r.s.contact.adapter, r.s.batch.memory_mb)) {
        case MemoryOutcome::least_above_most:
            return places.fail(r.min_memory.at, "'" + r.min_memory.attribute + "' (" + r.min_memory.text +
                                                    ") is more than '" + r.max_memory.attribute + "' (" +
                                                    r.max_memory.text + ")");
        case MemoryOutcome::ignored: {
            const Later& said = most > 0 ? r.max_memory : r.min_memory;
            r.ignored.push_back(said.at.text() + ": '" + said.attribute + "': " + kMemoryIgnored);
            break;
        }
        case MemoryOutcome::asked: break;
    }
    return {};
}

// libraryPath: its directories after the LD_LIBRARY_PATH the environment
// gives, if any (as GRAM adds them to the job's library path).
void library_path_add(Reading& r) {
    std::string dirs;
    for (const std::string& d : r.library_path) {
        if (!dirs.empty()) dirs += ':';
        dirs += d;
    }
    for (auto& [name, value] : r.s.command.env) {
        if (name != "LD_LIBRARY_PATH") continue;
        if (!value.empty()) value += ':';
        value += dirs;
        return;
    }
    r.s.command.env.emplace_back("LD_LIBRARY_PATH", dirs);
}

// Two attributes that say one thing (account and username, maxWallTime and
// maxTime): the one given, or both alike.
Result<std::string> one_of(const Later& a, const Later& b, const Values& places) {
    if (a.given() && b.given() && a.text != b.text)
        return places.fail(b.at, "'" + b.attribute + "' is '" + b.text + "' but '" + a.attribute + "' is '" + a.text +
                                     "'; give one");
    return a.given() ? a.text : b.text;
}

// What needs the whole request: the aliases, hostCount against count,
// memory, and libraryPath into the environment.
Status later_resolve(Reading& r, const Values& places) {
    Result<std::string> account = one_of(r.account, r.username, places);
    if (!account) return account.failure();
    r.s.account = *account;
    const Later& wall = r.wall_time.given() ? r.wall_time : r.max_time;
    if (Result<std::string> same = one_of(r.wall_time, r.max_time, places); !same) return same.failure();
    if (wall.given()) {
        const Result<int> minutes = wall_time_parse(wall.text, wall.attribute);
        if (!minutes) return places.fail(wall.at, minutes.error());
        r.s.batch.max_wall_time_min = *minutes;
    }
    if (r.host_count.given()) {
        const Result<int> hosts = host_count_parse(r.host_count.text, r.s.count, r.host_count.attribute);
        if (!hosts) return places.fail(r.host_count.at, hosts.error());
        if (!host_count_allowed(*hosts, r.s.contact.adapter, r.s.host))
            return places.fail(r.host_count.at,
                               "'" + r.host_count.attribute + "=" + r.host_count.text + "': " + kForkOneHost);
        r.s.batch.host_count = *hosts;
    }
    if (!r.library_path.empty()) library_path_add(r);
    return memory_resolve(r, places);
}

// One request's relations as a subjob.
// `ignored` gets what the request says that Strata accepts and does not apply.
Result<SubjobRequest> subjob_from(const Request& request, const SubjobPlaces& places,
                                  std::vector<std::string>& ignored) {
    base::Map<Values> relations{&places, request.pos, {}};
    for (const Relation& rel : request.relations)
        relations.entries.push_back({rel.attribute, rel.attr_pos, {&rel, &places}});
    Reading r;
    r.s.contact.host = "localhost";  // without resourceManagerContact, this machine
    if (Status s = base::fields_read(kAttributes, relations, r); !s) return s.failure();
    if (Status s = later_resolve(r, Values{nullptr, &places}); !s) return s.failure();
    ignored.insert(ignored.end(), r.ignored.begin(), r.ignored.end());
    if (r.stage == false && !r.s.stage_files.empty())
        return places.at(r.stage_files_at, "'stageFiles' given with (stage=no)");
    r.s.stage = r.stage.value_or(false) || !r.s.stage_files.empty();
    if (!r.site.empty() && !r.lan_id.empty() && r.site != r.lan_id)
        return places.at(r.site_at, "'site' is '" + r.site + "' but GLOBUS_LAN_ID is '" + r.lan_id + "'; give one");
    r.s.site = !r.site.empty() ? r.site : r.lan_id;
    return std::move(r.s);
}

}  // namespace

Result<JobRequest> parse_job_rsl(const std::string& text, const std::string& path) {
    Result<std::vector<Request>> requests = RslParser(text, path).parse();
    if (!requests) return requests.failure();
    JobRequest job;
    for (std::size_t i = 0; i < requests->size(); ++i) {
        Result<SubjobRequest> s = subjob_from((*requests)[i], SubjobPlaces(path, i), job.ignored);
        if (!s) return s.failure();
        job.subjobs.push_back(std::move(*s));
    }
    return job;
}

}  // namespace strata::job
