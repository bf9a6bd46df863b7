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
        const Candidates gated = (*made)->candidates(world, root);
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
