// A file format described as tables of fields, read by one engine.
//
// A source (the YAML layer in base/yaml.hpp, the RSL parser of
// job/job_rsl.cpp) turns one map of its file into a Map: its entries in
// the order of the file, each a key as written, where the key is, and the
// value in the source's own type; the map's own place; and a Locator that
// words a message at a place ("FILE:LINE:COLUMN: what").
//
// A Table lists the fields a map may hold: each one's name, the reader that
// checks its value and stores it in the output, and for a required field
// what to say when it is absent. fields_read walks the entries once, in
// order, and refuses, at the key
//   - a key given twice         "'KEY' is given twice (first at LINE:COLUMN)"
//   - a key the table lacks     "unknown key 'KEY'; expected a, b or c"
// and otherwise calls the field's reader, whose failure is the result; then,
// at the map, a required field that was not given (the field's own words).
// Rules across fields (one or the other, defaults from an enclosing map) stay
// with the caller, after fields_read.
#pragma once

#include "base/result.hpp"

#include <cstddef>
#include <map>
#include <span>
#include <string>
#include <vector>

namespace strata::base {

// Where something is written, counted from 1. Line 0: the file as a whole.
struct Position {
    int line = 0;
    int column = 0;

    std::string text() const;  // "LINE:COLUMN"
};

// How a source words a message about a place in its file.
class Locator {
public:
    // "FILE:LINE:COLUMN: what", say; at Position{}, "FILE: what".
    virtual Error at(const Position& where, const std::string& what) const = 0;

protected:
    ~Locator() = default;
};

template <class Value>
struct Entry {
    std::string key;    // as written
    Position position;  // of the key
    Value value;
};

template <class Value>
struct Map {
    const Locator* locator = nullptr;
    Position position{};  // of the map: where a missing field is reported
    std::vector<Entry<Value>> entries{};
};

template <class Out, class Value>
struct Field {
    const char* name;
    // Checks the value and stores it in `out`. It gets the whole entry, so
    // that a message can name the key as the file writes it.
    Status (*read)(const Entry<Value>& entry, Out& out);
    // Non-null: the field is required, and this is what to say when it is absent.
    const char* missing = nullptr;
    // Non-null: said in parentheses after the name in the list of expected keys.
    const char* note = nullptr;
};

template <class Out, class Value>
struct Table {
    std::span<const Field<Out, Value>> fields;
    // A key the table lacks is refused as "unknown NOUN 'KEY'IN; expected ...".
    std::string noun = "key";
    std::string in{};  // e.g. " in 'network'"
    // Keys compare with the fields' names after this (RSL ignores case and
    // '_'); null: as written.
    std::string (*fold)(const std::string& key) = nullptr;
    // Non-null: called for a key the table lacks instead of refusing it with
    // the words above (a format that has its own words for it).
    Status (*unknown)(const Entry<Value>& entry, Out& out) = nullptr;
};

// The names of the table's fields, in its order, "a, b (note) or c".
template <class Out, class Value>
std::string fields_expected(const Table<Out, Value>& table) {
    std::string out;
    const std::size_t n = table.fields.size();
    for (std::size_t i = 0; i < n; ++i) {
        if (i > 0) out += i + 1 == n ? " or " : ", ";
        out += table.fields[i].name;
        if (table.fields[i].note != nullptr) out += std::string(" (") + table.fields[i].note + ")";
    }
    return out;
}

// Reads `map` into `out` by `table` (see the top of this file).
template <class Out, class Value>
Status fields_read(const Table<Out, Value>& table, const Map<Value>& map, Out& out) {
    const auto folded = [&](const std::string& key) { return table.fold != nullptr ? table.fold(key) : key; };
    std::map<std::string, Position> seen;
    std::vector<bool> given(table.fields.size());
    for (const Entry<Value>& e : map.entries) {
        const std::string key = folded(e.key);
        if (const auto [first, fresh] = seen.emplace(key, e.position); !fresh)
            return map.locator->at(e.position,
                                   "'" + e.key + "' is given twice (first at " + first->second.text() + ")");
        std::size_t i = 0;
        while (i < table.fields.size() && folded(table.fields[i].name) != key) ++i;
        if (i == table.fields.size()) {
            if (table.unknown == nullptr)
                return map.locator->at(e.position, "unknown " + table.noun + " '" + e.key + "'" + table.in +
                                                       "; expected " + fields_expected(table));
            if (Status s = table.unknown(e, out); !s) return s;
            continue;
        }
        if (Status s = table.fields[i].read(e, out); !s) return s;
        given[i] = true;
    }
    for (std::size_t i = 0; i < table.fields.size(); ++i) {
        if (table.fields[i].missing != nullptr && !given[i])
            return map.locator->at(map.position, table.fields[i].missing);
    }
    return {};
}

}  // namespace strata::base
