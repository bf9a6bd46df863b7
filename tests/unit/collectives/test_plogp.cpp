// The P-LogP model: curves, trees, hand-computed completion times, the
// optimizer's heuristic against the exhaustive optimum, and the plans a job's
// processes make from one parameter file.
#include <catch2/catch.hpp>

#include <csignal>

#include "collectives/plogp/model.hpp"
#include "collectives/plogp/params.hpp"
#include "collectives/plogp/wide_area.hpp"
#include "tests/unit/death.hpp"

using namespace strata::coll::plogp;

namespace {

// A link whose costs do not depend on the size.
Link constant(double latency, double os, double orecv, double gap) {
    Link l;
    l.latency = latency;
    l.send_overhead = Curve({{0, os}});
    l.recv_overhead = Curve({{0, orecv}});
    l.gap = Curve({{0, gap}});
    return l;
}

// A link like a wide-area one: 10 ms, 100 Mbit/s (12.5 bytes per microsecond).
Link wide_area() {
    Link l;
    l.latency = 10000;
    l.send_overhead = Curve({{0, 5}, {1 << 20, 40}});
    l.recv_overhead = Curve({{0, 5}, {1 << 20, 40}});
    l.gap = Curve({{0, 6}, {1 << 20, 6 + (1 << 20) / 12.5}});
    return l;
}

}  // namespace

TEST_CASE("a curve is linear between its points and along the last two beyond them", "[plogp]") {
    const Curve c({{0, 1}, {100, 2}, {200, 4}});
    CHECK(c.at(0) == Approx(1));
    CHECK(c.at(50) == Approx(1.5));
    CHECK(c.at(150) == Approx(3));
    CHECK(c.at(300) == Approx(6));
    CHECK(Curve({{64, 7}}).at(1 << 20) == Approx(7));
    CHECK(Curve({{64, 7}, {128, 9}}).at(0) == Approx(7));  // constant below the first size
    CHECK(Curve().at(100) == 0);
    CHECK(Curve::make({{100, 1}, {100, 2}}).error() == "message sizes are not strictly increasing");
    CHECK(Curve::make({{0, -1}}).error() == "a cost is negative or not a number");
    CHECK(Curve::make({{0, 1}, {100, 2}})->at(50) == Approx(1.5));
}

TEST_CASE("trees of every shape have the published structure", "[plogp]") {
    const Link l = constant(10, 1, 2, 3);
    const auto kids = [](const Tree& t, int v) {
        std::vector<int> out;
        for (const Tree::Edge& e : t.children[static_cast<std::size_t>(v)]) out.push_back(e.child);
        return out;
    };
    const Tree flat = make_tree({ShapeKind::flat}, 4, l);
    CHECK(kids(flat, 0) == std::vector<int>{1, 2, 3});
    const Tree chain = make_tree({ShapeKind::chain}, 3, l);
    CHECK(kids(chain, 0) == std::vector<int>{1});
    CHECK(kids(chain, 1) == std::vector<int>{2});
    const Tree binomial = make_tree({ShapeKind::binomial}, 8, l);
    CHECK(kids(binomial, 0) == std::vector<int>{4, 2, 1});
    CHECK(kids(binomial, 4) == std::vector<int>{6, 5});
    CHECK(kids(binomial, 6) == std::vector<int>{7});
    CHECK(kids(binomial, 7).empty());
    const Tree ternary = make_tree({ShapeKind::kary, 3}, 7, l);
    CHECK(kids(ternary, 0) == std::vector<int>{1, 2, 3});
    CHECK(kids(ternary, 1) == std::vector<int>{4, 5, 6});
    CHECK(kids(ternary, 2).empty());
    CHECK(TreeShape{ShapeKind::kary, 3}.name() == "3-ary");
    CHECK(make_tree({ShapeKind::binomial}, 1, l).size() == 1);

    std::vector<std::string> names;
    for (const TreeShape& s : candidate_shapes(6)) names.push_back(s.name());
    CHECK(names == std::vector<std::string>{"flat", "chain", "binary", "binomial", "3-ary", "4-ary"});
}

TEST_CASE("completion times of segmented trees, computed by hand", "[plogp]") {
    // transfer = L + g = 13, gap 3; 100 bytes in segments of 25: k = 4.
    const Link l = constant(10, 1, 2, 3);
    // Flat: the root's one link sends at 0, 3, 6; the last arrives at 19. The
    // root's link is busiest: three gaps per segment.
    Estimate e = bcast_time(make_tree({ShapeKind::flat}, 4, l), 100, 25);
    CHECK(e.first == Approx(19));
    CHECK(e.per_segment == Approx(9));
    CHECK(e.total == Approx(19 + 3 * 9));
    // Chain: 13, 26, 39; an inner node's processor receives (2) and sends (1)
    // per segment while its link carries the segment on (3).
    e = bcast_time(make_tree({ShapeKind::chain}, 4, l), 100, 25);
    CHECK(e.first == Approx(39));
    CHECK(e.per_segment == Approx(3));
    CHECK(e.total == Approx(39 + 3 * 3));
    // Binomial: 0 -> 2 at 0 (13), 0 -> 1 at 3 (16), 2 -> 3 at 13 (26).
    e = bcast_time(make_tree({ShapeKind::binomial}, 4, l), 100, 25);
    CHECK(e.first == Approx(26));
    CHECK(e.per_segment == Approx(6));
    CHECK(e.total == Approx(26 + 3 * 6));
    // One segment: lambda alone; a last shorter segment counts as a whole one.
    CHECK(bcast_time(make_tree({ShapeKind::chain}, 4, l), 100, 100).total == Approx(39));
    CHECK(bcast_time(make_tree({ShapeKind::chain}, 4, l), 101, 25).total == Approx(39 + 4 * 3));
    CHECK(bcast_time(make_tree({ShapeKind::chain}, 4, l), 0, 25).total == Approx(39));
    const strata::test::Death no_segment =
        strata::test::death_of([&] { (void)bcast_time(make_tree({ShapeKind::chain}, 4, l), 100, 0); });
    CHECK(no_segment.signal == SIGABRT);
    CHECK(no_segment.output == "strata: internal error: a segment holds at least one byte\n");

    // Above the eager limit a message waits for a rendezvous: two latencies more.
    Link rdv = l;
    rdv.eager_limit = 20;
    CHECK(rdv.transfer(20) == Approx(13));
    CHECK(rdv.transfer(21) == Approx(33));
    CHECK(bcast_time(make_tree({ShapeKind::chain}, 4, rdv), 100, 25).first == Approx(3 * 33));
}

TEST_CASE("two layers: the wide area first, then each site's own tree", "[plogp]") {
    const Link wan = constant(100, 1, 1, 10);  // transfer 110, gap 10
    const Link lan = constant(10, 1, 2, 3);    // transfer 13, gap 3
    // Sites of 2 and 2: 0 -> 2 over the wide area, then 0 -> 1 and 2 -> 3 inside.
    const Tree t = make_two_layer({ShapeKind::flat}, wan, {ShapeKind::flat}, lan, {2, 2});
    REQUIRE(t.size() == 4);
    REQUIRE(t.children[0].size() == 2);
    CHECK(t.children[0][0].child == 2);
    CHECK(t.children[0][0].link == &wan);
    CHECK(t.children[0][1].child == 1);
    CHECK(t.children[0][1].link == &lan);
    const Estimate e = bcast_time(t, 40, 10);
    CHECK(e.first == Approx(110 + 13));  // 3 has it at 123; 1 at 1 (after one os) + 13
    CHECK(e.per_segment == Approx(10));   // the wide-area link; the local one works alongside
    CHECK(e.total == Approx(123 + 3 * 10));

    // Two remote sites behind their own links: the root's sends overlap; one
    // link for both: they queue.
    const Link wan2 = constant(100, 1, 1, 10);
    Tree own;
    own.children = {{{1, &wan}, {2, &wan2}}, {}, {}};
    Tree shared;
    shared.children = {{{1, &wan}, {2, &wan}}, {}, {}};
    CHECK(bcast_time(own, 10, 10).first == Approx(1 + 110));
    CHECK(bcast_time(shared, 10, 10).first == Approx(10 + 110));
    CHECK(bcast_time(own, 40, 10).per_segment == Approx(10));
    CHECK(bcast_time(shared, 40, 10).per_segment == Approx(20));
    const strata::test::Death empty_site = strata::test::death_of([&] {
        (void)make_two_layer({ShapeKind::flat}, wan, {ShapeKind::flat}, lan, {2, 0});
    });
    CHECK(empty_site.signal == SIGABRT);
    CHECK(empty_site.output == "strata: internal error: every site needs a node\n");
}

TEST_CASE("segments are whole elements", "[plogp]") {
    CHECK(segment_of(100, 1, 4) == 25);
    CHECK(segment_of(100, 8, 4) == 32);  // 13 elements in 4 segments: 4 per segment
    CHECK(segment_of(100, 8, 1000) == 8);
    CHECK(segment_of(0, 8, 3) == 8);
}

TEST_CASE("the heuristic finds the optimum's segment on a wide-area tree and decides alike every time", "[plogp]") {
    const Link wan = wide_area();
    for (int n : {2, 4, 8}) {
        std::vector<Tree> trees;
        for (const TreeShape& s : candidate_shapes(n)) trees.push_back(make_tree(s, n, wan));
        for (std::size_t bytes : {std::size_t{1} << 10, std::size_t{1} << 16, std::size_t{1} << 20}) {
            for (std::size_t unit : {std::size_t{1}, std::size_t{8}, std::size_t{12}}) {
                const Choice h = choose(trees, bytes, unit);
                const Choice o = optimum(trees, bytes, unit);
                INFO(n << " nodes, " << bytes << " bytes, unit " << unit << ": heuristic "
                       << candidate_shapes(n)[h.tree].name() << "/" << h.segment << " " << h.time << " us, optimum "
                       << candidate_shapes(n)[o.tree].name() << "/" << o.segment << " " << o.time << " us");
                CHECK(h.segment % unit == 0);
                CHECK(h.time >= o.time);
                CHECK(h.time <= o.time * 1.02);
                const Choice again = choose(trees, bytes, unit);
                CHECK((again.tree == h.tree && again.segment == h.segment && again.time == h.time));
            }
        }
    }
}

TEST_CASE("the heuristic searches each side of an eager limit", "[plogp]") {
    // Measured on an emulated 2 ms, 100 Mbit/s link: a segment above 64 KiB
    // waits for a rendezvous (two latencies more), so the time jumps there and
    // one binary search over all segment sizes can settle on the wrong side.
    const std::vector<std::size_t> at{0, 1024, 16384, 131072, 1048576};
    const auto curve = [&](std::vector<double> us) {
        std::vector<Curve::Point> points;
        for (std::size_t i = 0; i < at.size(); ++i) points.emplace_back(at[i], us[i]);
        return Curve(points);
    };
    Link wan;
    wan.latency = 2002;
    wan.send_overhead = curve({5.2, 6.6, 9.5, 5.1, 5.1});
    wan.recv_overhead = curve({9.6, 6.2, 12.6, 60.4, 442});
    wan.gap = curve({4.1, 86.6, 1316, 10514, 84070});
    wan.eager_limit = 65536;
    Link lan;
    lan.latency = 3.7;
    lan.send_overhead = curve({0.2, 2.6, 0.6, 0.1, 0.2});
    lan.recv_overhead = curve({0.4, 0.4, 0.8, 3.9, 28.7});
    lan.gap = curve({0, 0, 0, 0, 0});
    lan.eager_limit = 16384;
    const std::vector<Tree> trees{make_two_layer({ShapeKind::flat}, wan, {ShapeKind::flat}, lan, {2, 2})};
    const Choice h = choose(trees, 1 << 20, 1);
    const Choice o = optimum(trees, 1 << 20, 1);
    INFO("heuristic " << h.segment << " " << h.time << " us, optimum " << o.segment << " " << o.time << " us");
    CHECK(h.time <= o.time * 1.02);
    CHECK(h.segment <= wan.eager_limit);
}

TEST_CASE("segmenting pays where the model says it does", "[plogp]") {
    // A large message down a chain of wide-area links: pipelining segments
    // beats forwarding the whole message at every hop.
    const Link wan = wide_area();
    const std::vector<Tree> chain{make_tree({ShapeKind::chain}, 4, wan)};
    const std::size_t mb = 1 << 20;
    const Choice c = choose(chain, mb, 1);
    CHECK(c.segment < mb);
    CHECK(c.time < bcast_time(chain[0], mb, mb).total / 2);
    // A small one goes whole.
    CHECK(choose(chain, 64, 1).segment == 64);
}

TEST_CASE("a parameter file reads back what it wrote, and names the file and line of what is wrong", "[plogp]") {
    const std::string text =
        "# measured\n"
        "sizes 0 1K 1M\n"
        "link A B latency 10000\n"
        "link B A os 5 6 40   # either order\n"
        "link A B or 5 6 39.5\n"
        "link A B g 6 88 83892\n"
        "link A A latency 250\n"
        "link A A os 1 1 1\n"
        "link A A or 1 1 1\n"
        "link A A g 1 9 8400\n"
        "link A A eager 64K\n";
    const strata::base::Result<Params> parsed = Params::parse(text, "p.txt");
    REQUIRE(parsed.ok());
    const Params& p = *parsed;
    CHECK(p.sizes() == std::vector<std::size_t>{0, 1024, 1 << 20});
    const Link* ab = p.link("B", "A");
    REQUIRE(ab != nullptr);
    CHECK(ab->latency == 10000);
    CHECK(ab->recv_overhead.at(1 << 20) == Approx(39.5));
    CHECK(ab->gap.at(512) == Approx(47));
    CHECK(p.link("A", "C") == nullptr);
    CHECK(ab->eager_limit == Link::kNoLimit);
    CHECK(p.link("A", "A")->eager_limit == 64 * 1024);
    CHECK(p.covers({"A", "B", "A"}).ok());
    const strata::base::Status missing = p.covers({"A", "B", "C"});
    CHECK_FALSE(missing.ok());
    CHECK(missing.error() == "no parameters for the link between sites A and C");

    const strata::base::Result<Params> again = Params::parse(p.text(), "written");
    REQUIRE(again.ok());
    CHECK(again->text() == p.text());

    const auto rejected = [](const std::string& bad, const std::string& want) {
        const strata::base::Result<Params> q = Params::parse(bad, "p.txt");
        CHECK_FALSE(q.ok());
        CHECK(q.error() == want);
    };
    rejected("", "p.txt: no link");
    rejected("link A B latency 1\n", "p.txt:1: a 'link' line before the 'sizes' line");
    rejected("sizes 0 1K\nsizes 0\n", "p.txt:2: a second 'sizes' line");
    rejected("sizes 1K 0\n", "p.txt:1: the sizes are not increasing");
    rejected("sizes 0 lots\n", "p.txt:1: 'lots' is not a message size (123, 64K, 1M)");
    rejected("sizes 0\nlinks A B g 1\n", "p.txt:2: 'links' is neither 'sizes' nor 'link'");
    rejected("sizes 0\nlink A B\n", "p.txt:2: a link line is 'link SITE SITE FIELD VALUE...'");
    rejected("sizes 0\nlink A B bandwidth 1\n", "p.txt:2: 'bandwidth' is not latency, os, or, g or eager");
    rejected("sizes 0\nlink A B eager big\n", "p.txt:2: 'big' is not a message size (123, 64K, 1M)");
    rejected("sizes 0 1K\nlink A B g 1\n", "p.txt:2: g takes 2 values, one per size, not 1");
    rejected("sizes 0\nlink A B latency 1 2\n", "p.txt:2: latency takes 1 value, not 2");
    rejected("sizes 0\nlink A B latency -1\n",
             "p.txt:2: '-1' is not a time in microseconds (a number, not negative)");
    rejected("sizes 0\nlink A B latency 1\nlink B A latency 2\n",
             "p.txt:3: a second 'latency' line for the link between B and A (the first is line 2)");
    rejected("sizes 0\nlink A B latency 1\nlink A B os 1\nlink A B or 1\n",
             "p.txt:2: the link between A and B has no 'g' line (the gap g(m))");
}

namespace {

// Three sites, 10 ms apart, each with a 0.5 ms link inside.
Params three_sites() {
    const char* text =
        "sizes 0 1K 1M\n"
        "link A B latency 10000\nlink A B os 5 6 40\nlink A B or 5 6 40\nlink A B g 6 88 83892\n"
        "link A C latency 10000\nlink A C os 5 6 40\nlink A C or 5 6 40\nlink A C g 6 88 83892\n"
        "link B C latency 10000\nlink B C os 5 6 40\nlink B C or 5 6 40\nlink B C g 6 88 83892\n"
        "link B B latency 500\nlink B B os 2 3 20\nlink B B or 2 3 20\nlink B B g 3 10 8400\n"
        "link C C latency 500\nlink C C os 2 3 20\nlink C C or 2 3 20\nlink C C g 3 10 8400\n";
    strata::base::Result<Params> p = Params::parse(text, "three");
    REQUIRE(p.ok());
    return std::move(*p);
}

}  // namespace

TEST_CASE("every process plans the same tree, site by site from the root, each site's coordinator first", "[plogp]") {
    // World ranks 0..5 at sites A B C B C C.
    const std::vector<std::string> sites{"A", "B", "C", "B", "C", "C"};
    strata::base::Result<std::unique_ptr<WideArea>> made = WideArea::make(three_sites(), sites);
    strata::base::Result<std::unique_ptr<WideArea>> made_elsewhere =
        WideArea::make(three_sites(), sites);  // another process
    REQUIRE(made.ok());
    REQUIRE(made_elsewhere.ok());
    const std::unique_ptr<WideArea> model = std::move(*made);
    const std::unique_ptr<WideArea> elsewhere = std::move(*made_elsewhere);
    REQUIRE(model);
    const std::vector<int> world{0, 1, 2, 3, 4, 5};
    CHECK(model->covers(world));

    // From group rank 3 (site B): B's members 3, 1, then C's 4, 5, 2, then A's 0.
    const Plan& p = model->plan(world, 3, 1 << 20, 8);
    CHECK(p.member == std::vector<int>{3, 1, 4, 5, 2, 0});
    for (int r = 0; r < 6; ++r) CHECK(p.member[static_cast<std::size_t>(p.node[static_cast<std::size_t>(r)])] == r);
    CHECK(p.parent[0] == -1);
    CHECK(p.choice.segment % 8 == 0);
    CHECK(p.choice.segment < (1u << 20));          // a megabyte across 10 ms links goes in segments
    CHECK(p.name.find('+') != std::string::npos);  // two layers
    // Two layers: only the coordinators (nodes 0, 2, 5) receive over the wide area.
    for (int v = 1; v < 6; ++v) {
        const int parent = p.parent[static_cast<std::size_t>(v)];
        const bool same_site = sites[static_cast<std::size_t>(p.member[static_cast<std::size_t>(v)])] ==
                               sites[static_cast<std::size_t>(p.member[static_cast<std::size_t>(parent)])];
        CHECK(same_site == (v != 2 && v != 5));
    }

    const Plan& again = elsewhere->plan(world, 3, 1 << 20, 8);
    CHECK(again.name == p.name);
    CHECK(again.choice.segment == p.choice.segment);
    CHECK(again.choice.time == p.choice.time);
    CHECK(again.parent == p.parent);
    CHECK(&model->plan(world, 3, 1 << 20, 8) == &p);  // remembered

    // One process per site: one layer, node i the group rank i places after the root.
    const std::vector<int> coordinators{0, 1, 2};
    const Plan& flat = model->plan(coordinators, 1, 100000, 1);
    CHECK(flat.member == std::vector<int>{1, 2, 0});
    CHECK(flat.name.find('+') == std::string::npos);

    // Two members of site A have no link inside A: not covered.
    strata::base::Result<std::unique_ptr<WideArea>> made_two_in_a = WideArea::make(three_sites(), {"A", "A", "B"});
    REQUIRE(made_two_in_a.ok());
    const std::unique_ptr<WideArea> two_in_a = std::move(*made_two_in_a);
    REQUIRE(two_in_a);
    CHECK_FALSE(two_in_a->covers(std::vector<int>{0, 1, 2}));
    CHECK(two_in_a->covers(std::vector<int>{0, 2}));
    const strata::base::Result<std::unique_ptr<WideArea>> uncovered = WideArea::make(three_sites(), {"A", "D"});
    CHECK_FALSE(uncovered.ok());
    CHECK(uncovered.error() == "no parameters for the link between sites A and D");
}

TEST_CASE("the gateway term: wide-area sends through a gateway cost the sender its site's gap", "[plogp]") {
    // The root sends to three sites over three wide-area links (not shared):
    // directly its processor issues them 5 us apart and each link carries a
    // segment per 50 us; through its gateway each first crosses the site's own
    // network, whose gap is 100 us: s_w = max(os_w, g_l) = 100 per send.
    const Link a = constant(1000, 5, 5, 50);
    const Link b = constant(1000, 5, 5, 50);
    const Link c = constant(1000, 5, 5, 50);
    const Link lan = constant(50, 2, 2, 100);
    Tree direct;
    direct.children = {{{1, &a}, {2, &b}, {3, &c}}, {}, {}, {}};
    const Estimate d = bcast_time(direct, 4000, 1000);
    CHECK(d.per_segment == Approx(50));              // the links' gap, not the 3 x 5 us of sends
    CHECK(d.first == Approx(10 + 1050));             // the third send starts after two of 5 us
    Tree through = direct;
    for (Tree::Edge& e : through.children[0]) e.gateway = &lan;
    const Estimate g = bcast_time(through, 4000, 1000);
    CHECK(g.per_segment == Approx(300));             // 3 x max(5, 100)
    CHECK(g.first == Approx(200 + 1050));
    CHECK(g.total == Approx(g.first + 3 * 300));
    CHECK(Tree::Edge{1, &a, &lan}.send_cost(1000) == Approx(100));
    CHECK(Tree::Edge{1, &a}.send_cost(1000) == Approx(5));
}

TEST_CASE("a model told which sites send through a gateway gives their wide-area edges its term", "[plogp]") {
    // World ranks 0..3 at sites A B B C; B is private (its relay is its gateway).
    const std::vector<std::string> sites{"A", "B", "B", "C"};
    strata::base::Result<std::unique_ptr<WideArea>> made = WideArea::make(three_sites(), sites, {false, true, true, false});
    strata::base::Result<std::unique_ptr<WideArea>> plain = WideArea::make(three_sites(), sites);
    REQUIRE(made.ok());
    REQUIRE(plain.ok());
    const std::vector<int> world{0, 1, 2, 3};
    for (const int root : {0, 1}) {
        const Candidates gated = (*made)->candidates(world, root, 1 << 20, 8);
        for (const Tree& t : gated.trees) {
            for (int v = 0; v < t.size(); ++v) {
                const int from = gated.member[static_cast<std::size_t>(v)];
                for (const Tree::Edge& e : t.children[static_cast<std::size_t>(v)]) {
                    const int to = gated.member[static_cast<std::size_t>(e.child)];
                    const bool out_of_b = sites[static_cast<std::size_t>(from)] == "B" &&
                                          sites[static_cast<std::size_t>(to)] != "B";
                    CHECK((e.gateway != nullptr) == out_of_b);
                    if (out_of_b) CHECK(e.gateway == (*made)->link(1, 2));  // B's own link class
                }
            }
        }
    }
    // From B, a megabyte's predicted time can only grow with the term.
    const Plan& with = (*made)->plan(world, 1, 1 << 20, 8);
    const Plan& without = (*plain)->plan(world, 1, 1 << 20, 8);
    CHECK(with.choice.time >= without.choice.time);
}

namespace {

// The children of every node, as node numbers.
std::vector<std::vector<int>> kids_of(const Tree& t) {
    std::vector<std::vector<int>> out;
    for (const std::vector<Tree::Edge>& edges : t.children) {
        out.emplace_back();
        for (const Tree::Edge& e : edges) out.back().push_back(e.child);
    }
    return out;
}

// The height of a tree (edges from the root to its deepest node), or -1 when
// some node is not reached exactly once from the root.
int height_of(const Tree& t) {
    std::vector<int> depth(static_cast<std::size_t>(t.size()), -1);
    depth[0] = 0;
    std::vector<int> order{0};
    for (std::size_t i = 0; i < order.size(); ++i) {
        for (const Tree::Edge& e : t.children[static_cast<std::size_t>(order[i])]) {
            if (e.child <= 0 || e.child >= t.size() || depth[static_cast<std::size_t>(e.child)] != -1) return -1;
            depth[static_cast<std::size_t>(e.child)] = depth[static_cast<std::size_t>(order[i])] + 1;
            order.push_back(e.child);
        }
    }
    if (static_cast<int>(order.size()) != t.size()) return -1;
    return *std::max_element(depth.begin(), depth.end());
}

// The least height of a tree over n nodes with at most d children per node.
int least_height(int d, int n) {
    int h = 0;
    for (long long level = 1, total = 1; total < n; ++h) total += level *= d;
    return h;
}

// Every edge of `t` given a link of its own (a copy of `l` per child): the
// children of a node do not share a link, as between the sites of a grid.
Tree own_links(Tree t, std::vector<Link>& store, const Link& l) {
    store.assign(static_cast<std::size_t>(t.size()), l);
    for (auto& edges : t.children) {
        for (Tree::Edge& e : edges) e.link = &store[static_cast<std::size_t>(e.child)];
    }
    return t;
}

// The catalogue's k-ary tree of degree d over n nodes (binary, or flat for n - 1).
TreeShape kary(int d, int n) {
    if (d == 2) return {ShapeKind::binary};
    if (d >= n - 1) return {ShapeKind::flat};
    return {ShapeKind::kary, d};
}

// A greedy tree of degree d over n nodes on `link` (a copy per child when
// `own`): every node reached once, at most d children; its first segment
// reaches the last node no later than down the catalogue's tree of the same
// degree; and where a child needs longer to forward than its parent to send
// to all n (reach > n * spacing), the levels fill one after another: the
// least height of degree d.
void check_greedy(const Link& link, bool own, int n, int d) {
    const Pace pace = pace_of(link, 100, !own);
    INFO("reach " << pace.reach << " ns, spacing " << pace.spacing << " ns, " << n << " nodes, degree " << d
                  << (own ? ", a link per child" : ", one link"));
    std::vector<Link> store;
    const Tree t = make_tree({ShapeKind::greedy, d, pace}, n, link);
    const Tree g = own ? own_links(t, store, link) : t;
    const int h = height_of(g);
    REQUIRE(h >= 0);
    for (const auto& edges : g.children) CHECK(static_cast<int>(edges.size()) <= d);
    if (pace.reach > n * pace.spacing) CHECK(h == least_height(d, n));
    if (d < 2) return;
    std::vector<Link> store2;
    const Tree k = make_tree(kary(d, n), n, link);
    const Tree k2 = own ? own_links(k, store2, link) : k;
    CHECK(bcast_time(g, 100, 100).first <= bcast_time(k2, 100, 100).first + 1e-9);
}

}  // namespace

TEST_CASE("a greedy tree gives each receiver, in turn, to the sender that reaches it first", "[plogp][greedy]") {
    // transfer L + g = 10, gap 3, os 1. The children of a node share its
    // link: it begins a send every 3 us; each child has the segment 10 us
    // after its send began.
    const Link l = constant(7, 1, 0, 3);
    const Pace shared = pace_of(l, 100, true);
    CHECK(shared == Pace{10000, 3000});
    CHECK(pace_of(l, 100, false) == Pace{10000, 1000});  // a link per child: one send overhead apart
    Link gated_link = l;
    const Link site = constant(1, 1, 1, 5);
    CHECK(pace_of(gated_link, 100, false, &site) == Pace{10000, 5000});  // s_w = max(os_w, g_l)
    gated_link.eager_limit = 50;
    CHECK(pace_of(gated_link, 100, true).reach == 24000);  // the rendezvous's two latencies

    // Degree 3 over 7 nodes: the root's children have it at 10, 13, 16; node
    // 1's first child at 20, its second and node 2's first at 23 (node 1's
    // first: it had the segment first), then node 2's.
    const Tree g = make_tree({ShapeKind::greedy, 3, shared}, 7, l);
    CHECK(kids_of(g) == std::vector<std::vector<int>>{{1, 2, 3}, {4, 5}, {6}, {}, {}, {}, {}});
    CHECK(bcast_time(g, 100, 100).first == Approx(23));
    // The catalogue's 3-ary tree gives node 1 all three: the last has it at 26.
    CHECK(bcast_time(make_tree({ShapeKind::kary, 3}, 7, l), 100, 100).first == Approx(26));
    CHECK(TreeShape{ShapeKind::greedy, 3, shared}.name() == "greedy-3");
    // Degree 1 is the chain; one node is a root alone.
    CHECK(kids_of(make_tree({ShapeKind::greedy, 1, shared}, 4, l)) == kids_of(make_tree({ShapeKind::chain}, 4, l)));
    CHECK(make_tree({ShapeKind::greedy, 2, shared}, 1, l).children[0].empty());

    // The properties below, over links whose transfer is long or short
    // against the sender's pace.
    for (const Link& link :
         {constant(7, 1, 0, 3), constant(100, 1, 0, 3), constant(2, 4, 0, 3), constant(0, 0, 0, 1)}) {
        for (bool own : {false, true}) {
            for (int n : {2, 3, 5, 8, 13, 31, 64}) {
                for (int d = 1; d < n; d += d < 4 ? 1 : 5) check_greedy(link, own, n, d);
            }
        }
    }
}

TEST_CASE("greedy trees come in the paper's degrees: from g/s up, only where the height shrinks", "[plogp][greedy]") {
    const auto degrees = [](const std::vector<TreeShape>& shapes) {
        std::vector<int> out;
        for (const TreeShape& s : shapes) {
            CHECK(s.kind == ShapeKind::greedy);
            out.push_back(s.degree);
        }
        return out;
    };
    // g / os = 20 on links of their own: degree 20 (height 2 over 64 nodes),
    // then 63 (height 1); 21 to 62 keep height 2.
    const Link l = constant(1000, 1, 1, 20);
    CHECK(degrees(greedy_shapes(64, l, 1000, false)) == std::vector<int>{20, 63});
    // One shared link: a send every gap, so no degree is too small: 2 (height
    // 6 over 64 nodes), 3 (4), 4 (3), 8 (2), 63 (1).
    CHECK(degrees(greedy_shapes(64, l, 1000, true)) == std::vector<int>{2, 3, 4, 8, 63});
    CHECK(greedy_shapes(64, l, 1000, true)[0].pace == pace_of(l, 1000, true));
    CHECK(degrees(greedy_shapes(3, l, 1000, true)) == std::vector<int>{2});
    CHECK(greedy_shapes(2, l, 1000, true).empty());  // the chain and flat tree are the same
    CHECK(degrees(greedy_shapes(64, constant(1000, 0, 0, 20), 1000, false)) == std::vector<int>{63});
    // Through a gateway a send costs the site's gap (5): from degree 4.
    const Link site = constant(1, 1, 1, 5);
    CHECK(degrees(greedy_shapes(64, l, 1000, false, &site)) == std::vector<int>{4, 8, 63});
}

namespace {

// Seed 002 Figure 2's links as strata-plogp measured them on the emulated grid
// (docs/PERFORMANCE.md; docs/perf/plogp-fig2-params.txt): inside a site
// (0.5 ms, 1 Gbit/s) and between two (10 ms, 100 Mbit/s), for the sites
// `names` (each with its own link inside, every two with theirs).
Params figure2(const std::vector<std::string>& names) {
    const std::string inside =
        "latency 499.3909378051758\n"
        "os 3.5149993896484375 3.4150009155273438 5.4080047607421875 5.086997985839844 5.197998046875 "
        "9.91400146484375 4.247001647949219 3.996002197265625\n"
        "or 1.2719955444335938 1.9530029296875 1.2620010375976562 0.5699996948242188 0.84100341796875 "
        "1.2819976806640625 3.0459747314453125 10.101882934570312\n"
        "g 1.1855621337890625 3.4683127403259277 8.4701247215271 33.096187114715576 132.21037435531616 "
        "528.8337497711182 2120.6529998779297 8517.180751800537\n"
        "eager 65536\n";
    const std::string between =
        "latency 10000.528184890747\n"
        "os 3.7959976196289062 4.08599853515625 3.925994873046875 4.3459930419921875 6.819999694824219 "
        "18.36699676513672 5.857994079589844 5.377998352050781\n"
        "or 1.2919998168945312 3.6049957275390625 1.5330047607421875 1.983001708984375 9.173004150390625 "
        "11.317001342773438 19.892990112304688 54.19694519042969\n"
        "g 3.212312698364258 23.690374851226807 85.11575031280518 330.8941249847412 1316.103000164032 "
        "5249.7293128967285 21002.755500793457 84000.2577495575\n"
        "eager 65536\n";
    std::string text = "sizes 0 256 1K 4K 16K 64K 256K 1M\n";
    const auto add = [&](const std::string& a, const std::string& b, const std::string& fields) {
        for (std::size_t at = 0; at < fields.size();) {
            const std::size_t end = fields.find('\n', at);
            text += "link " + a + " " + b + " " + fields.substr(at, end - at) + "\n";
            at = end + 1;
        }
    };
    for (std::size_t i = 0; i < names.size(); ++i) {
        add(names[i], names[i], inside);
        for (std::size_t j = i + 1; j < names.size(); ++j) add(names[i], names[j], between);
    }
    strata::base::Result<Params> p = Params::parse(text, "figure 2");
    REQUIRE(p.ok());
    return std::move(*p);
}

}  // namespace

TEST_CASE("greedy trees against the catalogue on Figure 2's links", "[plogp][greedy]") {
    const Params p = figure2({"A", "B"});
    const Link& lan = *p.link("A", "A");
    const Link& wan = *p.link("A", "B");
    const auto catalogue = [](int n, const Link& link, std::vector<Link>* own) {
        std::vector<Tree> trees;
        for (const TreeShape& s : candidate_shapes(n)) {
            trees.push_back(make_tree(s, n, link));
            if (own != nullptr) trees.back() = own_links(trees.back(), *own, link);
        }
        return trees;
    };

    SECTION("machines behind one link (a site): the greedy tree wins where the catalogue's last level is ragged") {
        // 24 nodes, 4 KiB: the catalogue's best is 20-ary in 4 KiB segments;
        // the greedy trees built for that segment size beat it by 2.6%.
        const std::vector<Tree> trees = catalogue(24, lan, nullptr);
        const Choice best = choose(trees, 4096, 1);
        CHECK(candidate_shapes(24)[best.tree].name() == "20-ary");
        std::vector<Tree> greedy;
        for (const TreeShape& s : greedy_shapes(24, lan, best.segment, true)) greedy.push_back(make_tree(s, 24, lan));
        const Choice g = choose(greedy, 4096, 1);
        INFO("catalogue " << best.time << " us, greedy " << g.time << " us");
        CHECK(g.time < best.time * 0.98);
    }
    SECTION("sites with a link each (the wide area): the flat tree is never beaten") {
        for (int n : {3, 8, 24, 64}) {
            std::vector<Link> store;
            const std::vector<Tree> trees = catalogue(n, wan, &store);
            for (std::size_t bytes : {std::size_t{1} << 10, std::size_t{1} << 16, std::size_t{1} << 22}) {
                const Choice best = choose(trees, bytes, 1);
                std::vector<Tree> greedy;
                std::vector<std::vector<Link>> stores;
                for (const TreeShape& s : greedy_shapes(n, wan, best.segment, false)) {
                    stores.emplace_back();
                    greedy.push_back(own_links(make_tree(s, n, wan), stores.back(), wan));
                }
                INFO(n << " nodes, " << bytes << " bytes");
                CHECK(candidate_shapes(n)[best.tree].name() == "flat");
                CHECK(choose(greedy, bytes, 1).time >= best.time);
            }
        }
    }
}

TEST_CASE("plans take a greedy tree only where it is faster, and every process takes the same", "[plogp][greedy]") {
    // Two sites of 32 ranks each: inside them the catalogue has flat, chain,
    // binary and binomial; a greedy tree of degree 6 beats them by 10% at 16 KiB.
    std::vector<std::string> sites(32, std::string("A"));
    sites.insert(sites.end(), 32, std::string("B"));
    const auto made = WideArea::make(figure2({"A", "B"}), sites);
    const auto elsewhere = WideArea::make(figure2({"A", "B"}), sites);
    REQUIRE(made.ok());
    REQUIRE(elsewhere.ok());
    std::vector<int> world(64);
    for (int r = 0; r < 64; ++r) world[static_cast<std::size_t>(r)] = r;
    for (std::size_t bytes : {std::size_t{1} << 10, std::size_t{1} << 14, std::size_t{1} << 20}) {
        const Plan& plan = (*made)->plan(world, 0, bytes, 1);
        const Candidates c = (*made)->candidates(world, 0, bytes, 1);
        INFO(bytes << " bytes: " << plan.name << " " << plan.choice.time << " us; catalogue "
                   << c.names[c.catalogue_choice.tree] << " " << c.catalogue_choice.time << " us");
        REQUIRE(c.trees.size() > c.catalogue);
        CHECK(c.catalogue_choice.tree < c.catalogue);
        CHECK(plan.choice.time <= c.catalogue_choice.time);
        CHECK(plan.choice.time >= optimum(c.trees, bytes, 1).time);
        const bool greedy = plan.choice.tree >= c.catalogue;
        CHECK(greedy == (plan.choice.time < c.catalogue_choice.time));
        CHECK((plan.name.find("greedy") != std::string::npos) == greedy);
        if (bytes == std::size_t{1} << 14) {
            CHECK(plan.name == "flat+greedy-6");
            CHECK(plan.choice.time < c.catalogue_choice.time * 0.92);
        }
        const Plan& again = (*elsewhere)->plan(world, 0, bytes, 1);
        CHECK(again.name == plan.name);
        CHECK(again.choice.segment == plan.choice.segment);
        CHECK(again.choice.time == plan.choice.time);
        CHECK(again.parent == plan.parent);
    }
}
