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

std::string shortest(double v) {
    std::array<char, 32> buf{};
    const auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), v);
    return ec == std::errc() ? std::string(buf.data(), end) : std::to_string(v);
}

}  // namespace

std::pair<std::string, std::string> Params::key(const std::string& a, const std::string& b) {
    return a <= b ? std::make_pair(a, b) : std::make_pair(b, a);
}

bool Params::parse(const std::string& text, const std::string& where, Params& out, std::string& error) {
    Params p;
    std::map<std::pair<std::string, std::string>, Draft> drafts;
    bool have_sizes = false;
    const auto param_line = [&](int n, const std::vector<std::string>& words) -> base::Status {
        const auto fail = [&](const std::string& what) { return base::Error{what}; };
        const std::string& head = words[0];
        const std::vector<std::string> rest(words.begin() + 1, words.end());
        if (head == "sizes") {
            if (have_sizes) return fail("a second 'sizes' line");
            if (rest.empty()) return fail("'sizes' lists no message size");
            for (const std::string& w : rest) {
                const std::optional<std::int64_t> v = base::parse_size(w);
                if (!v || *v < 0) return fail("'" + w + "' is not a message size (123, 64K, 1M)");
                const auto size = static_cast<std::size_t>(*v);
                if (!p.sizes_.empty() && size <= p.sizes_.back()) return fail("the sizes are not increasing");
                p.sizes_.push_back(size);
            }
            have_sizes = true;
            return {};
        }
        if (head != "link") return fail("'" + head + "' is neither 'sizes' nor 'link'");
        if (!have_sizes) return fail("a 'link' line before the 'sizes' line");
        if (rest.size() < 3) return fail("a link line is 'link SITE SITE FIELD VALUE...'");
        std::size_t f = 0;
        while (f < kFields.size() && rest[2] != kFields[f].key) ++f;
        if (f == kFields.size()) return fail("'" + rest[2] + "' is not latency, os, or, g or eager");
        const std::size_t want = kFields[f].kind == Kind::curve ? p.sizes_.size() : 1;
        if (rest.size() - 3 != want) {
            return fail(std::string(kFields[f].key) + " takes " + std::to_string(want) + " value" +
                        (want == 1 ? "" : "s, one per size") + ", not " + std::to_string(rest.size() - 3));
        }
        Draft& d = drafts[key(rest[0], rest[1])];
        if (d.first_line == 0) d.first_line = n;
        if (d.line[f] != 0) {
            return fail("a second '" + std::string(kFields[f].key) + "' line for the link between " + rest[0] +
                        " and " + rest[1] + " (the first is line " + std::to_string(d.line[f]) + ")");
        }
        d.line[f] = n;
        for (std::size_t i = 3; i < rest.size(); ++i) {
            if (kFields[f].kind == Kind::size) {
                const std::optional<std::int64_t> v = base::parse_size(rest[i]);
                if (!v || *v < 0) return fail("'" + rest[i] + "' is not a message size (123, 64K, 1M)");
                d.values[f].push_back(static_cast<double>(*v));
                continue;
            }
            const std::optional<double> v = number(rest[i]);
            if (!v) return fail("'" + rest[i] + "' is not a time in microseconds (a number, not negative)");
            d.values[f].push_back(*v);
        }
        return {};
    };
    if (base::Status s = base::lines_of_words(text, where, param_line); !s.ok()) {
        error = s.error();
        return false;
    }
    if (drafts.empty()) {
        error = where + ": no link";
        return false;
    }
    for (const auto& [sites, d] : drafts) {
        for (std::size_t f = 0; f < kFields.size(); ++f) {
            if (d.line[f] == 0 && kFields[f].required) {
                error = where + ":" + std::to_string(d.first_line) + ": the link between " + sites.first + " and " +
                        sites.second + " has no '" + kFields[f].key + "' line (" + kFields[f].what + ")";
                return false;
            }
        }
        const auto curve = [&](std::size_t f) {
            std::vector<Curve::Point> points;
            for (std::size_t i = 0; i < p.sizes_.size(); ++i) points.emplace_back(p.sizes_[i], d.values[f][i]);
            return Curve(std::move(points));
        };
        Link link;
        link.latency = d.values[0][0];
        link.send_overhead = curve(1);
        link.recv_overhead = curve(2);
        link.gap = curve(3);
        if (d.line[kEager] != 0) link.eager_limit = static_cast<std::size_t>(d.values[kEager][0]);
        p.links_.emplace(sites, std::move(link));
    }
    out = std::move(p);
    return true;
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

bool Params::covers(const std::vector<std::string>& sites, std::string& error) const {
    for (std::size_t i = 0; i < sites.size(); ++i) {
        for (std::size_t j = i + 1; j < sites.size(); ++j) {
            if (sites[i] != sites[j] && link(sites[i], sites[j]) == nullptr) {
                error = "no parameters for the link between sites " + sites[i] + " and " + sites[j];
                return false;
            }
        }
    }
    return true;
}

void Params::set(const std::string& a, const std::string& b, Link link) { links_[key(a, b)] = std::move(link); }

}  // namespace strata::coll::plogp
