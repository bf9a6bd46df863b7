#include "launcher/machine_file.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <sstream>

#include "base/file.hpp"

namespace strata::launcher {

namespace {

constexpr const char* kForms = "expected 'host', 'host N' or 'host:N'";

bool hostname_valid(const std::string& h) { return host_name_valid(h); }

bool ipv6_valid(const std::string& h) {
    in6_addr a{};
    const std::string bare = h.substr(0, h.find('%'));
    return ::inet_pton(AF_INET6, bare.c_str(), &a) == 1;
}

// Parses a process count; on failure returns the reason.
std::string parse_count(const std::string& text, int& out) {
    if (text.empty()) return "missing process count; " + std::string(kForms) + " with N a positive integer";
    for (unsigned char c : text)
        if (!std::isdigit(c)) return "'" + text + "' is not a process count; expected a positive integer";
    if (text.size() > 9 || std::stol(text) > MachineFile::kMaxSlots)
        return "process count " + text + " is too large; at most " + std::to_string(MachineFile::kMaxSlots) +
               " per line";
    out = std::stoi(text);
    if (out < 1) return "process count must be at least 1";
    return {};
}

// "contact [N]"; `column` (1-based) is where a contact is malformed.
std::string parse_contact_line(const std::string& content, const std::string& first, const std::string& second,
                               MachineEntry& e, int& column) {
    std::string why;
    std::size_t offset = 0;
    std::optional<Contact> c = contact_parse(first, why, offset);
    if (!c) {
        column = static_cast<int>(content.find(first) + offset) + 1;
        return why;
    }
    e.host = c->host;
    e.contact = *c;
    e.slots = 1;
    if (!second.empty()) return parse_count(second, e.slots);
    return {};
}

// One non-blank, comment-free line; returns the reason it is malformed, if so.
std::string parse_line(const std::string& content, MachineEntry& e, int& column) {
    std::istringstream in(content);
    std::string first;
    std::string second;
    std::string extra;
    in >> first >> second >> extra;
    if (!extra.empty()) return "unexpected '" + extra + "' after the process count; " + kForms;
    if (first.find('/') != std::string::npos) return parse_contact_line(content, first, second, e, column);

    std::string host = first;
    std::string count_text;
    bool colon_count = false;
    if (first.front() == '[') {
        const std::size_t close = first.find(']');
        if (close == std::string::npos)
            return "'" + first + "' has no closing ']'; expected '[address]' or '[address]:N'";
        host = first.substr(1, close - 1);
        const std::string rest = first.substr(close + 1);
        if (!rest.empty()) {
            if (rest[0] != ':') return "unexpected '" + rest + "' after '[" + host + "]'; expected '[address]:N'";
            colon_count = true;
            count_text = rest.substr(1);
            if (count_text.empty())
                return "missing process count after ':'; expected '[address]:N' with N a positive integer";
        }
        if (!ipv6_valid(host)) return "'" + host + "' is not an IPv6 address; brackets are for IPv6 literals";
    } else {
        const std::size_t colons = static_cast<std::size_t>(std::count(first.begin(), first.end(), ':'));
        if (colons == 1) {
            const std::size_t c = first.find(':');
            host = first.substr(0, c);
            count_text = first.substr(c + 1);
            colon_count = true;
            if (host.empty()) return "missing host name before ':'; " + std::string(kForms);
            if (count_text.empty())
                return "missing process count after ':'; expected 'host:N' with N a positive integer";
        }
        if (colons > 1) {
            if (!ipv6_valid(host))
                return "'" + host + "' is not a valid IPv6 address; write '[address]:N' to give an IPv6 host a count";
        } else if (!hostname_valid(host)) {
            return "'" + host + "' is not a valid host name; " + kForms;
        }
    }
    if (!second.empty()) {
        if (colon_count) return "process count given twice ('" + first + "' and '" + second + "'); " + kForms;
        count_text = second;
    }
    e.host = host;
    e.slots = 1;
    if (colon_count || !second.empty()) {
        const std::string why = parse_count(count_text, e.slots);
        if (!why.empty()) return why;
    }
    return {};
}

}  // namespace

std::optional<MachineFile> MachineFile::parse(const std::string& text, const std::string& path, std::string& error) {
    MachineFile mf;
    mf.path_ = path;
    std::istringstream in(text);
    std::string raw;
    int line = 0;
    while (std::getline(in, raw)) {
        ++line;
        std::string content = raw.substr(0, raw.find('#'));
        // Files written on Windows end their lines with "\r\n".
        if (!content.empty() && content.back() == '\r') content.pop_back();
        if (content.find_first_not_of(" \t\r\f\v") == std::string::npos) continue;
        MachineEntry e;
        e.line = line;
        int column = 0;
        const std::string why = parse_line(content, e, column);
        if (!why.empty()) {
            error = path + ":" + std::to_string(line) + (column > 0 ? ':' + std::to_string(column) : "") + ": " + why;
            return std::nullopt;
        }
        mf.entries_.push_back(std::move(e));
    }
    if (mf.entries_.empty()) {
        error = path + ": lists no hosts; " + std::string(kForms) + ", one per line";
        return std::nullopt;
    }
    return mf;
}

std::optional<MachineFile> MachineFile::load(const std::string& path, std::string& error) {
    const base::Result<std::string> text = base::file_read(path, "machine file");
    if (!text) {
        error = text.error();
        return std::nullopt;
    }
    return parse(*text, path, error);
}

int MachineFile::slots_total() const {
    long total = 0;
    for (const MachineEntry& e : entries_) total += e.slots;
    return total > kMaxSlots ? kMaxSlots : static_cast<int>(total);
}

std::vector<std::pair<std::size_t, int>> MachineFile::distribute(int np) const {
    std::vector<std::pair<std::size_t, int>> runs;
    std::size_t entry = 0;
    int used = 0;  // slots of entries_[entry] already given out
    for (int rank = 0; rank < np; ++rank) {
        if (used == entries_[entry].slots) {
            entry = (entry + 1) % entries_.size();
            used = 0;
        }
        ++used;
        if (runs.empty() || runs.back().first != entry)
            runs.emplace_back(entry, 0);
        ++runs.back().second;
    }
    return runs;
}

}  // namespace strata::launcher
