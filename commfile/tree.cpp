#include "commfile/tree.hpp"

#include "base/numbers.hpp"

#include <array>

namespace strata::commfile {

namespace {

const std::array<ElementSpec, 6> kElements{{
    {"communicators", {}, false, {{"comms", "comm", false}, {"intercomms", "intercomm", false}}},
    {"comm",
     {{"name", false, true}},
     false,
     {{"processors", "processor", false}, {"comms", "comm", false}, {"intercomms", "intercomm", false}}},
    {"processor", {{"name", false, true}, {"key", true, false}}, true, {}},
    {"intercomm", {{"name", false, true}}, false, {{"first", "first", true}, {"second", "second", true}}},
    {"first", {{"name", false, true}, {"color", true, false}}, true, {}},
    {"second", {{"name", false, true}, {"color", true, false}}, true, {}},
}};

}  // namespace

const ElementSpec* element_spec(const std::string& element) {
    for (const ElementSpec& s : kElements) {
        if (element == s.element) return &s;
    }
    return nullptr;
}

std::string element_expects(const ElementSpec& spec, bool yaml) {
    std::string out;
    auto add = [&](const char* word) { out += (out.empty() ? "" : ", ") + std::string(word); };
    for (const FieldSpec& f : spec.fields) add(f.name);
    for (const ChildSpec& c : spec.children) add(yaml ? c.yaml_key : c.element);
    return out;
}

namespace {

// "WHERE:LINE: what"
base::Error field_fail(const std::string& where, int line, const std::string& what) {
    return base::Error{where + ":" + std::to_string(line) + ": " + what};
}

// A field's value well formed; a number's read into the field.
base::Status field_check(const Node& node, const FieldSpec& f, Field& field, const std::string& where) {
    const std::string& v = field.value;
    if (!f.number) {
        if (!v.empty()) return {};
        return field_fail(where, field.line, "the " + std::string(f.name) + " of a " + node.element + " is empty");
    }
    const base::ParsedInt<int> n = base::parse_int<int>(v, 0);
    if (!n) {
        return field_fail(
            where, field.line,
            "the " + std::string(f.name) + " of a " + node.element + " must be a number from 0, not '" + v + "'");
    }
    field.number = *n;
    return {};
}

}  // namespace

base::Status fields_check(Node& node, const std::string& where) {
    const ElementSpec* spec = element_spec(node.element);
    for (const FieldSpec& f : spec->fields) {
        const auto it = node.fields.find(f.name);
        if (it == node.fields.end()) {
            if (!f.required) continue;
            return field_fail(where, node.line, "a " + node.element + " needs a " + f.name);
        }
        if (base::Status s = field_check(node, f, it->second, where); !s) return s;
    }
    for (Node& c : node.children) {
        if (base::Status s = fields_check(c, where); !s) return s;
    }
    return {};
}

}  // namespace strata::commfile
