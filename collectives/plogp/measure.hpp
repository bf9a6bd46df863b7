// Measuring a grid's P-LogP parameters (Kielmann, Bal and Verstoep's fast
// method) between representatives of its sites, for strata-plogp and for
// STRATA_PLOGP=measure.
//
// For every two sites, one pair at a time while every other process waits,
// the first process of each site measures with the other; for every site with
// several processes, its first process measures with its first process on
// another machine (else its second), which gives the link inside the site:
//   g(m)  the gap: n and then 2n messages of m bytes sent back to back, then
//         one acknowledgement; g = (T(2n) - T(n)) / n with the fastest T of
//         the repetitions, so the latency of the acknowledgement cancels out;
//   os(m) the time of one send call of m bytes on an idle link;
//   or(m) the time of a receive of m bytes that has had time to arrive, up to
//         the method's eager limit; above it a message waits for its receive
//         to start moving, so the call would include the transfer, which a
//         receive posted early (as the segmented algorithms post theirs) does
//         not pay: or(m) is extended there along the sizes measured below;
//   L     half the round trip of an empty message, less g(0);
//   eager the method's eager limit on the link.
// Each figure is the minimum over the repetitions. Messages travel on the
// group's collective context, so they never meet the program's own.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "adi/method.hpp"
#include "base/result.hpp"
#include "collectives/collective.hpp"
#include "collectives/plogp/params.hpp"

namespace strata::coll::plogp {

// Where a job's processes are: world rank r's site label and machine (its
// colour at the system-area level).
struct Layout {
    std::vector<std::string> sites;
    std::vector<int> machines;
    // Whether world rank r's site sends to other sites through a gateway
    // (its card names a relay: a private site): the model's gateway term.
    std::vector<bool> gateways;
    // Whether every process is on one machine: the model has no link there
    // (it has those between sites and between the machines of a site).
    bool one_machine() const;
};
Layout layout_of(const adi::World& world);

struct MeasureOptions {
    std::vector<std::size_t> sizes{0, 1024, 16 * 1024, 128 * 1024, 1024 * 1024};  // increasing
    int reps = 5;
};

// Collective over `g`: measures the links between and inside the sites of
// its processes (`where` says where group rank r is) and returns, on every process, the same parameters (rank 0's,
// which every process reads back from their text). Fails when the group has one process or a message fails.
base::Result<Params> measure(const Group& g, const Layout& where, const MeasureOptions& o);

}  // namespace strata::coll::plogp
