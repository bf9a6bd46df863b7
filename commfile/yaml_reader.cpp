// The YAML spelling, read through the YAML layer (base/yaml.hpp): each element
// a map of its fields and of lists of its children, under the keys kElements
// names, read by a table of fields made from its ElementSpec. Messages give
// the line only, as the XML reader's and comm_file.cpp's do; a key given
// twice is the YAML layer's message, with line and column.
#include "commfile/tree.hpp"

#include "base/yaml.hpp"

#include <algorithm>

namespace strata::commfile {

namespace {

namespace yaml = base::yaml;
using base::Status;

// What an element's table reads into.
struct Element {
    const ElementSpec* spec;
    Node* out;
};

Status element_read(const yaml::Value& v, const ElementSpec& spec, Node& out);

Status field_read(const yaml::Entry& e, Element& el) {
    if (!e.value.node().IsScalar()) return e.value.fail("'" + e.key + "' must be a plain value");
    el.out->fields[e.key] = Field{e.value.node().Scalar(), e.value.position().line};
    return {};
}

Status children_read(const yaml::Entry& e, Element& el) {
    // Found: the element's table sends only its children's keys here.
    const auto c = std::find_if(el.spec->children.begin(), el.spec->children.end(),
                                [&](const ChildSpec& spec) { return e.key == spec.yaml_key; });
    const ElementSpec& child = *element_spec(c->element);
    if (c->single) return element_read(e.value, child, el.out->children.emplace_back());
    if (!e.value.node().IsSequence()) return e.value.fail("'" + e.key + "' must be a list");
    for (const YAML::Node& item : e.value.node()) {
        if (Status s = element_read(e.value.of(item), child, el.out->children.emplace_back()); !s) return s;
    }
    return {};
}

Status unknown_refuse(const yaml::Entry& e, Element& el) {
    return e.value.document().fail(e.position, "unknown key '" + e.key + "' in a " + el.spec->element +
                                                   " (expected: " + element_expects(*el.spec, true) + ")");
}

Status element_read(const yaml::Value& v, const ElementSpec& spec, Node& out) {
    out.element = spec.element;
    out.line = v.position().line;
    if (v.node().IsScalar() && spec.text_is_name) {
        out.fields["name"] = Field{v.node().Scalar(), out.line};
        return {};
    }
    std::vector<yaml::Field<Element>> fields;
    for (const FieldSpec& f : spec.fields) fields.push_back({f.name, field_read});
    for (const ChildSpec& c : spec.children) fields.push_back({c.yaml_key, children_read});
    Element el{&spec, &out};
    return yaml::map_read(v,
                          std::string("a ") + spec.element + " must be a map" +
                              (spec.text_is_name ? " or a name" : "") + " (" + element_expects(spec, true) + ")",
                          yaml::Table<Element>{.fields = fields, .unknown = unknown_refuse}, el);
}

}  // namespace

base::Result<Node> yaml_read(const std::string& text, const std::string& where) {
    const yaml::Document doc(text, where, {.columns = false});
    base::Result<yaml::Value> root = doc.root();
    if (!root) return root.failure();
    if (!root->node().IsMap()) return root->fail("a communicator file is a map with 'comms' and 'intercomms'");
    Node out;
    if (Status s = element_read(*root, *element_spec("communicators"), out); !s) return s.failure();
    if (Status s = fields_check(out, where); !s) return s.failure();
    return out;
}

}  // namespace strata::commfile
