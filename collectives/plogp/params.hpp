// A P-LogP parameter file: the measured link classes between the sites of a
// grid, one per pair of sites (a site with itself: between its machines).
//
// The format is lines of words, '#' to the end of a line a comment:
//
//   sizes 0 1K 16K 128K 1M                   # the measured message sizes, increasing
//   link A B latency 10012.5                 # microseconds
//   link A B os 5.1 5.3 6.0 9.2 40.1         # os(m) at each size
//   link A B or 5.0 5.2 6.1 9.0 39.8         # or(m)
//   link A B g 6.0 88.1 1316 10491 83892     # g(m)
//   link A B eager 64K                       # rendezvous above (optional)
//
// Sites are the job's site labels; a link is the same in both directions, so
// `link B A` names the same one. Every link needs the four time lines, each
// curve one value per size, in microseconds and not negative; without an
// eager line every message counts as eager.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "base/result.hpp"
#include "collectives/plogp/model.hpp"

namespace strata::coll::plogp {

class Params {
public:
    // Parses a file's text; `where` names it in errors ("FILE:LINE: what").
    // Fails when the text is malformed or incomplete.
    static base::Result<Params> parse(const std::string& text, const std::string& where);
    // The text parse() reads back to the same parameters.
    std::string text() const;

    // The link class between two sites (either order), or null.
    const Link* link(const std::string& a, const std::string& b) const;
    // Whether there is a link between every two of `sites`; the failure
    // names the first missing pair.
    base::Status covers(const std::vector<std::string>& sites) const;

    const std::vector<std::size_t>& sizes() const { return sizes_; }
    bool empty() const { return links_.empty(); }
    // Sets the link between `a` and `b`; its curves must be at sizes().
    void set(const std::string& a, const std::string& b, Link link);
    void set_sizes(std::vector<std::size_t> sizes) { sizes_ = std::move(sizes); }

private:
    class Reader;  // parse()'s state while it reads the lines
    static std::pair<std::string, std::string> key(const std::string& a, const std::string& b);
    std::vector<std::size_t> sizes_;
    std::map<std::pair<std::string, std::string>, Link> links_;
};

// The shortest text that reads back as exactly `v`, as the parameter file
// writes times.
std::string shortest(double v);

}  // namespace strata::coll::plogp
