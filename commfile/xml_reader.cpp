// The XML spelling, read with libxml2: no network, no external DTD, entities
// left alone, and the parser's own messages kept off stderr (they come back
// as the error of the read).
#include "commfile/tree.hpp"

#include <libxml/parser.h>
#include <libxml/tree.h>

#include <cstring>
#include <memory>
#include <string>

namespace strata::commfile {

namespace {

struct DocFree {
    void operator()(xmlDoc* d) const { xmlFreeDoc(d); }
};
struct CtxtFree {
    void operator()(xmlParserCtxt* c) const { xmlFreeParserCtxt(c); }
};

std::string text_of(const xmlChar* s) { return s == nullptr ? std::string() : reinterpret_cast<const char*>(s); }

std::string trimmed(const std::string& s) {
    const auto b = s.find_first_not_of(" \t\r\n");
    if (b == std::string::npos) return {};
    return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

class XmlReader {
public:
    explicit XmlReader(const std::string& where) : where_(where) {}

    base::Status element(xmlNode* n, const ElementSpec& spec, Node& out) const {
        out.element = spec.element;
        out.line = static_cast<int>(xmlGetLineNo(n));
        for (xmlAttr* a = n->properties; a != nullptr; a = a->next) {
            const std::string name = text_of(a->name);
            if (!field_known(spec, name)) return unknown(out.line, spec, "attribute '" + name + "'");
            xmlChar* value = xmlNodeListGetString(n->doc, a->children, 1);
            out.fields[name] = Field{text_of(value), out.line};
            xmlFree(value);
        }
        std::string text;
        for (xmlNode* c = n->children; c != nullptr; c = c->next) {
            if (c->type == XML_TEXT_NODE || c->type == XML_CDATA_SECTION_NODE) {
                text += text_of(c->content);
            } else if (c->type == XML_ELEMENT_NODE) {
                const ChildSpec* child = child_of(spec, text_of(c->name));
                if (child == nullptr) {
                    return unknown(static_cast<int>(xmlGetLineNo(c)), spec, "element <" + text_of(c->name) + ">");
                }
                Node& made = out.children.emplace_back();
                if (base::Status s = element(c, *element_spec(child->element), made); !s) return s;
            } else if (c->type == XML_ENTITY_REF_NODE) {
                return fail(static_cast<int>(xmlGetLineNo(n)),
                            "entity '&" + text_of(c->name) + ";' is not one of XML's own; write the text itself");
            }
        }
        text = trimmed(text);
        if (text.empty()) return {};
        if (!spec.text_is_name) return fail(out.line, "unexpected text '" + text + "' in a " + out.element);
        if (out.fields.count("name") != 0) {
            return fail(out.line, "a " + out.element + " gives its name both as text and as an attribute");
        }
        out.fields["name"] = Field{text, out.line};
        return {};
    }

    base::Error fail(int line, const std::string& what) const {
        return base::Error{where_ + ":" + std::to_string(line) + ": " + what};
    }

private:
    static bool field_known(const ElementSpec& spec, const std::string& name) {
        for (const FieldSpec& f : spec.fields) {
            if (name == f.name) return true;
        }
        return false;
    }
    static const ChildSpec* child_of(const ElementSpec& spec, const std::string& element) {
        for (const ChildSpec& c : spec.children) {
            if (element == c.element) return &c;
        }
        return nullptr;
    }
    base::Error unknown(int line, const ElementSpec& spec, const std::string& what) const {
        return fail(line,
                    "unknown " + what + " in a " + spec.element + " (expected: " + element_expects(spec, false) + ")");
    }

    const std::string& where_;
};

// The parser's first error (later ones follow from it), instead of its
// printing to stderr.
struct FirstError {
    int line = 0;
    int code = 0;  // libxml2's xmlParserErrors
    std::string message;
};

void first_error_keep(void* data, xmlError* e) {
    auto* first = static_cast<FirstError*>(data);
    if (!first->message.empty() || e == nullptr || e->level < XML_ERR_ERROR) return;
    first->line = e->line > 0 ? e->line : 1;
    first->code = e->code;
    first->message = e->message != nullptr ? trimmed(e->message) : "unreadable";
}

using DocPtr = std::unique_ptr<xmlDoc, DocFree>;

// `text` as a document, or null with the first error in `first`.
DocPtr document_read(const std::string& text, const std::string& where, FirstError& first) {
    std::unique_ptr<xmlParserCtxt, CtxtFree> ctxt(xmlNewParserCtxt());
    if (!ctxt) {
        first.message = "out of memory";
        return nullptr;
    }
    // The handler is per thread in libxml2; it is put back at once.
    xmlSetStructuredErrorFunc(&first, first_error_keep);
    const int options = XML_PARSE_NONET | XML_PARSE_NOWARNING | XML_PARSE_BIG_LINES;
    DocPtr doc(xmlCtxtReadMemory(ctxt.get(), text.data(), static_cast<int>(text.size()), where.c_str(), nullptr,
                                 options));
    xmlSetStructuredErrorFunc(nullptr, nullptr);
    if (!first.message.empty()) doc.reset();
    return doc;
}

// Where the first element of `text` starts, past the XML declaration,
// comments and processing instructions; npos when there is none, or a
// DOCTYPE (which names the document's one root) comes first.
std::size_t first_element_at(const std::string& text) {
    for (std::size_t at = text.find('<'); at != std::string::npos; at = text.find('<', at)) {
        const char* end = text.compare(at, 4, "<!--") == 0 ? "-->" : text.compare(at, 2, "<?") == 0 ? "?>" : nullptr;
        if (end == nullptr) return text.compare(at, 2, "<!") == 0 ? std::string::npos : at;
        at = text.find(end, at + 2);
        if (at == std::string::npos) return at;
        at += std::strlen(end);
    }
    return std::string::npos;
}

}  // namespace

base::Result<Node> xml_read(const std::string& text, const std::string& where) {
    FirstError first;
    DocPtr doc = document_read(text, where, first);
    // Several top-level <comm> and <intercomm> elements with no root around
    // them, as the MetaMPICH paper prints its files: read as if wrapped in
    // one, opened on the first element's own line so that lines stay.
    if (!doc && first.code == XML_ERR_DOCUMENT_END) {
        if (const std::size_t at = first_element_at(text); at != std::string::npos) {
            first = FirstError{};
            doc = document_read(text.substr(0, at) + "<communicators>" + text.substr(at) + "</communicators>", where,
                                first);
        }
    }
    if (!doc) {
        return base::Error{where + ":" + std::to_string(first.message.empty() ? 1 : first.line) +
                           ": malformed XML: " + (first.message.empty() ? std::string("unreadable") : first.message)};
    }
    const XmlReader reader(where);
    xmlNode* root = xmlDocGetRootElement(doc.get());
    Node out;
    // The root element, whatever its name, holds the definitions; a file may
    // also be one <comm> or <intercomm> alone.
    const std::string root_name = text_of(root->name);
    if (root_name == "comm" || root_name == "intercomm") {
        out.element = "communicators";
        out.line = static_cast<int>(xmlGetLineNo(root));
        if (base::Status s = reader.element(root, *element_spec(root_name), out.children.emplace_back()); !s)
            return s.failure();
    } else if (base::Status s = reader.element(root, *element_spec("communicators"), out); !s) {
        return s.failure();
    }
    if (base::Status s = fields_check(out, where); !s) return s.failure();
    return out;
}

}  // namespace strata::commfile
