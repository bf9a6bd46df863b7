#include "collectives/plogp/params.hpp"

#include <array>
#include <charconv>
#include <cstdint>
#include <cmath>
#include <optional>

#include "base/file.hpp"
#include "base/knob.hpp"

namespace strata::coll::plogp {

namespace {

// The fields of a link line: the latency (one time), the three curves (one
// time per size) and the eager limit (one size; optional).
enum class Kind { time, curve, size };
struct Field {
    const char* key;
    const char* what;
    Kind kind;
    bool required;
};
constexpr std::array<Field, 5> kFields{{
    {"latency", "the latency L", Kind::time, true},
    {"os", "the send overhead os(m)", Kind::curve, true},
    {"or", "the receive overhead or(m)", Kind::curve, true},
    {"g", "the gap g(m)", Kind::curve, true},
    {"eager", "the eager limit", Kind::size, false},
}};
constexpr std::size_t kEager = 4;

// A link while its lines are read: each field's values and the line that gave them.
struct Draft {
    int first_line = 0;
    std::array<std::vector<double>, kFields.size()> values;
    std::array<int, kFields.size()> line{};
};

std::optional<double> number(const std::string& word) {
    double v = 0;
    const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), v);
    if (ec != std::errc() || end != word.data() + word.size() || !std::isfinite(v) || v < 0) return std::nullopt;
    return v;
}

base::Result<std::size_t> size_of(const std::string& word) {
    const std::optional<std::int64_t> v = base::parse_size(word);
    if (!v || *v < 0) return base::Error{"'" + word + "' is not a message size (123, 64K, 1M)"};
    return static_cast<std::size_t>(*v);
}

// One value of a link line, as its field's kind reads it.
base::Result<double> value_of(Kind kind, const std::string& word) {
    if (kind == Kind::size) {
        const base::Result<std::size_t> v = size_of(word);
        if (!v.ok()) return v.failure();
        return static_cast<double>(*v);
    }
    const std::optional<double> v = number(word);
    if (!v) return base::Error{"'" + word + "' is not a time in microseconds (a number, not negative)"};
    return *v;
}

// The index in kFields of the field called `key`, or kFields.size().
std::size_t field_of(const std::string& key) {
    std::size_t f = 0;
    while (f < kFields.size() && key != kFields[f].key) ++f;
    return f;
}

// A curve of `values` at `sizes`, one each.
base::Result<Curve> curve_of(const std::vector<std::size_t>& sizes, const std::vector<double>& values) {
    std::vector<Curve::Point> points;
    for (std::size_t i = 0; i < sizes.size(); ++i) points.emplace_back(sizes[i], values[i]);
    return Curve::make(std::move(points));
}

// The link a complete draft describes (every required field present).
base::Result<Link> link_of(const std::vector<std::size_t>& sizes, const Draft& d) {
    Link link;
    link.latency = d.values[0][0];
    Curve* const curves[] = {&link.send_overhead, &link.recv_overhead, &link.gap};  // fields 1..3
    for (std::size_t f = 1; f <= 3; ++f) {
        base::Result<Curve> c = curve_of(sizes, d.values[f]);
        if (!c.ok()) return std::move(c).failure();
        *curves[f - 1] = std::move(*c);
    }
    if (d.line[kEager] != 0) link.eager_limit = static_cast<std::size_t>(d.values[kEager][0]);
    return link;
}

}  // namespace

std::string shortest(double v) {
    std::array<char, 32> buf{};
    const auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), v);
    return ec == std::errc() ? std::string(buf.data(), end) : std::to_string(v);
}

std::pair<std::string, std::string> Params::key(const std::string& a, const std::string& b) {
    return a <= b ? std::make_pair(a, b) : std::make_pair(b, a);
}

// The lines read so far: the sizes, and a draft per link.
class Params::Reader {
public:
    // One line's words; a failure is what is wrong with the line.
    base::Status line(int n, const std::vector<std::string>& words) {
        const std::vector<std::string> rest(words.begin() + 1, words.end());
        if (words[0] == "sizes") return sizes_line(rest);
        if (words[0] != "link") return base::Error{"'" + words[0] + "' is neither 'sizes' nor 'link'"};
        return link_line(n, rest);
    }

    // The parameters, once every line is read; `where` names the text in errors.
    base::Result<Params> finish(const std::string& where) && {
        if (drafts_.empty()) return base::Error{where + ": no link"};
        Params p;
        p.sizes_ = std::move(sizes_);
        for (const auto& draft : drafts_) {
            const Draft& d = draft.second;
            std::string at = where;
            at += ":";
            at += std::to_string(d.first_line);
            at += ": ";
            const std::size_t missing = missing_field(d);
            if (missing < kFields.size()) {
                return base::Error{at + "the link between " + draft.first.first + " and " + draft.first.second +
                                   " has no '" + kFields[missing].key + "' line (" + kFields[missing].what + ")"};
            }
            base::Result<Link> link = link_of(p.sizes_, d);
            if (!link.ok()) return std::move(link).failure().prefixed(at);
            p.links_.emplace(draft.first, std::move(*link));
        }
        return p;
    }

private:
    base::Status sizes_line(const std::vector<std::string>& rest) {
        if (have_sizes_) return base::Error{"a second 'sizes' line"};
        if (rest.empty()) return base::Error{"'sizes' lists no message size"};
        for (const std::string& w : rest) {
            const base::Result<std::size_t> size = size_of(w);
            if (!size.ok()) return size.failure();
            if (!sizes_.empty() && *size <= sizes_.back()) return base::Error{"the sizes are not increasing"};
            sizes_.push_back(*size);
        }
        have_sizes_ = true;
        return {};
    }

    // "link SITE SITE FIELD VALUE...", the words after "link" in `rest`.
    base::Status link_line(int n, const std::vector<std::string>& rest) {
        if (!have_sizes_) return base::Error{"a 'link' line before the 'sizes' line"};
        if (rest.size() < 3) return base::Error{"a link line is 'link SITE SITE FIELD VALUE...'"};
        const std::size_t f = field_of(rest[2]);
        if (f == kFields.size()) return base::Error{"'" + rest[2] + "' is not latency, os, or, g or eager"};
        const std::size_t want = kFields[f].kind == Kind::curve ? sizes_.size() : 1;
        if (rest.size() - 3 != want) {
            return base::Error{std::string(kFields[f].key) + " takes " + std::to_string(want) + " value" +
                               (want == 1 ? "" : "s, one per size") + ", not " + std::to_string(rest.size() - 3)};
        }
        Draft& d = drafts_[key(rest[0], rest[1])];
        if (d.first_line == 0) d.first_line = n;
        if (d.line[f] != 0) {
            return base::Error{"a second '" + std::string(kFields[f].key) + "' line for the link between " + rest[0] +
                               " and " + rest[1] + " (the first is line " + std::to_string(d.line[f]) + ")"};
        }
        d.line[f] = n;
        for (std::size_t i = 3; i < rest.size(); ++i) {
            const base::Result<double> v = value_of(kFields[f].kind, rest[i]);
            if (!v.ok()) return v.failure();
            d.values[f].push_back(*v);
        }
        return {};
    }

    // The first required field the draft lacks, or kFields.size().
    static std::size_t missing_field(const Draft& d) {
        std::size_t f = 0;
        while (f < kFields.size() && (d.line[f] != 0 || !kFields[f].required)) ++f;
        return f;
    }

    std::vector<std::size_t> sizes_;
    bool have_sizes_ = false;
    std::map<std::pair<std::string, std::string>, Draft> drafts_;
};

base::Result<Params> Params::parse(const std::string& text, const std::string& where) {
    Reader reader;
    base::Status read = base::lines_of_words(
        text, where, [&reader](int n, const std::vector<std::string>& words) { return reader.line(n, words); });
    if (!read.ok()) return std::move(read).failure();
    return std::move(reader).finish(where);
}

std::string Params::text() const {
    std::string out = "# P-LogP parameters in microseconds: latency, os(m), or(m), g(m) at each size (bytes)\nsizes";
    // Word by word: GCC 12 at -O3 takes " " + std::string for an overlapping
    // copy (-Wrestrict, a false positive).
    const auto word = [&out](const std::string& w) { out.append(" ").append(w); };
    for (std::size_t s : sizes_) word(std::to_string(s));
    out += "\n";
    for (const auto& [sites, link] : links_) {
        const std::string head = "link " + sites.first + " " + sites.second + " ";
        out += head + "latency " + shortest(link.latency) + "\n";
        const std::array<std::pair<const char*, const Curve*>, 3> curves{
            {{"os", &link.send_overhead}, {"or", &link.recv_overhead}, {"g", &link.gap}}};
        for (const auto& [name, curve] : curves) {
            out += head + name;
            for (std::size_t s : sizes_) word(shortest(curve->at(s)));
            out += "\n";
        }
        if (link.eager_limit != Link::kNoLimit) out += head + "eager " + std::to_string(link.eager_limit) + "\n";
    }
    return out;
}

const Link* Params::link(const std::string& a, const std::string& b) const {
    const auto it = links_.find(key(a, b));
    return it == links_.end() ? nullptr : &it->second;
}

base::Status Params::covers(const std::vector<std::string>& sites) const {
    for (std::size_t i = 0; i < sites.size(); ++i) {
        for (std::size_t j = i + 1; j < sites.size(); ++j) {
            if (sites[i] != sites[j] && link(sites[i], sites[j]) == nullptr) {
                return base::Error{"no parameters for the link between sites " + sites[i] + " and " + sites[j]};
            }
        }
    }
    return {};
}

void Params::set(const std::string& a, const std::string& b, Link link) { links_[key(a, b)] = std::move(link); }

}  // namespace strata::coll::plogp
