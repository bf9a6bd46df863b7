// YAML files read through the field tables of base/fields.hpp.
//
// yaml-cpp throws; its exceptions stop here (Document::root). Every message
// names the node it is about, "FILE:LINE:COLUMN: what". A table's readers get
// a yaml::Entry and check its value with the typed readers below (string,
// integer in a range, list of strings, ...); a nested map is read with
// map_read and a table of its own.
//
// A library of its own (strata_base_yaml), so that only what reads YAML
// links yaml-cpp.
#pragma once

#include "base/fields.hpp"

#include <yaml-cpp/yaml.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace strata::base::yaml {

class Value;

// How a reader words its own messages. The engine's messages (a key given
// twice) read alike in every YAML file, with line and column.
struct Wording {
    bool columns = true;                         // "FILE:LINE:COLUMN: "; false: "FILE:LINE: "
    const char* malformed = "malformed YAML: ";  // before yaml-cpp's words for a document that does not parse
};

// One YAML file: its text, its name in messages, and what every message says
// after the place while a part of it is read ("subjob 2: ").
class Document final : public Locator {
public:
    // `text` must outlive the Document and its Values.
    Document(const std::string& text, std::string path, Wording wording = {});

    // The root node; for a document that does not parse,
    // "FILE:LINE:COLUMN: malformed YAML: what yaml-cpp says".
    Result<Value> root() const;

    // "FILE:LINE:COLUMN: PREFIX what", whatever the Wording (the engine's messages).
    Error at(const Position& where, const std::string& what) const override;
    // A message of the reader's own, in its Wording.
    Error fail(const Position& where, const std::string& what) const;

    // Said after the place in every message from now on; "" for nothing.
    void prefix_set(std::string prefix) { prefix_ = std::move(prefix); }
    const std::string& text() const { return text_; }

private:
    Error worded(const Position& where, bool columns, const std::string& what) const;

    const std::string& text_;
    std::string path_;
    Wording wording_;
    std::string prefix_;
};

// A node and the Document it belongs to.
class Value {
public:
    Value(YAML::Node node, const Document& document) : node_(std::move(node)), document_(&document) {}

    const YAML::Node& node() const { return node_; }
    const Document& document() const { return *document_; }
    // From 1; 1:1 for a node without a place (an empty document's root).
    Position position() const;
    // `what` at this node, in the Document's Wording.
    Error fail(const std::string& what) const { return document_->fail(position(), what); }
    // Another node of the same document.
    Value of(const YAML::Node& node) const { return Value(node, *document_); }
    // Whether the file writes this scalar in quotes (its text starts one column later).
    bool quoted() const;

private:
    YAML::Node node_;
    const Document* document_;
};

using Entry = base::Entry<Value>;
template <class Out>
using Field = base::Field<Out, Value>;
template <class Out>
using Table = base::Table<Out, Value>;

// The typed readers: each returns the value, or `what` at the node that is not
// what it should be.
Result<std::string> string(const Value& v, const std::string& what);  // any scalar
Result<std::string> nonempty_string(const Value& v, const std::string& what);
// A list of scalars; `what` at the value, or at the first item that is not a scalar.
Result<std::vector<std::string>> strings(const Value& v, const std::string& what);
// An integer from `lo` to `hi`.
Result<long long> integer(const Value& v, long long lo, long long hi, const std::string& what);
// true/false (and YAML's other spellings of them: yes, on, ...).
Result<bool> boolean(const Value& v, const std::string& what);

// A map of NAME: string, in the file's order (an environment, say). A name
// given twice is not refused here.
struct NamedStrings {
    const char* not_a_map;                              // the message when the value is not a map
    bool (*name_valid)(const std::string& name);        // null: any name
    const char* bad_name;                               // said after "'NAME' " for a name that is not valid
    std::string (*bad_value)(const std::string& name);  // the message for a value that is not a string
    // What is wrong with a string value ("" when nothing); null: any value.
    std::string (*value_fault)(std::string_view name, std::string_view value) = nullptr;
};
Result<std::vector<std::pair<std::string, std::string>>> named_strings(const Value& v, const NamedStrings& rules);

// The entries of a map, for fields_read; `what` when `v` is not a map. Keys
// must be scalars.
Result<Map<Value>> map(const Value& v, const std::string& what);

// map(), then fields_read().
template <class Out>
Status map_read(const Value& v, const std::string& what, const Table<Out>& table, Out& out) {
    Result<Map<Value>> m = map(v, what);
    if (!m) return m.failure();
    return fields_read(table, *m, out);
}

}  // namespace strata::base::yaml
