// Wide-area emulation: the one-way latency and bandwidth that the TCP method
// imposes on links between sites (and between machines of one site), so that
// a grid laid out on one machine behaves like one spread over several.
//
// Written by a job file's `network:` key (job/job_yaml.cpp), carried to
// every process in STRATA_EMULATION, read by the TCP method:
//
//   wan:latency_ms=10,bandwidth_mbit=100,window_kib=64;lan:latency_ms=0.5,bandwidth_mbit=1000;A/B:latency_ms=30
//
// `wan` shapes links between sites (topology level 0), `lan` links between
// machines of one site (level 1); `SITE/SITE` overrides `wan` between two
// sites (either order). `uplink` (a bandwidth only) is each site's own link
// to the wide area, which everything the site sends to any other site
// crosses too: its processes share it whatever the destination, as those of
// a site behind one gateway (a private site's relay) do.
//
//   wan:latency_ms=10,bandwidth_mbit=1000;uplink:bandwidth_mbit=100 The figures (kFigures below, one table for this text
// and for the job file):
//   latency_ms      one-way latency, milliseconds
//   bandwidth_mbit  the link's bandwidth, shared by every stream and every
//                   process that crosses it, Mbit/s (10^6 bits)
//   window_kib      a TCP stream's window, KiB (1024 bytes): each connection
//                   carrying the link has at most this much unacknowledged,
//                   so one stream moves at most window / RTT, RTT being twice
//                   the latency (no effect without a latency)
//   premium_mbit    the link's premium capacity, Mbit/s: what the
//                   reservations of premium service (MPIX_QOS, mpi.h) on it
//                   may add up to; less than bandwidth_mbit, by default half
//                   of it (a link without a bandwidth takes any reservation)
// A missing figure is no limit (bandwidth, window) or no delay (latency).
// Links inside a machine are never shaped.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "wireup/settings.hpp"

namespace strata::wireup {

// One emulated link: its one-way latency, its bandwidth and the window of
// each TCP stream on it (0: unlimited).
struct LinkShape {
    double latency_s = 0;
    double bytes_per_s = 0;
    double window_bytes = 0;
    double premium_bytes_per_s = 0;  // 0: the default, half of bytes_per_s
    bool operator==(const LinkShape&) const = default;
};

// What the premium reservations on a link of `shape` may add up to, bytes
// per second (infinity on a link without a bandwidth).
double premium_capacity(const LinkShape& shape);

// One figure of a link as written (STRATA_EMULATION, a job file's network:):
// its name, the LinkShape field it sets and the factor from the written unit.
struct LinkFigure {
    const char* key;
    double LinkShape::*field;
    double scale;
};
inline constexpr LinkFigure kFigures[] = {
    {"latency_ms", &LinkShape::latency_s, 1e-3},
    {"bandwidth_mbit", &LinkShape::bytes_per_s, 1e6 / 8},
    {"window_kib", &LinkShape::window_bytes, 1024},
    {"premium_mbit", &LinkShape::premium_bytes_per_s, 1e6 / 8},
};
// "latency_ms, bandwidth_mbit or window_kib", for messages.
std::string emulation_figure_names(const char* last_joint = " or ");
// Sets figure `key` of `shape` from its written `text`; fails saying what is
// wrong (an unknown figure, not a non-negative number).
base::Status emulation_figure_set(LinkShape& shape, const std::string& key, const std::string& text);

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
    std::optional<LinkShape> uplink;  // bytes_per_s only

    bool empty() const { return !wan && !lan && pairs.empty() && !uplink; }
    // The shape of a link at topology level `level` between sites `a` and `b`,
    // or nullopt for an unshaped link (between sites with an uplink, the
    // link is shaped, if only by the uplink: an empty shape).
    std::optional<LinkShape> link(int level, const std::string& a, const std::string& b) const;
    // The STRATA_EMULATION text.
    std::string text() const;
    bool operator==(const Emulation&) const = default;
};

// STRATA_EMULATION's text in this process (empty: no emulation).
const std::string& emulation_setting();

// Parses STRATA_EMULATION's text; fails (saying what is wrong, naming the
// entry) when it is malformed.
base::Result<Emulation> emulation_parse(const std::string& text);

// Parallel TCP streams between sites (devices/tcp): how many connections a
// process may use to each peer at another site, STRATA_TCP_STREAMS
// (wireup/settings.hpp), which a job file's `network: {streams: N}` sets.
// `text` as a whole number from 1 to kStreamsMax; fails saying what is wrong.
base::Result<int> streams_check(const std::string& text);

// What is wrong with an uplink's shape (it has a bandwidth, and perhaps a
// premium capacity, and nothing else), or "".
std::string uplink_fault(const LinkShape& shape);

// A site name an override may use: not empty, none of '/', ':', ',', ';', '='.
bool emulation_site_valid(const std::string& site);

}  // namespace strata::wireup
