// The YAML spelling, read with yaml-cpp: each element a map of its fields and
// of lists of its children, under the keys kElements names.
#include "commfile/tree.hpp"

#include <yaml-cpp/yaml.h>

namespace strata::commfile {

namespace {

class YamlReader {
public:
    YamlReader(const std::string& where, std::string& error) : where_(where), error_(error) {}

    bool element(const YAML::Node& n, const ElementSpec& spec, Node& out) {
        out.element = spec.element;
        out.line = line_of(n);
        if (n.IsScalar() && spec.text_is_name) {
            out.fields["name"] = Field{n.Scalar(), out.line};
            return true;
        }
        if (!n.IsMap()) {
            return fail(out.line, std::string("a ") + spec.element + " must be a map" +
                                      (spec.text_is_name ? " or a name" : "") + " (" + element_expects(spec, true) +
                                      ")");
        }
        std::map<std::string, int> seen;
        for (auto it = n.begin(); it != n.end(); ++it) {
            const int line = line_of(it->first);
            if (!it->first.IsScalar()) return fail(line, "keys must be plain words");
            const std::string key = it->first.Scalar();
            if (const auto [where, fresh] = seen.emplace(key, line); !fresh) {
                return fail(line, "'" + key + "' is given twice (first at line " + std::to_string(where->second) + ")");
            }
            if (!entry(key, it->second, line, spec, out)) return false;
        }
        return true;
    }

    bool fail(int line, const std::string& what) {
        error_ = where_ + ":" + std::to_string(line) + ": " + what;
        return false;
    }

    static int line_of(const YAML::Node& n) { return n.Mark().line < 0 ? 1 : n.Mark().line + 1; }

private:
    // One key of an element's map: a field, or its children.
    bool entry(const std::string& key, const YAML::Node& value, int line, const ElementSpec& spec, Node& out) {
        for (const FieldSpec& f : spec.fields) {
            if (key != f.name) continue;
            if (!value.IsScalar()) return fail(line_of(value), "'" + key + "' must be a plain value");
            out.fields[key] = Field{value.Scalar(), line_of(value)};
            return true;
        }
        for (const ChildSpec& c : spec.children) {
            if (key != c.yaml_key) continue;
            const ElementSpec& child = *element_spec(c.element);
            if (c.single) return element(value, child, out.children.emplace_back());
            if (!value.IsSequence()) return fail(line_of(value), "'" + key + "' must be a list");
            for (const YAML::Node& item : value) {
                if (!element(item, child, out.children.emplace_back())) return false;
            }
            return true;
        }
        return fail(line, "unknown key '" + key + "' in a " + spec.element +
                              " (expected: " + element_expects(spec, true) + ")");
    }

    const std::string& where_;
    std::string& error_;
};

}  // namespace

std::optional<Node> yaml_read(const std::string& text, const std::string& where, std::string& error) {
    YAML::Node doc;
    try {
        doc = YAML::Load(text);
    } catch (const YAML::ParserException& e) {
        error = where + ":" + std::to_string(e.mark.line < 0 ? 1 : e.mark.line + 1) + ": malformed YAML: " + e.msg;
        return std::nullopt;
    }
    YamlReader reader(where, error);
    if (!doc.IsMap()) {
        reader.fail(doc.IsDefined() ? YamlReader::line_of(doc) : 1,
                    "a communicator file is a map with 'comms' and 'intercomms'");
        return std::nullopt;
    }
    Node out;
    if (!reader.element(doc, *element_spec("communicators"), out)) return std::nullopt;
    if (!fields_check(out, where, error)) return std::nullopt;
    return out;
}

}  // namespace strata::commfile
