#include "gatekeeper/gridmap.hpp"

#include "base/file.hpp"

#include <cctype>

namespace strata::gatekeeper {

namespace {

bool account_name_valid(const std::string& a) {
    if (a.empty() || a.size() > 32 || a[0] == '-') return false;
    for (unsigned char c : a)
        if (!(std::isalnum(c) || c == '_' || c == '-' || c == '.')) return false;
    return true;
}

using Entry = std::pair<std::string, std::vector<std::string>>;

void space_skip(const std::string& line, std::size_t& i) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
}

// The subject at line[i] (not blank): a quoted DN (inside, \" is a quote
// and \\ a backslash) or a single word; `i` moves past it.
base::Result<std::string> subject_take(const std::string& line, std::size_t& i) {
    std::string dn;
    if (line[i] == '"') {
        ++i;
        bool closed = false;
        while (i < line.size()) {
            const char c = line[i++];
            if (c == '"') {
                closed = true;
                break;
            }
            if (c == '\\' && i < line.size() && (line[i] == '"' || line[i] == '\\')) {
                dn += line[i++];
                continue;
            }
            dn += c;
        }
        if (!closed) return base::Error{"the subject's closing '\"' is missing"};
    } else {
        while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) dn += line[i++];
    }
    if (dn.empty() || dn[0] != '/')
        return base::Error{"'" + dn + "' is not a subject; expected a quoted DN such as \"/O=Grid/CN=Jane Doe\""};
    return dn;
}

// The accounts after the subject `dn`: name[,name...], then only blanks.
base::Result<std::vector<std::string>> accounts_take(std::string list, const std::string& dn) {
    while (!list.empty() && std::isspace(static_cast<unsigned char>(list.back()))) list.pop_back();
    if (list.empty()) return base::Error{"no local account after the subject \"" + dn + "\""};
    std::vector<std::string> accounts;
    std::size_t a = 0;
    while (a <= list.size()) {
        std::size_t comma = list.find(',', a);
        if (comma == std::string::npos) comma = list.size();
        const std::string name = list.substr(a, comma - a);
        if (!account_name_valid(name))
            return base::Error{"'" + name + "' is not an account name (expected name[,name...] after the subject)"};
        accounts.push_back(name);
        a = comma + 1;
    }
    return accounts;
}

// The entry on one line; an empty subject for a blank or comment line.
base::Result<Entry> line_parse(const std::string& line) {
    std::size_t i = 0;
    space_skip(line, i);
    if (i == line.size() || line[i] == '#') return Entry{};
    base::Result<std::string> dn = subject_take(line, i);
    if (!dn) return dn.failure();
    space_skip(line, i);
    base::Result<std::vector<std::string>> accounts = accounts_take(line.substr(i), *dn);
    if (!accounts) return accounts.failure();
    return Entry{std::move(*dn), std::move(*accounts)};
}

}  // namespace

base::Result<GridMap> GridMap::parse(const std::string& text, const std::string& path) {
    GridMap map;
    std::size_t begin = 0;
    int line_no = 0;
    while (begin < text.size()) {
        std::size_t end = text.find('\n', begin);
        if (end == std::string::npos) end = text.size();
        const std::string line = text.substr(begin, end - begin);
        begin = end + 1;
        ++line_no;
        base::Result<Entry> entry = line_parse(line);
        if (entry && !entry->first.empty() && map.accounts(entry->first) != nullptr)
            entry = base::Error{"the subject \"" + entry->first + "\" is listed twice"};
        if (!entry) {
            std::string where = path;
            where += ':';
            where += std::to_string(line_no);
            where += ": ";
            return std::move(entry).failure().prefixed(where);
        }
        if (!entry->first.empty()) map.entries_.push_back(std::move(*entry));
    }
    return map;
}

base::Result<GridMap> GridMap::load(const std::string& path) {
    const base::Result<std::string> text = base::file_read(path, "grid-mapfile");
    if (!text) return text.failure();
    return parse(*text, path);
}

const std::vector<std::string>* GridMap::accounts(const std::string& subject) const {
    for (const auto& [dn, list] : entries_)
        if (dn == subject) return &list;
    return nullptr;
}

}  // namespace strata::gatekeeper
