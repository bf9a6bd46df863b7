// The parameterized LogP model (P-LogP: Kielmann, Bal and Verstoep) of the
// links between clusters, and what it predicts for a broadcast that sends its
// message down a tree in segments, each segment forwarded as soon as it has
// arrived (MagPIe's wide-area broadcast).
//
// A link class (the links between the members of two clusters) has a latency
// L and three functions of the message size m: the sender's overhead os(m),
// the receiver's overhead or(m) and the gap g(m) >= os(m), or(m), the time
// between two messages of m bytes on the link (m over it is the bandwidth).
// A message of m bytes takes L + g(m) from the start of its send until the
// receiver has it (the overheads are part of the gap).
//
// MagPIe's gateway term: where a message leaves its sender's site through a
// gateway (Strata: the relay of a private site), the sender first pushes it
// over its own site's network, so a wide-area send costs the sender
// s_w(m) = max(os_w(m), g_l(m)), g_l the gap of the sender's site's own link
// class: d sends to other sites from one node take at least d * g_l(m), even
// over d different wide-area links. (The relay's own hop is part of the
// relayed links' L and g, measured over the routes the job uses.)
//
// For a tree and a segment size s, let lambda be the time until the first
// segment has reached every node, and gamma the time the busiest node spends
// per segment. A node's processor receives a segment (or(s)) and issues one
// send per child (os(s) each), one after another; a link carries one message
// after another (g(s) each). Children behind the same link (the same Link
// object: one machine's interface) share it, children behind different links
// (each pair of sites has its own) do not. So a node's time per segment is the
// larger of its processor's time and its busiest link's, and at least the gap
// of the link that feeds it. A message of k segments then completes after
// T = lambda + (k - 1) * gamma: the segments follow one another down the tree
// at the pace of the busiest node.
//
// Everything here is arithmetic on values every process has (the parameters,
// the sizes, the tree), in one order: every process computes the same
// decisions without communicating.
#pragma once

#include <cstddef>
#include <limits>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "base/result.hpp"

namespace strata::coll::plogp {

// A cost in microseconds as a function of a message size in bytes: linear
// between the measured sizes, constant below the first and extended along the
// last two above the last (one point: constant).
class Curve {
public:
    using Point = std::pair<std::size_t, double>;  // (bytes, microseconds)
    Curve() = default;                              // zero everywhere
    // Sizes strictly increasing, costs finite and not negative: a
    // precondition (collectives/invariant.hpp) for points the library computed.
    explicit Curve(std::vector<Point> points);
    // The same for points from outside (a file, a measurement): the curve, or
    // what is wrong with them.
    static base::Result<Curve> make(std::vector<Point> points);
    double at(std::size_t bytes) const;
    const std::vector<Point>& points() const { return points_; }

private:
    std::vector<Point> points_;
};

// One link class: P-LogP's parameters, in microseconds, and the method's
// eager limit: a longer message goes by rendezvous, its data leaving only
// after a request has reached the receiver and the answer has come back.
struct Link {
    static constexpr std::size_t kNoLimit = std::numeric_limits<std::size_t>::max();
    double latency = 0;   // L
    Curve send_overhead;  // os(m)
    Curve recv_overhead;  // or(m)
    Curve gap;            // g(m)
    std::size_t eager_limit = kNoLimit;
    // From the start of a send until the receiver has the message: L + g(m),
    // and 2L more above the eager limit (the rendezvous's request and answer).
    double transfer(std::size_t bytes) const;
};

// A broadcast tree over nodes 0..n-1, node 0 the root. Each node sends to its
// children in the order listed; each edge names the link class it crosses.
struct Tree {
    struct Edge {
        int child;
        const Link* link;
        // The sender's site's own link class when the message leaves the
        // site through its gateway (null: it goes out directly).
        const Link* gateway = nullptr;
        // What one send on this edge costs the sender's processor: os(m),
        // or s_w(m) = max(os_w(m), g_l(m)) through a gateway.
        double send_cost(std::size_t bytes) const;
    };
    std::vector<std::vector<Edge>> children;  // one list per node
    int size() const { return static_cast<int>(children.size()); }
};

// How fast a node passes a segment on, as bcast_time counts it where every
// edge is alike: a child has the segment `reach` after its parent began that
// send, and a parent begins one send every `spacing`. In nanoseconds, as
// integers, so that building a tree compares times exactly and alike on every
// process.
struct Pace {
    long long reach = 0;
    long long spacing = 0;
    bool operator==(const Pace&) const = default;
};

// The pace of segments of `segment` bytes over `link`: reach is
// link.transfer(segment); spacing is what one send costs the sender
// (Tree::Edge::send_cost: os, or s_w through `gateway`) where every child has
// a link of its own, and at least the link's gap where the children share it
// (`shared`: the machines of one site behind their interface).
Pace pace_of(const Link& link, std::size_t segment, bool shared, const Link* gateway = nullptr);

// The shapes the optimizer tries: flat (the root sends to everyone), chain,
// binary, binomial, k-ary for a degree k, and seed 002's greedy tree for a
// degree bound d and a pace (make_tree says how it is built).
enum class ShapeKind { flat, chain, binary, binomial, kary, greedy };
struct TreeShape {
    ShapeKind kind = ShapeKind::binomial;
    int degree = 0;  // kary: children per node, 3 or more; greedy: at most that many (1: the chain)
    Pace pace{};     // greedy only: the pace the tree is built for
    std::string name() const;  // "flat", "chain", "binary", "binomial", "4-ary", "greedy-4"
    bool operator==(const TreeShape&) const = default;
};

// The functions below abort (collectives/invariant.hpp) when called outside
// their stated domain: their arguments are the library's own.

// The tree of `shape` over n >= 1 nodes, every edge over `link` (which must
// outlive the tree). Complete trees number their nodes breadth first; each
// node sends to the child with the largest subtree first.
//
// A greedy tree is seed 002's construction for one degree d (section 3.1:
// "having identical links inside a network, the actual broadcast tree can be
// constructed from d in O(P) time by keeping track of each node's degree while
// assigning receivers to senders"): the receivers are assigned one by one, in
// the order they get the segment, each to the sender that would have it to
// them first at shape.pace among the nodes that have it and fewer than d
// children, ties to the sender that had it first. Node v's j-th child (from
// 0) has it at has(v) + reach + j * spacing, so the earliest sender is the
// smallest of two queues whose times only grow: each new node's first send,
// and each sender's next one. O(n), in integer times; the first child has the
// largest subtree, as in the complete trees.
Tree make_tree(TreeShape shape, int n, const Link& link);

// MagPIe's two layers: a tree of `wan_shape` over the coordinators of the
// sites (the first node of each), over `wan`, and inside every site a tree of
// `lan_shape` over its nodes, over `lan`. Sites are numbered in order of
// `site_sizes` (each at least 1), their nodes contiguously, site 0 holding the
// root. A coordinator forwards each segment over the wide area first.
Tree make_two_layer(TreeShape wan_shape, const Link& wan, TreeShape lan_shape, const Link& lan,
                    const std::vector<int>& site_sizes);

// What the model predicts for a broadcast of `bytes` in segments of `segment`
// bytes (k = ceil(bytes / segment) of them) down `tree`, in microseconds.
struct Estimate {
    double first = 0;        // lambda: until the first segment has reached every node
    double per_segment = 0;  // gamma: the busiest node's time per segment
    double total = 0;        // T = lambda + (k - 1) * gamma
};
Estimate bcast_time(const Tree& tree, std::size_t bytes, std::size_t segment);

// One of the candidate trees and a segment size, with the time the model
// predicts for them.
struct Choice {
    std::size_t tree = 0;  // the candidate's index
    std::size_t segment = 0;
    double time = 0;
};

// The segment size of k segments of a message of `bytes`, a multiple of
// `unit` (the datatype's extent: a segment never splits an element).
std::size_t segment_of(std::size_t bytes, std::size_t unit, std::size_t k);

// The published heuristic, per candidate tree: segment sizes bytes/2^i by
// binary search over i for the fastest, then hill climbing from its segment
// count k over k-5, k-1, k+1, k+5 while one of them is faster. The fastest of
// all candidates wins; ties go to the earlier candidate, then the larger
// segment. `trees` not empty; unit at least 1.
Choice choose(std::span<const Tree> trees, std::size_t bytes, std::size_t unit);

// The exhaustive optimum the heuristic approximates: every segment count of
// every candidate (for checking the heuristic offline; its cost grows with
// bytes/unit).
Choice optimum(std::span<const Tree> trees, std::size_t bytes, std::size_t unit);

// The shapes worth trying on n nodes: flat, chain, binary, binomial, and
// k-ary for every degree from 3 to n - 2 (degree n - 1 is flat).
std::vector<TreeShape> candidate_shapes(int n);

// Seed 002's greedy trees (section 3.1) on n nodes for segments of `segment`
// bytes over `link` (pace_of's `shared` and `gateway`): one per degree d from
// ceil(g(m) / s(m)) up to n - 1, only the degrees where the least height of a
// tree of that degree over n nodes shrinks (a degree between two of them
// cannot shorten the tree, only load its nodes more), and none below 2 (the
// chain). s(m) is the pace's spacing: the paper's send overhead where every
// child has its own link (fewer children than g/s leave the sender's
// bandwidth unused); where they share one it is at least the gap, so every
// degree from 2 counts.
std::vector<TreeShape> greedy_shapes(int n, const Link& link, std::size_t segment, bool shared,
                                     const Link* gateway = nullptr);

}  // namespace strata::coll::plogp
