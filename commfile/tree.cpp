#include "commfile/tree.hpp"

#include <array>
#include <charconv>

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

bool fields_check(const Node& node, const std::string& where, std::string& error) {
    const ElementSpec* spec = element_spec(node.element);
    for (const FieldSpec& f : spec->fields) {
        const auto it = node.fields.find(f.name);
        if (it == node.fields.end()) {
            if (!f.required) continue;
            error = where + ":" + std::to_string(node.line) + ": a " + node.element + " needs a " + f.name;
            return false;
        }
        const std::string& v = it->second.value;
        if (!f.number) {
            if (!v.empty()) continue;
            error = where + ":" + std::to_string(it->second.line) + ": the " + f.name + " of a " + node.element +
                    " is empty";
            return false;
        }
        int n = 0;
        const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
        if (ec != std::errc() || end != v.data() + v.size() || n < 0 || v.empty()) {
            error = where + ":" + std::to_string(it->second.line) + ": the " + f.name + " of a " + node.element +
                    " must be a number from 0, not '" + v + "'";
            return false;
        }
    }
    for (const Node& c : node.children) {
        if (!fields_check(c, where, error)) return false;
    }
    return true;
}

}  // namespace strata::commfile
