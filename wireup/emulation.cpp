#include "wireup/emulation.hpp"

#include "base/knob.hpp"
#include "base/numbers.hpp"

#include <cmath>
#include <cstdlib>
#include <iterator>
#include <limits>
#include <sstream>

namespace strata::wireup {

namespace {

const base::KnobString emulation_knob{
    kEmulation.variable, "",
    "wide-area emulation on TCP links: one-way latency, bandwidth and TCP window per stream between sites and "
    "between machines of a site, e.g. 'wan:latency_ms=10,bandwidth_mbit=100,window_kib=64;lan:latency_ms=0.5'"};

std::vector<std::string> split(const std::string& text, char sep) {
    std::vector<std::string> out;
    std::size_t at = 0;
    while (at <= text.size()) {
        const std::size_t end = std::min(text.find(sep, at), text.size());
        out.push_back(text.substr(at, end - at));
        at = end + 1;
    }
    return out;
}

std::string trim(const std::string& s) {
    const std::size_t b = s.find_first_not_of(" \t");
    if (b == std::string::npos) return {};
    return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

const LinkFigure* figure_find(const std::string& key) {
    for (const LinkFigure& f : kFigures)
        if (key == f.key) return &f;
    return nullptr;
}

std::string figure_unknown(const std::string& key) {
    return "unknown figure '" + key + "'; expected " + emulation_figure_names();
}

// "latency_ms=10,bandwidth_mbit=100" into `shape`.
base::Status shape_parse(const std::string& text, LinkShape& shape) {
    if (trim(text).empty()) return base::Error{"no figures; give " + emulation_figure_names(" and/or ") + " (each =N)"};
    for (const std::string& raw : split(text, ',')) {
        const std::string item = trim(raw);
        const std::size_t eq = item.find('=');
        const std::string key = trim(item.substr(0, eq));
        if (eq == std::string::npos)
            return base::Error{figure_find(key) == nullptr ? figure_unknown(key)
                                                           : "'" + key + "' has no value; write " + key + "=N"};
        if (base::Status set = emulation_figure_set(shape, key, trim(item.substr(eq + 1))); !set) return set;
    }
    if (shape.premium_bytes_per_s > 0 && shape.bytes_per_s > 0 && shape.premium_bytes_per_s >= shape.bytes_per_s)
        return base::Error{"'premium_mbit' must be less than 'bandwidth_mbit' (bulk traffic keeps the rest)"};
    return {};
}

std::string figure_text(double v) {
    std::ostringstream out;
    out.precision(12);
    out << v;
    return out.str();
}

std::string shape_text(const LinkShape& s) {
    std::string out;
    for (const LinkFigure& f : kFigures) {
        if (s.*f.field <= 0) continue;
        if (!out.empty()) out += ',';
        out += f.key;
        out += '=';
        out += figure_text(s.*f.field / f.scale);
    }
    return out.empty() ? "latency_ms=0" : out;
}

}  // namespace

const std::string& emulation_setting() { return emulation_knob.get(); }

std::string emulation_figure_names(const char* last_joint) {
    std::string out;
    const std::size_t n = std::size(kFigures);
    for (std::size_t i = 0; i < n; ++i) {
        if (i > 0) out += i + 1 == n ? last_joint : ", ";
        out += kFigures[i].key;
    }
    return out;
}

base::Status emulation_figure_set(LinkShape& shape, const std::string& key, const std::string& text) {
    const LinkFigure* f = figure_find(key);
    if (f == nullptr) return base::Error{figure_unknown(key)};
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || end == text.c_str() || *end != '\0' || !std::isfinite(v))
        return base::Error{"'" + key + "' must be a number, not '" + text + "'"};
    if (v < 0) return base::Error{"'" + key + "' must not be negative, got " + text};
    shape.*f->field = v * f->scale;
    return {};
}

base::Result<int> streams_check(const std::string& text) {
    const base::ParsedInt<int> v = base::parse_int<int>(text, 1, kStreamsMax);
    if (!v) return base::Error{"'" + text + "' is not a number of streams; expected 1 to " + std::to_string(kStreamsMax)};
    return *v;
}

double premium_capacity(const LinkShape& shape) {
    if (shape.premium_bytes_per_s > 0) return shape.premium_bytes_per_s;
    return shape.bytes_per_s > 0 ? shape.bytes_per_s / 2 : std::numeric_limits<double>::infinity();
}

std::string uplink_fault(const LinkShape& shape) {
    if (shape.latency_s != 0 || shape.window_bytes != 0)
        return "an uplink has a bandwidth only (bandwidth_mbit): latency and window are the wide area's (wan)";
    if (shape.bytes_per_s <= 0) return "an uplink needs a bandwidth (bandwidth_mbit)";
    return "";
}

bool emulation_site_valid(const std::string& site) {
    return !site.empty() && site.find_first_of("/:,;=") == std::string::npos;
}

std::optional<LinkShape> Emulation::link(int level, const std::string& a, const std::string& b) const {
    if (level == 0) {
        for (const SitePair& p : pairs) {
            if ((p.a == a && p.b == b) || (p.a == b && p.b == a)) return p.shape;
        }
        if (!wan && uplink) return LinkShape{};
        return wan;
    }
    return level == 1 ? lan : std::nullopt;
}

std::string Emulation::text() const {
    std::string out;
    const auto add = [&](const std::string& name, const LinkShape& s) {
        out += (out.empty() ? "" : ";") + name + ":" + shape_text(s);
    };
    if (wan) add("wan", *wan);
    if (lan) add("lan", *lan);
    for (const SitePair& p : pairs) add(p.a + "/" + p.b, p.shape);
    if (uplink) add("uplink", *uplink);
    return out;
}

base::Result<Emulation> emulation_parse(const std::string& text) {
    Emulation e;
    for (const std::string& raw : split(text, ';')) {
        const std::string entry = trim(raw);
        if (entry.empty()) continue;
        const std::size_t colon = entry.find(':');
        const std::string name = trim(entry.substr(0, colon));
        if (colon == std::string::npos)
            return base::Error{"'" + entry +
                               "': expected LINK:latency_ms=N,bandwidth_mbit=N with LINK wan, lan, uplink or SITE/SITE"};
        LinkShape shape;
        if (base::Status parsed = shape_parse(entry.substr(colon + 1), shape); !parsed)
            return std::move(parsed).failure().prefixed("'" + name + "': ");
        const std::size_t slash = name.find('/');
        if (name == "wan" || name == "lan") {
            (name == "wan" ? e.wan : e.lan) = shape;
        } else if (name == "uplink") {
            if (const std::string fault = uplink_fault(shape); !fault.empty()) return base::Error{"'uplink': " + fault};
            e.uplink = shape;
        } else if (slash != std::string::npos && emulation_site_valid(name.substr(0, slash)) &&
                   emulation_site_valid(name.substr(slash + 1))) {
            e.pairs.push_back({name.substr(0, slash), name.substr(slash + 1), shape});
        } else {
            return base::Error{"unknown link '" + name + "'; expected wan, lan, uplink or SITE/SITE"};
        }
    }
    return e;
}

}  // namespace strata::wireup
