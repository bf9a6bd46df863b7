#include "base/yaml.hpp"

namespace strata::base::yaml {

namespace {

// yaml-cpp counts from 0 and has no place (-1) for some nodes.
Position position_of(const YAML::Mark& m) { return {m.line < 0 ? 1 : m.line + 1, m.column < 0 ? 1 : m.column + 1}; }

}  // namespace

Document::Document(const std::string& text, std::string path, Wording wording)
    : text_(text), path_(std::move(path)), wording_(wording) {}

Result<Value> Document::root() const {
    try {
        return Value(YAML::Load(text_), *this);
    } catch (const YAML::Exception& e) {
        return fail(position_of(e.mark), wording_.malformed + e.msg);
    }
}

Error Document::at(const Position& where, const std::string& what) const { return worded(where, true, what); }

Error Document::fail(const Position& where, const std::string& what) const {
    return worded(where, wording_.columns, what);
}

Error Document::worded(const Position& where, bool columns, const std::string& what) const {
    // Piece by piece: GCC 12 at -O3 warns (-Wrestrict, wrongly) on ":" + a temporary string.
    std::string place = path_;
    if (where.line > 0) {
        place += ':';
        place += columns ? where.text() : std::to_string(where.line);
    }
    return Error{place + ": " + prefix_ + what};
}

Position Value::position() const { return position_of(node_.Mark()); }

bool Value::quoted() const {
    const int pos = node_.Mark().pos;
    const std::string& text = document_->text();
    if (pos < 0 || static_cast<std::size_t>(pos) >= text.size()) return false;
    return text[static_cast<std::size_t>(pos)] == '"' || text[static_cast<std::size_t>(pos)] == '\'';
}

Result<std::string> string(const Value& v, const std::string& what) {
    if (!v.node().IsScalar()) return v.fail(what);
    return v.node().Scalar();
}

Result<std::string> nonempty_string(const Value& v, const std::string& what) {
    if (!v.node().IsScalar() || v.node().Scalar().empty()) return v.fail(what);
    return v.node().Scalar();
}

Result<std::vector<std::string>> strings(const Value& v, const std::string& what) {
    if (!v.node().IsSequence()) return v.fail(what);
    std::vector<std::string> out;
    for (const YAML::Node& item : v.node()) {
        if (!item.IsScalar()) return v.of(item).fail(what);
        out.push_back(item.Scalar());
    }
    return out;
}

Result<long long> integer(const Value& v, long long lo, long long hi, const std::string& what) {
    long long n = 0;
    if (!v.node().IsScalar() || !YAML::convert<long long>::decode(v.node(), n) || n < lo || n > hi) return v.fail(what);
    return n;
}

Result<bool> boolean(const Value& v, const std::string& what) {
    bool b = false;
    if (!v.node().IsScalar() || !YAML::convert<bool>::decode(v.node(), b)) return v.fail(what);
    return b;
}

Result<std::vector<std::pair<std::string, std::string>>> named_strings(const Value& v, const NamedStrings& rules) {
    if (!v.node().IsMap()) return v.fail(rules.not_a_map);
    std::vector<std::pair<std::string, std::string>> out;
    for (auto it = v.node().begin(); it != v.node().end(); ++it) {
        const std::string name = it->first.IsScalar() ? it->first.Scalar() : std::string();
        if (rules.name_valid != nullptr && !rules.name_valid(name))
            return v.of(it->first).fail("'" + name + "' " + rules.bad_name);
        if (!it->second.IsScalar()) return v.of(it->second).fail(rules.bad_value(name));
        if (rules.value_fault != nullptr) {
            if (std::string fault = rules.value_fault(name, it->second.Scalar()); !fault.empty())
                return v.of(it->second).fail(fault);
        }
        out.emplace_back(name, it->second.Scalar());
    }
    return out;
}

Result<Map<Value>> map(const Value& v, const std::string& what) {
    if (!v.node().IsMap()) return v.fail(what);
    Map<Value> m{&v.document(), v.position(), {}};
    for (auto it = v.node().begin(); it != v.node().end(); ++it) {
        const Value key = v.of(it->first);
        if (!it->first.IsScalar()) return key.fail("keys must be plain words");
        m.entries.push_back({it->first.Scalar(), key.position(), v.of(it->second)});
    }
    return m;
}

}  // namespace strata::base::yaml
