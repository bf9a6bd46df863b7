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

}  // namespace

std::optional<GridMap> GridMap::parse(const std::string& text, const std::string& path, std::string& error) {
    GridMap map;
    std::size_t begin = 0;
    int line_no = 0;
    while (begin < text.size()) {
        std::size_t end = text.find('\n', begin);
        if (end == std::string::npos) end = text.size();
        const std::string line = text.substr(begin, end - begin);
        begin = end + 1;
        ++line_no;
        auto fail = [&](const std::string& what) {
            error = path + ":" + std::to_string(line_no) + ": " + what;
            return std::nullopt;
        };
        std::size_t i = 0;
        auto skip_space = [&] {
            while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
        };
        skip_space();
        if (i == line.size() || line[i] == '#') continue;
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
            if (!closed) return fail("the subject's closing '\"' is missing");
        } else {
            while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) dn += line[i++];
        }
        if (dn.empty() || dn[0] != '/')
            return fail("'" + dn + "' is not a subject; expected a quoted DN such as \"/O=Grid/CN=Jane Doe\"");
        skip_space();
        std::string list = line.substr(i);
        while (!list.empty() && std::isspace(static_cast<unsigned char>(list.back()))) list.pop_back();
        if (list.empty()) return fail("no local account after the subject \"" + dn + "\"");
        std::vector<std::string> accounts;
        std::size_t a = 0;
        while (a <= list.size()) {
            std::size_t comma = list.find(',', a);
            if (comma == std::string::npos) comma = list.size();
            const std::string name = list.substr(a, comma - a);
            if (!account_name_valid(name))
                return fail("'" + name + "' is not an account name (expected name[,name...] after the subject)");
            accounts.push_back(name);
            a = comma + 1;
        }
        if (map.accounts(dn) != nullptr) return fail("the subject \"" + dn + "\" is listed twice");
        map.entries_.emplace_back(std::move(dn), std::move(accounts));
    }
    return map;
}

std::optional<GridMap> GridMap::load(const std::string& path, std::string& error) {
    const std::optional<std::string> text = base::file_read(path, "grid-mapfile", error);
    if (!text) return std::nullopt;
    return parse(*text, path, error);
}

const std::vector<std::string>* GridMap::accounts(const std::string& subject) const {
    for (const auto& [dn, list] : entries_)
        if (dn == subject) return &list;
    return nullptr;
}

}  // namespace strata::gatekeeper
