// Wide-area emulation: the one-way latency and bandwidth that the TCP method
// imposes on links between sites (and between machines of one site), so that
// a grid laid out on one machine behaves like one spread over several.
//
// Written by a job file's `network:` key (launcher/job_yaml.cpp), carried to
// every process in STRATA_EMULATION, read by the TCP method:
//
//   wan:latency_ms=10,bandwidth_mbit=100;lan:latency_ms=0.5,bandwidth_mbit=1000;A/B:latency_ms=30
//
// `wan` shapes links between sites (topology level 0), `lan` links between
// machines of one site (level 1); `SITE/SITE` overrides `wan` between two
// sites (either order). A missing figure is no limit (bandwidth) or no delay
// (latency). Links inside a machine are never shaped.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace strata::wireup {

// One emulated link: its one-way latency and its bandwidth (0: unlimited).
struct LinkShape {
    double latency_s = 0;
    double bytes_per_s = 0;
    bool operator==(const LinkShape&) const = default;
};

struct Emulation {
    struct SitePair {
        std::string a;
        std::string b;
        LinkShape shape;
        bool operator==(const SitePair&) const = default;
    };
    std::optional<LinkShape> wan;
    std::optional<LinkShape> lan;
    std::vector<SitePair> pairs;

    bool empty() const { return !wan && !lan && pairs.empty(); }
    // The shape of a link at topology level `level` between sites `a` and `b`,
    // or nullopt for an unshaped link.
    std::optional<LinkShape> link(int level, const std::string& a, const std::string& b) const;
    // The STRATA_EMULATION text.
    std::string text() const;
    bool operator==(const Emulation&) const = default;
};

// STRATA_EMULATION's text in this process (empty: no emulation).
const std::string& emulation_setting();

// Parses STRATA_EMULATION's text; nullopt with `error` (what is wrong, naming
// the entry) when it is malformed.
std::optional<Emulation> emulation_parse(const std::string& text, std::string& error);

// Checks one figure of a link (`what` is "latency_ms" or "bandwidth_mbit")
// given as text: "" when it is a non-negative number, else what is wrong.
std::string emulation_figure(const std::string& what, const std::string& text, double& out);

// A site name an override may use: not empty, none of '/', ':', ',', ';', '='.
bool emulation_site_valid(const std::string& site);

}  // namespace strata::wireup
