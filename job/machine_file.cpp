#include "job/machine_file.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <cerrno>
#include <sstream>

#include "base/file.hpp"
#include "base/numbers.hpp"

namespace strata::job {

namespace {

constexpr const char* kForms = "expected 'host', 'host N' or 'host:N'";

bool hostname_valid(const std::string& h) { return host_name_valid(h); }

bool ipv6_valid(const std::string& h) {
    in6_addr a{};
    const std::string bare = h.substr(0, h.find('%'));
    return ::inet_pton(AF_INET6, bare.c_str(), &a) == 1;
}

// Where a line is: words a failure "PATH:LINE[:COLUMN]: what".
struct LineAt {
    const std::string& path;
    int line;

    base::Error at(int column, const std::string& what) const {
        std::string text = path;
        text += ':';
        text += std::to_string(line);
        if (column > 0) {
            text += ':';
            text += std::to_string(column);
        }
        text += ": ";
        text += what;
        return base::Error{text};
    }
    base::Error at(const std::string& what) const { return at(0, what); }
};

// A process count.
base::Result<int> parse_count(const std::string& text) {
    if (text.empty())
        return base::Error{"missing process count; " + std::string(kForms) + " with N a positive integer"};
    // Unsigned, so that "-1" is not a count at all rather than one too small.
    const base::ParsedInt<unsigned> n = base::parse_int<unsigned>(text, 1, MachineFile::kMaxSlots);
    if (n.fault == base::IntFault::malformed)
        return base::Error{"'" + text + "' is not a process count; expected a positive integer"};
    if (n.fault == base::IntFault::above)
        return base::Error{"process count " + text + " is too large; at most " +
                           std::to_string(MachineFile::kMaxSlots) + " per line"};
    if (!n) return base::Error{"process count must be at least 1"};
    return static_cast<int>(*n);
}

base::Status count_set(const std::string& text, const LineAt& where, int& out) {
    base::Result<int> n = parse_count(text);
    if (!n) return where.at(n.error());
    out = *n;
    return {};
}

// "contact [N]"; a malformed contact is reported at its column.
base::Status parse_contact_line(const std::string& content, const std::string& first, const std::string& second,
                                const LineAt& where, MachineEntry& e) {
    base::Result<Contact> c = contact_parse(first, [&](std::size_t offset, const std::string& why) {
        return where.at(static_cast<int>(content.find(first) + offset) + 1, why);
    });
    if (!c) return c.failure();
    e.host = c->host;
    e.contact = *c;
    e.slots = 1;
    if (!second.empty()) return count_set(second, where, e.slots);
    return {};
}

// One non-blank, comment-free line: the entry, or why the line is malformed.
// The first word of a host line: the host and the count written after ':'.
struct HostWord {
    std::string host;
    std::string count_text;
    bool colon_count = false;
};

// "[address]" or "[address]:N".
base::Result<HostWord> parse_bracketed(const std::string& first) {
    HostWord w;
    const std::size_t close = first.find(']');
    if (close == std::string::npos)
        return base::Error{"'" + first + "' has no closing ']'; expected '[address]' or '[address]:N'"};
    w.host = first.substr(1, close - 1);
    const std::string rest = first.substr(close + 1);
    if (!rest.empty()) {
        if (rest[0] != ':')
            return base::Error{"unexpected '" + rest + "' after '[" + w.host + "]'; expected '[address]:N'"};
        w.colon_count = true;
        w.count_text = rest.substr(1);
        if (w.count_text.empty())
            return base::Error{"missing process count after ':'; expected '[address]:N' with N a positive integer"};
    }
    if (!ipv6_valid(w.host))
        return base::Error{"'" + w.host + "' is not an IPv6 address; brackets are for IPv6 literals"};
    return w;
}

// "host", "host:N" or a bare IPv6 address.
base::Result<HostWord> parse_host(const std::string& first) {
    HostWord w;
    w.host = first;
    const std::size_t colons = static_cast<std::size_t>(std::count(first.begin(), first.end(), ':'));
    if (colons == 1) {
        const std::size_t c = first.find(':');
        w.host = first.substr(0, c);
        w.count_text = first.substr(c + 1);
        w.colon_count = true;
        if (w.host.empty()) return base::Error{"missing host name before ':'; " + std::string(kForms)};
        if (w.count_text.empty())
            return base::Error{"missing process count after ':'; expected 'host:N' with N a positive integer"};
    }
    if (colons > 1) {
        if (!ipv6_valid(w.host))
            return base::Error{"'" + w.host +
                               "' is not a valid IPv6 address; write '[address]:N' to give an IPv6 host a count"};
    } else if (!hostname_valid(w.host)) {
        return base::Error{"'" + w.host + "' is not a valid host name; " + kForms};
    }
    return w;
}

// One non-blank, comment-free line: the entry, or why the line is malformed.
base::Result<MachineEntry> parse_line(const std::string& content, const LineAt& where) {
    MachineEntry e;
    e.line = where.line;
    std::istringstream in(content);
    std::string first;
    std::string second;
    std::string extra;
    in >> first >> second >> extra;
    if (!extra.empty()) return where.at("unexpected '" + extra + "' after the process count; " + kForms);
    if (first.find('/') != std::string::npos) {
        if (base::Status s = parse_contact_line(content, first, second, where, e); !s) return s.failure();
        return e;
    }
    base::Result<HostWord> w = first.front() == '[' ? parse_bracketed(first) : parse_host(first);
    if (!w) return where.at(w.error());
    if (!second.empty()) {
        if (w->colon_count)
            return where.at("process count given twice ('" + first + "' and '" + second + "'); " + kForms);
        w->count_text = second;
    }
    e.host = w->host;
    e.slots = 1;
    if (w->colon_count || !second.empty()) {
        if (base::Status s = count_set(w->count_text, where, e.slots); !s) return s.failure();
    }
    return e;
}

}  // namespace

base::Result<MachineFile> MachineFile::parse(const std::string& text, const std::string& path) {
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
        base::Result<MachineEntry> e = parse_line(content, LineAt{path, line});
        if (!e) return e.failure();
        mf.entries_.push_back(std::move(*e));
    }
    if (mf.entries_.empty()) return base::Error{path + ": lists no hosts; " + std::string(kForms) + ", one per line"};
    return mf;
}

base::Result<MachineFile> MachineFile::load(const std::string& path) {
    const base::Result<std::string> text = base::file_read(path, "machine file");
    if (!text) return text.failure();
    return parse(*text, path);
}

int MachineFile::slots_total() const {
    long total = 0;
    for (const MachineEntry& e : entries_) total += e.slots;
    return total > kMaxSlots ? kMaxSlots : static_cast<int>(total);
}

MachineFile MachineFile::of(std::string path, std::vector<MachineEntry> entries) {
    MachineFile f;
    f.path_ = std::move(path);
    f.entries_ = std::move(entries);
    return f;
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

}  // namespace strata::job
