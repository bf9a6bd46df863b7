#include "collectives/plogp/model.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>

#include "collectives/invariant.hpp"

namespace strata::coll::plogp {

namespace {

// What is wrong with a curve's points, or "" when nothing is.
const char* points_fault(const std::vector<Curve::Point>& points) {
    for (std::size_t i = 0; i < points.size(); ++i) {
        if (!std::isfinite(points[i].second) || points[i].second < 0) return "a cost is negative or not a number";
        if (i > 0 && points[i].first <= points[i - 1].first) return "message sizes are not strictly increasing";
    }
    return "";
}

}  // namespace

Curve::Curve(std::vector<Point> points) : points_(std::move(points)) {
    const char* fault = points_fault(points_);
    invariant(*fault == '\0', fault);
}

base::Result<Curve> Curve::make(std::vector<Point> points) {
    const char* fault = points_fault(points);
    if (*fault != '\0') return base::Error{fault};
    return Curve(std::move(points));
}

double Curve::at(std::size_t bytes) const {
    if (points_.empty()) return 0;
    if (points_.size() == 1 || bytes <= points_.front().first) return points_.front().second;
    // The segment [a, b] holding `bytes`, or the last one beyond the last size.
    std::size_t i = 1;
    while (i + 1 < points_.size() && points_[i].first < bytes) ++i;
    const auto [ma, ta] = points_[i - 1];
    const auto [mb, tb] = points_[i];
    const double x = static_cast<double>(bytes - ma) / static_cast<double>(mb - ma);
    return std::max(0.0, ta + x * (tb - ta));
}

double Link::transfer(std::size_t bytes) const {
    return (bytes > eager_limit ? 3 : 1) * latency + gap.at(bytes);
}

double Tree::Edge::send_cost(std::size_t bytes) const {
    const double os = link->send_overhead.at(bytes);
    return gateway != nullptr ? std::max(os, gateway->gap.at(bytes)) : os;
}

std::string TreeShape::name() const {
    switch (kind) {
        case ShapeKind::flat: return "flat";
        case ShapeKind::chain: return "chain";
        case ShapeKind::binary: return "binary";
        case ShapeKind::binomial: return "binomial";
        case ShapeKind::kary: return std::to_string(degree) + "-ary";
        case ShapeKind::greedy: return "greedy-" + std::to_string(degree);
    }
    return "unknown";
}

namespace {

// Node i's children in a complete d-ary tree numbered breadth first: d*i+1 ..
// d*i+d, whose subtrees shrink from the first to the last.
void complete(Tree& t, int d, const Link& link) {
    const int n = t.size();
    for (int i = 0; i < n; ++i) {
        for (int c = d * i + 1; c <= d * i + d && c < n; ++c) t.children[static_cast<std::size_t>(i)].push_back({c, &link});
    }
}

// One sender's next send in a greedy tree: when its receiver would have the
// segment, and the sender.
struct Slot {
    long long at;
    int node;
    bool operator<(const Slot& o) const { return at < o.at || (at == o.at && node < o.node); }
};

// make_tree's greedy construction. `first` holds each new node's first send,
// `next` each sender's following one; both only grow, in (time, node) order,
// since what enters them is the slot just taken plus reach or spacing.
void greedy(Tree& t, int d, Pace pace, const Link& link) {
    std::deque<Slot> first{{pace.reach, 0}}, next;
    for (int c = 1; c < t.size(); ++c) {
        std::deque<Slot>& q = next.empty() || (!first.empty() && first.front() < next.front()) ? first : next;
        const Slot s = q.front();
        q.pop_front();
        auto& kids = t.children[static_cast<std::size_t>(s.node)];
        kids.push_back({c, &link});
        first.push_back({s.at + pace.reach, c});
        if (static_cast<int>(kids.size()) < d) next.push_back({s.at + pace.spacing, s.node});
    }
}

}  // namespace

Pace pace_of(const Link& link, std::size_t segment, bool shared, const Link* gateway) {
    const double send = Tree::Edge{0, &link, gateway}.send_cost(segment);
    const double spacing = shared ? std::max(send, link.gap.at(segment)) : send;
    return {std::llround(link.transfer(segment) * 1000), std::llround(spacing * 1000)};
}

Tree make_tree(TreeShape shape, int n, const Link& link) {
    invariant(n >= 1, "a tree needs a node");
    Tree t;
    t.children.resize(static_cast<std::size_t>(n));
    switch (shape.kind) {
        case ShapeKind::flat:
            for (int c = 1; c < n; ++c) t.children[0].push_back({c, &link});
            break;
        case ShapeKind::chain:
            for (int c = 1; c < n; ++c) t.children[static_cast<std::size_t>(c - 1)].push_back({c, &link});
            break;
        case ShapeKind::binary:
            complete(t, 2, link);
            break;
        case ShapeKind::kary:
            invariant(shape.degree >= 2, "a k-ary tree needs a degree of 2 or more");
            complete(t, shape.degree, link);
            break;
        case ShapeKind::greedy:
            invariant(shape.degree >= 1, "a greedy tree needs a degree of 1 or more");
            greedy(t, shape.degree, shape.pace, link);
            break;
        case ShapeKind::binomial:
            // As coll::bcast_binomial: node v's children are v + mask for the
            // masks below v's lowest set bit, farthest (largest subtree) first.
            for (int v = 0; v < n; ++v) {
                int mask = 1;
                while (mask < n && (v & mask) == 0) mask <<= 1;
                for (mask >>= 1; mask > 0; mask >>= 1) {
                    if (v + mask < n) t.children[static_cast<std::size_t>(v)].push_back({v + mask, &link});
                }
            }
            break;
    }
    return t;
}

Tree make_two_layer(TreeShape wan_shape, const Link& wan, TreeShape lan_shape, const Link& lan,
                    const std::vector<int>& site_sizes) {
    invariant(!site_sizes.empty(), "a two-layer tree needs a site");
    std::vector<int> first;  // each site's coordinator
    int n = 0;
    for (int s : site_sizes) {
        invariant(s >= 1, "every site needs a node");
        first.push_back(n);
        n += s;
    }
    Tree t;
    t.children.resize(static_cast<std::size_t>(n));
    const Tree top = make_tree(wan_shape, static_cast<int>(site_sizes.size()), wan);
    for (std::size_t site = 0; site < site_sizes.size(); ++site) {
        auto& mine = t.children[static_cast<std::size_t>(first[site])];
        for (const Tree::Edge& e : top.children[site]) mine.push_back({first[static_cast<std::size_t>(e.child)], &wan});
        const Tree inner = make_tree(lan_shape, site_sizes[site], lan);
        for (int v = 0; v < inner.size(); ++v) {
            auto& out = t.children[static_cast<std::size_t>(first[site] + v)];
            for (const Tree::Edge& e : inner.children[static_cast<std::size_t>(v)]) {
                out.push_back({first[site] + e.child, &lan});
            }
        }
    }
    return t;
}

Estimate bcast_time(const Tree& tree, std::size_t bytes, std::size_t segment) {
    invariant(segment != 0 && tree.size() >= 1, "a segment holds at least one byte");
    const std::size_t s = std::min(segment, bytes);  // an empty message is one empty segment
    const std::size_t k = bytes == 0 ? 1 : (bytes + s - 1) / s;
    const auto n = static_cast<std::size_t>(tree.size());
    std::vector<double> has(n, 0.0);          // when a node has the first segment
    std::vector<const Link*> in(n, nullptr);  // the link a node receives over
    std::vector<int> order{0};                // parents before children
    Estimate est;
    for (std::size_t i = 0; i < order.size(); ++i) {
        const auto v = static_cast<std::size_t>(order[i]);
        // The node's processor issues one send after another, os(s) each
        // (s_w(s) through a gateway); a link carries one message after
        // another, g(s) each. Children behind
        // one link share it; children behind different links do not.
        double cpu = has[v];
        double cpu_busy = in[v] != nullptr ? in[v]->recv_overhead.at(s) : 0;
        std::map<const Link*, double> free, link_busy;
        for (const Tree::Edge& e : tree.children[v]) {
            const auto c = static_cast<std::size_t>(e.child);
            const double start = std::max(cpu, free[e.link]);
            has[c] = start + e.link->transfer(s);
            in[c] = e.link;
            cpu += e.send_cost(s);
            free[e.link] = start + e.link->gap.at(s);
            cpu_busy += e.send_cost(s);
            link_busy[e.link] += e.link->gap.at(s);
            order.push_back(e.child);
        }
        // Per segment the node is as busy as its processor or its busiest
        // link, and cannot take segments faster than its own link brings them.
        double busy = std::max(cpu_busy, in[v] != nullptr ? in[v]->gap.at(s) : 0.0);
        for (const auto& [link, gaps] : link_busy) busy = std::max(busy, gaps);
        est.per_segment = std::max(est.per_segment, busy);
    }
    invariant(order.size() == n, "the tree does not reach every node exactly once");
    for (double t : has) est.first = std::max(est.first, t);
    est.total = est.first + static_cast<double>(k - 1) * est.per_segment;
    return est;
}

std::size_t segment_of(std::size_t bytes, std::size_t unit, std::size_t k) {
    const std::size_t elements = std::max<std::size_t>((bytes + unit - 1) / unit, 1);
    k = std::clamp<std::size_t>(k, 1, elements);
    return (elements + k - 1) / k * unit;
}

namespace {

// Whether `a` beats `b`: faster, or as fast with the larger segment (fewer messages).
bool better(double ta, std::size_t sa, double tb, std::size_t sb) { return ta < tb || (ta == tb && sa > sb); }

Choice best_segment(std::size_t index, const Tree& tree, std::size_t bytes, std::size_t unit) {
    const std::size_t elements = std::max<std::size_t>((bytes + unit - 1) / unit, 1);
    const auto time_of = [&](std::size_t seg) { return bcast_time(tree, bytes, seg).total; };
    // Segment sizes bytes/2^i (whole elements); i from 0 to the last that
    // still halves. Binary search for the fastest, the times assumed to fall
    // and then rise with i. A link's eager limit breaks that: a segment just
    // above it pays the rendezvous that one just below does not, so the
    // search runs on each stretch of sizes between the tree's eager limits.
    std::vector<std::size_t> sizes;
    for (std::size_t e = elements; e >= 1; e /= 2) {
        sizes.push_back(e * unit);
        if (e == 1) break;
    }
    std::vector<std::size_t> limits;
    for (const std::vector<Tree::Edge>& edges : tree.children) {
        for (const Tree::Edge& e : edges) {
            if (e.link->eager_limit != Link::kNoLimit) limits.push_back(e.link->eager_limit);
        }
    }
    const auto side = [&](std::size_t seg) {
        return std::count_if(limits.begin(), limits.end(), [&](std::size_t l) { return seg > l; });
    };
    Choice best{index, 0, 0};  // segment 0: none yet
    for (std::size_t first = 0; first < sizes.size();) {
        std::size_t last = first;  // the stretch sizes[first..last]
        while (last + 1 < sizes.size() && side(sizes[last + 1]) == side(sizes[first])) ++last;
        std::size_t lo = first, hi = last;
        while (lo < hi) {
            const std::size_t mid = (lo + hi) / 2;
            if (time_of(sizes[mid]) <= time_of(sizes[mid + 1])) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        const double t = time_of(sizes[lo]);
        if (best.segment == 0 || better(t, sizes[lo], best.time, best.segment)) best = {index, sizes[lo], t};
        first = last + 1;
    }
    // Hill climbing over the segment count.
    for (;;) {
        const std::size_t k = (elements + best.segment / unit - 1) / (best.segment / unit);
        Choice next = best;
        for (long long step : {-5LL, -1LL, 1LL, 5LL}) {
            const long long kk = static_cast<long long>(k) + step;
            if (kk < 1 || kk > static_cast<long long>(elements)) continue;
            const std::size_t seg = segment_of(bytes, unit, static_cast<std::size_t>(kk));
            const double t = time_of(seg);
            if (better(t, seg, next.time, next.segment)) next = {index, seg, t};
        }
        if (next.segment == best.segment) return best;
        best = next;
    }
}

// Every segment count.
Choice all_segments(std::size_t index, const Tree& tree, std::size_t bytes, std::size_t unit) {
    const std::size_t elements = std::max<std::size_t>((bytes + unit - 1) / unit, 1);
    Choice best{index, segment_of(bytes, unit, 1), bcast_time(tree, bytes, segment_of(bytes, unit, 1)).total};
    for (std::size_t k = 2; k <= elements; ++k) {
        const std::size_t seg = segment_of(bytes, unit, k);
        if (seg == segment_of(bytes, unit, k - 1)) continue;  // the same segments as k - 1
        const double t = bcast_time(tree, bytes, seg).total;
        if (better(t, seg, best.time, best.segment)) best = {index, seg, t};
    }
    return best;
}

Choice pick(std::span<const Tree> trees, std::size_t unit,
            Choice (*per_tree)(std::size_t, const Tree&, std::size_t, std::size_t), std::size_t bytes) {
    invariant(!trees.empty(), "no tree to choose from");
    invariant(unit != 0, "a unit holds at least one byte");
    Choice best;
    for (std::size_t i = 0; i < trees.size(); ++i) {
        const Choice c = per_tree(i, trees[i], bytes, unit);
        if (i == 0 || c.time < best.time) best = c;
    }
    return best;
}

}  // namespace

Choice choose(std::span<const Tree> trees, std::size_t bytes, std::size_t unit) {
    return pick(trees, unit, best_segment, bytes);
}

Choice optimum(std::span<const Tree> trees, std::size_t bytes, std::size_t unit) {
    return pick(trees, unit, all_segments, bytes);
}

std::vector<TreeShape> candidate_shapes(int n) {
    std::vector<TreeShape> out{{ShapeKind::flat}, {ShapeKind::chain}, {ShapeKind::binary}, {ShapeKind::binomial}};
    for (int d = 3; d <= n - 2; ++d) out.push_back({ShapeKind::kary, d});
    return out;
}

namespace {

// The least height of a tree over n nodes whose nodes have at most d
// children: the least h with 1 + d + ... + d^h >= n.
int least_height(int d, int n) {
    int h = 0;
    for (long long level = 1, total = 1; total < n; ++h) {
        level *= d;
        total += level;
    }
    return h;
}

}  // namespace

std::vector<TreeShape> greedy_shapes(int n, const Link& link, std::size_t segment, bool shared,
                                     const Link* gateway) {
    std::vector<TreeShape> out;
    if (n < 3) return out;  // one child at most: the chain
    const Pace pace = pace_of(link, segment, shared, gateway);
    const long long gap = std::llround(link.gap.at(segment) * 1000);
    // ceil(g / s), as integers; no spacing at all: every child costs nothing.
    const long long least = pace.spacing > 0 ? (gap + pace.spacing - 1) / pace.spacing : n - 1;
    int d = static_cast<int>(std::clamp<long long>(least, 2, n - 1));
    for (int height = least_height(d, n); d <= n - 1; ++d) {
        if (!out.empty() && least_height(d, n) >= height) continue;
        height = least_height(d, n);
        out.push_back({ShapeKind::greedy, d, pace});
    }
    return out;
}

}  // namespace strata::coll::plogp
