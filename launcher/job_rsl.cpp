// Classic Globus RSL (the subset MPICH-G2 users wrote), by recursive descent:
//
//   specification := '+' { '(' request ')' }  |  request
//   request       := '&' { relation }
//   relation      := '(' attribute '=' { value } ')'
//   value         := literal | '"' ... '"' | "'" ... "'" | '(' { value } ')'
//
// Quotes are escaped by doubling them; "(* ... *)" is a comment. Attribute
// names compare without case and without '_' (as Globus does).
#include "launcher/job_request.hpp"

#include <cctype>
#include <cstring>
#include <map>
#include <optional>

namespace strata::launcher {

namespace {

struct Pos {
    int line = 1;
    int column = 1;
    std::string text() const { return std::to_string(line) + ":" + std::to_string(column); }
};

struct Value {
    Pos pos;
    bool sequence = false;  // '(' values ')'
    std::string text;       // a literal or a quoted string, unescaped
    bool quoted = false;
    std::vector<Value> items;
};

struct Relation {
    Pos open;       // the '('
    Pos attr_pos;
    std::string attribute;  // as written
    std::string key;        // lower case, without '_'
    std::vector<Value> values;
};

struct Request {
    Pos pos;  // the '&'
    std::vector<Relation> relations;
};

constexpr const char* kAttributes =
    "resourceManagerContact, count, label, environment, directory, account, executable, arguments, stage, stageFiles, "
    "site, machine, host or processorName";

class RslParser {
public:
    RslParser(const std::string& text, const std::string& path) : text_(text), path_(path) {}

    // Sets error_ and returns false on the first problem.
    bool parse(std::vector<Request>& out) {
        skip_blank();
        if (at_end()) return fail(here(), "expected an RSL request ('&(...)') or multi-request ('+(&(...))...'), got "
                                          "an empty file");
        if (peek() == '+') {
            ++i_;
            skip_blank();
            if (peek() != '(') return fail(here(), "expected '(' to start a request after '+', got " + got());
            while (peek() == '(') {
                const Pos open = here();
                ++i_;
                skip_blank();
                Request r;
                if (!parse_request(r)) return false;
                if (peek() != ')')
                    return fail(here(), "expected ')' to close the request started at " + open.text() + ", got " + got());
                ++i_;
                out.push_back(std::move(r));
                skip_blank();
            }
        } else {
            Request r;
            if (!parse_request(r)) return false;
            out.push_back(std::move(r));
        }
        skip_blank();
        if (!at_end()) return fail(here(), "expected the end of the file after the request, got " + got());
        return true;
    }

    const std::string& error() const { return error_; }

    std::string where(const Pos& p) const { return path_ + ":" + p.text() + ": "; }

private:
    bool parse_request(Request& r) {
        if (peek() != '&') return fail(here(), "expected '&' to start a request, got " + got());
        r.pos = here();
        ++i_;
        skip_blank();
        if (peek() != '(') return fail(here(), "expected '(' to start a relation after '&', got " + got());
        while (peek() == '(') {
            Relation rel;
            if (!parse_relation(rel)) return false;
            r.relations.push_back(std::move(rel));
            skip_blank();
        }
        return true;
    }

    bool parse_relation(Relation& rel) {
        rel.open = here();
        ++i_;
        skip_blank();
        rel.attr_pos = here();
        while (!at_end() && literal_char(peek())) rel.attribute += text_[i_++];
        if (rel.attribute.empty()) return fail(here(), "expected an attribute name after '(', got " + got());
        for (char c : rel.attribute)
            if (c != '_') rel.key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        skip_blank();
        if (peek() != '=') {
            if (peek() == '!' || peek() == '<' || peek() == '>')
                return fail(here(), "only '=' relations are supported; '" + rel.attribute + "' needs '='");
            return fail(here(), "expected '=' after '" + rel.attribute + "', got " + got());
        }
        ++i_;
        relation_open_ = rel.open;
        return parse_values(rel.values, rel.open, "relation") && (++i_, true);
    }

    // Values up to (not past) the ')' that closes what was opened at `open`.
    bool parse_values(std::vector<Value>& out, const Pos& open, const char* what) {
        for (;;) {
            skip_blank();
            if (at_end() || peek() == '&' || peek() == '+' || peek() == '=' || peek() == '|')
                return fail(here(), std::string("expected ')' to close the ") + what + " started at " + open.text() +
                                        ", got " + got());
            if (peek() == ')') return true;
            Value v;
            v.pos = here();
            if (peek() == '(') {
                if (starts_relation())
                    return fail(here(), "expected ')' to close the relation started at " + relation_open_.text() +
                                            ", got '('");
                ++i_;
                v.sequence = true;
                if (!parse_values(v.items, v.pos, "value list")) return false;
                ++i_;
            } else if (peek() == '"' || peek() == '\'') {
                const char q = peek();
                v.quoted = true;
                ++i_;
                for (;;) {
                    if (at_end())
                        return fail(v.pos, std::string("unterminated string; expected a closing ") + q);
                    if (text_[i_] == q) {
                        if (i_ + 1 < text_.size() && text_[i_ + 1] == q) {
                            v.text += q;
                            i_ += 2;
                            continue;
                        }
                        ++i_;
                        break;
                    }
                    v.text += text_[i_++];
                }
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
    Pos here() const {
        Pos p;
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
    bool fail(const Pos& p, const std::string& what) {
        error_ = where(p) + what;
        return false;
    }

    const std::string& text_;
    const std::string& path_;
    std::size_t i_ = 0;
    Pos relation_open_;
    std::string error_;
};

// Turns one request's relations into a subjob; returns an error or "".
std::string subjob_from(const Request& r, int index, const RslParser& p, SubjobRequest& s) {
    const std::string who = "subjob " + std::to_string(index) + ": ";
    auto at = [&](const Pos& pos, const std::string& what) { return p.where(pos) + who + what; };
    std::map<std::string, const Relation*> seen;
    bool have_contact = false;
    bool have_count = false;
    bool have_executable = false;
    std::optional<bool> stage;
    std::string site_attr;
    Pos site_pos;
    std::string lan_id;
    for (const Relation& rel : r.relations) {
        if (const auto it = seen.find(rel.key); it != seen.end())
            return at(rel.attr_pos, "'" + rel.attribute + "' is given twice (first at " + it->second->attr_pos.text() + ")");
        seen[rel.key] = &rel;
        const Pos value_pos = rel.values.empty() ? rel.attr_pos : rel.values[0].pos;
        auto single = [&](std::string& out) -> std::string {
            if (rel.values.size() != 1 || rel.values[0].sequence)
                return at(value_pos, "'" + rel.attribute + "' takes a single value, got " +
                                         (rel.values.empty() ? std::string("none") : std::to_string(rel.values.size()) +
                                                                                         (rel.values[0].sequence ? " list" : " values")));
            out = rel.values[0].text;
            return {};
        };
        auto strings = [&](std::vector<std::string>& out) -> std::string {
            for (const Value& v : rel.values) {
                if (v.sequence) return at(v.pos, "'" + rel.attribute + "' takes strings, not a parenthesized list");
                out.push_back(v.text);
            }
            return {};
        };
        std::string e;
        std::string value;
        if (rel.key == "resourcemanagercontact") {
            if (!(e = single(value)).empty()) return e;
            std::string why;
            std::size_t offset = 0;
            std::optional<Contact> c = contact_parse(value, why, offset);
            if (!c) {
                Pos pos = value_pos;
                pos.column += static_cast<int>(offset) + (rel.values[0].quoted ? 1 : 0);
                return at(pos, why);
            }
            s.contact = *c;
            have_contact = true;
        } else if (rel.key == "count") {
            if (!(e = single(value)).empty()) return e;
            if (const std::string why = subjob_count_parse(value, s.count); !why.empty()) return at(value_pos, why);
            have_count = true;
        } else if (rel.key == "label") {
            if (!(e = single(value)).empty()) return e;  // regenerated when printed
        } else if (rel.key == "environment") {
            for (const Value& v : rel.values) {
                if (!v.sequence || v.items.size() != 2 || v.items[0].sequence || v.items[1].sequence)
                    return at(v.pos, "'environment' takes (NAME value) pairs, e.g. (environment=(FOO bar))");
                const std::string& name = v.items[0].text;
                if (!env_name_valid(name))
                    return at(v.items[0].pos, "'" + name + "' is not an environment variable name");
                if (name == "GLOBUS_LAN_ID")
                    lan_id = v.items[1].text;
                else
                    s.environment.push_back(name + "=" + v.items[1].text);
            }
        } else if (rel.key == "directory") {
            if (!(e = single(s.directory)).empty()) return e;
        } else if (rel.key == "account") {
            if (!(e = single(s.account)).empty()) return e;
        } else if (rel.key == "executable") {
            if (!(e = single(s.executable)).empty()) return e;
            if (s.executable.empty()) return at(value_pos, "'executable' is empty");
            have_executable = true;
        } else if (rel.key == "arguments") {
            if (!(e = strings(s.arguments)).empty()) return e;
        } else if (rel.key == "stage") {
            if (!(e = single(value)).empty()) return e;
            std::string lower = value;
            for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
            if (lower == "yes" || lower == "true")
                stage = true;
            else if (lower == "no" || lower == "false")
                stage = false;
            else
                return at(value_pos, "'stage' must be yes or no, got '" + value + "'");
        } else if (rel.key == "stagefiles") {
            if (!(e = strings(s.stage_files)).empty()) return e;
        } else if (rel.key == "site") {
            if (!(e = single(site_attr)).empty()) return e;
            site_pos = value_pos;
        } else if (rel.key == "machine") {
            if (!(e = single(s.machine)).empty()) return e;
        } else if (rel.key == "host") {
            if (!(e = single(s.host)).empty()) return e;
        } else if (rel.key == "processorname") {
            if (!(e = single(s.processor_name)).empty()) return e;
        } else {
            return at(rel.attr_pos, "unknown attribute '" + rel.attribute + "'; expected " + kAttributes);
        }
    }
    if (!have_contact) s.contact.host = "localhost";
    if (!have_count) return at(r.pos, "no 'count'; add (count=N)");
    if (!have_executable) return at(r.pos, "no 'executable'; add (executable=PATH)");
    if (stage == false && !s.stage_files.empty())
        return at(seen["stagefiles"]->attr_pos, "'stageFiles' given with (stage=no)");
    s.stage = stage.value_or(false) || !s.stage_files.empty();
    if (!site_attr.empty() && !lan_id.empty() && site_attr != lan_id)
        return at(site_pos, "'site' is '" + site_attr + "' but GLOBUS_LAN_ID is '" + lan_id + "'; give one");
    s.site = !site_attr.empty() ? site_attr : lan_id;
    return {};
}

}  // namespace

std::optional<JobRequest> parse_job_rsl(const std::string& text, const std::string& path, std::string& error) {
    RslParser parser(text, path);
    std::vector<Request> requests;
    if (!parser.parse(requests)) {
        error = parser.error();
        return std::nullopt;
    }
    JobRequest job;
    for (std::size_t i = 0; i < requests.size(); ++i) {
        SubjobRequest s;
        error = subjob_from(requests[i], static_cast<int>(i), parser, s);
        if (!error.empty()) return std::nullopt;
        job.subjobs.push_back(std::move(s));
    }
    return job;
}

}  // namespace strata::launcher
