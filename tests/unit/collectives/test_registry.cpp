// The collective registries: the default rules, forced choices, the rule
// that restrictions are honoured by falling back, the topology as an input,
// and that every registry is complete.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "collectives/allgather/allgather.hpp"
#include "collectives/allgatherv/allgatherv.hpp"
#include "collectives/allreduce/allreduce.hpp"
#include "collectives/alltoall/alltoall.hpp"
#include "collectives/barrier/barrier.hpp"
#include "collectives/bcast/bcast.hpp"
#include "collectives/gather/gather.hpp"
#include "collectives/reduce/reduce.hpp"
#include "collectives/reduce_scatter/reduce_scatter.hpp"
#include "collectives/scan/scan.hpp"
#include "collectives/scatter/scatter.hpp"

using namespace strata::coll;

namespace {

Situation at(int procs, std::size_t bytes, std::size_t elements = 0, bool commutative = true) {
    Situation s;
    s.procs = procs;
    s.bytes = bytes;
    s.elements = elements;
    s.commutative = commutative;
    return s;
}

// A communicator that splits by every shape; `ordered`: its clusters are runs of ranks.
Situation grid(Situation s, bool ordered = true) {
    s.spans.fill(true);
    s.ordered.fill(ordered);
    return s;
}

std::string chosen(const RegistryBase& r, const Situation& s, std::string_view forced) {
    return r.entries()[r.select(s, forced)].name;
}

}  // namespace

TEST_CASE("the default table", "[registry]") {
    CHECK(chosen(bcast_algorithms, at(8, 100), "") == "binomial");
    CHECK(chosen(bcast_algorithms, at(8, 12 * 1024), "") == "scatter_allgather");
    CHECK(chosen(bcast_algorithms, at(4, 1 << 20), "") == "binomial");
    CHECK(chosen(gather_algorithms, at(4, 100), "") == "binomial");
    CHECK(chosen(gather_algorithms, at(4, 1 << 20), "") == "linear");
    CHECK(chosen(scatter_algorithms, at(4, 100), "") == "binomial");
    CHECK(chosen(scatter_algorithms, at(4, 1 << 20), "") == "linear");
    CHECK(chosen(allgather_algorithms, at(8, 1000), "") == "bruck");
    CHECK(chosen(allgather_algorithms, at(8, 80 * 1024), "") == "ring");
    CHECK(chosen(allgatherv_algorithms, at(8, 1000), "") == "bruck");
    CHECK(chosen(allgatherv_algorithms, at(8, 80 * 1024), "") == "ring");
    CHECK(chosen(alltoall_algorithms, at(8, 256), "") == "bruck");
    CHECK(chosen(alltoall_algorithms, at(7, 256), "") == "pairwise");
    CHECK(chosen(alltoall_algorithms, at(8, 257), "") == "pairwise");
    CHECK(chosen(reduce_algorithms, at(4, 8, 2, true), "") == "binomial");
    CHECK(chosen(reduce_algorithms, at(4, 8, 2, false), "") == "binomial_ordered");
    CHECK(chosen(reduce_algorithms, at(8, 4096, 1024, true), "") == "rabenseifner");
    CHECK(chosen(reduce_algorithms, at(8, 4096, 1024, false), "") == "binomial_ordered");
    CHECK(chosen(reduce_algorithms, at(8, 4096, 4, true), "") == "binomial");
    CHECK(chosen(allreduce_algorithms, at(8, 1024, 256), "") == "recursive_doubling");
    CHECK(chosen(allreduce_algorithms, at(8, 4096, 1024), "") == "rabenseifner");
    CHECK(chosen(allreduce_algorithms, at(8, 4096, 1024, false), "") == "recursive_doubling");
    CHECK(chosen(reduce_scatter_algorithms, at(4, 1 << 20, 1 << 18), "") == "pairwise");
    CHECK(chosen(reduce_scatter_algorithms, at(4, 1 << 20, 1 << 18, false), "") == "reduce_scatterv");
    CHECK(chosen(reduce_scatter_algorithms, at(4, 64, 16), "") == "recursive_halving");
    CHECK(chosen(reduce_scatter_algorithms, at(4, 64, 16, false), "") == "reduce_scatterv");
    CHECK(chosen(scan_algorithms, at(4, 64, 16, false), "") == "recursive_doubling");
}

TEST_CASE("a forced algorithm is used when its restrictions hold", "[registry]") {
    CHECK(chosen(bcast_algorithms, at(2, 10), "scatter_allgather") == "scatter_allgather");
    CHECK(chosen(bcast_algorithms, at(16, 1 << 20), "binomial") == "binomial");
    CHECK(chosen(gather_algorithms, at(3, 1 << 20), "binomial") == "binomial");
    CHECK(chosen(alltoall_algorithms, at(3, 1 << 20), "bruck") == "bruck");
    CHECK(chosen(scan_algorithms, at(3, 4, 1), "linear") == "linear");
    CHECK(chosen(reduce_algorithms, at(3, 4, 1, true), "binomial_ordered") == "binomial_ordered");
}

TEST_CASE("restrictions send the choice back to the table", "[registry]") {
    // Non-commutative operations never reach the algorithms that reorder.
    CHECK(chosen(reduce_algorithms, at(4, 8, 2, false), "binomial") == "binomial_ordered");
    CHECK(chosen(allreduce_algorithms, at(4, 1 << 20, 1 << 18, false), "rabenseifner") == "recursive_doubling");
    CHECK(chosen(reduce_scatter_algorithms, at(4, 1 << 20, 1 << 18, false), "pairwise") == "reduce_scatterv");
    // Rabenseifner needs a piece per process of the power-of-two core.
    CHECK(chosen(allreduce_algorithms, at(7, 12, 3), "rabenseifner") == "recursive_doubling");
    CHECK(chosen(allreduce_algorithms, at(7, 16, 4), "rabenseifner") == "rabenseifner");
}

TEST_CASE("unknown or foreign names are ignored", "[registry]") {
    CHECK(chosen(bcast_algorithms, at(2, 10), "ring") == "binomial");
    CHECK(chosen(bcast_algorithms, at(2, 10), "no_such_thing") == "binomial");
    CHECK(chosen(allgather_algorithms, at(2, 10), "pairwise") == "bruck");
}

TEST_CASE("the topology decides between multilevel and flat", "[registry]") {
    // One cluster: the flat rules; more than one: multilevel.
    CHECK(chosen(bcast_algorithms, at(8, 100), "") == "binomial");
    CHECK(chosen(bcast_algorithms, grid(at(8, 100)), "") == "multilevel");
    CHECK(chosen(barrier_algorithms, at(8, 0), "") == "dissemination");
    CHECK(chosen(barrier_algorithms, grid(at(8, 0)), "") == "multilevel");
    // A non-commutative reduction goes multilevel only where clusters keep rank order.
    CHECK(chosen(reduce_algorithms, grid(at(8, 8, 2, false), true), "") == "multilevel");
    CHECK(chosen(reduce_algorithms, grid(at(8, 8, 2, false), false), "") == "binomial_ordered");
    CHECK(chosen(allreduce_algorithms, grid(at(8, 8, 2, false), false), "") == "recursive_doubling");
    CHECK(chosen(allreduce_algorithms, grid(at(8, 8, 2, true), false), "") == "multilevel");
    // The two-level shapes are for experiments: forced, and only where they split.
    CHECK(chosen(bcast_algorithms, grid(at(8, 100)), "two_level_site") == "two_level_site");
    Situation machines_only = at(8, 100);
    machines_only.spans[static_cast<int>(Shape::multilevel)] = true;
    machines_only.spans[static_cast<int>(Shape::machine)] = true;
    CHECK(chosen(bcast_algorithms, machines_only, "two_level_site") == "multilevel");
    CHECK(chosen(bcast_algorithms, machines_only, "two_level_machine") == "two_level_machine");
    // Forcing a flat algorithm on a grid runs it flat.
    CHECK(chosen(gather_algorithms, grid(at(8, 100)), "linear") == "linear");
}

TEST_CASE("a rule may be limited to one link level", "[registry]") {
    const strata::base::KnobString knob{"STRATA_TEST_REGISTRY_ALGORITHM", "", "test"};
    const Registry<BarrierFn> r{
        "test",
        knob,
        {{"wide", "none", fits::any, barrier_dissemination}, {"near", "none", fits::any, barrier_dissemination}},
        {},
        {{"wide", 0, 1, 0}, {"near"}}};
    Situation s = at(4, 0);
    s.level = 0;
    CHECK(chosen(r, s, "") == "wide");
    s.level = 2;
    CHECK(chosen(r, s, "") == "near");
    s.level = -1;
    CHECK(chosen(r, s, "") == "near");
}

TEST_CASE("every registry is complete and consistent", "[registry]") {
    std::set<std::string> operations;
    for (const RegistryBase* r : RegistryBase::all()) {
        CHECK(operations.insert(r->operation()).second);
        CHECK(std::string(r->knob()) == "STRATA_" + [&] {
            std::string up = r->operation();
            for (char& c : up) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
            return up;
        }() + "_ALGORITHM");
        std::set<std::string> names;
        for (const RegistryBase::Entry& e : r->entries()) CHECK(names.insert(e.name).second);
        // Some algorithm is chosen for every situation, including the least
        // favourable one (non-commutative, one element, many processes).
        REQUIRE(!r->rules().empty());
        const Rule& last = r->rules().back();
        CHECK(last.min_bytes == 0);
        CHECK(last.min_procs <= 1);
        CHECK(last.level < 0);
        CHECK(r->entries()[static_cast<std::size_t>(r->find(last.algorithm))].fits(at(1000, 1, 1, false)));
        for (int p : {1, 2, 3, 7, 8, 64}) {
            for (std::size_t b : {std::size_t{0}, std::size_t{1}, std::size_t{1} << 30}) {
                for (bool comm : {true, false}) {
                    for (bool spans : {false, true}) {
                        const Situation s = spans ? grid(at(p, b, b, comm), false) : at(p, b, b, comm);
                        CHECK(r->entries()[r->select(s, "")].fits(s));
                    }
                }
            }
        }
    }
    CHECK(operations.size() == 14);
}

TEST_CASE("rules from a file replace the built-in ones of the operations it names", "[registry]") {
    const std::string builtin = RegistryBase::rules_text();
    // The built-in rules, written out, read back the same.
    REQUIRE(RegistryBase::rules_parse(builtin, "builtin").ok());
    CHECK(RegistryBase::rules_text() == builtin);

    REQUIRE(RegistryBase::rules_parse("# a site's tuning\n"
                                      "bcast scatter_allgather min_bytes=64K min_procs=4   # long messages\n"
                                      "\n"
                                      "bcast binomial\n",
                                      "rules.txt")
                .ok());
    CHECK(chosen(bcast_algorithms, at(4, 64 * 1024), "") == "scatter_allgather");
    CHECK(chosen(bcast_algorithms, at(4, 64 * 1024 - 1), "") == "binomial");
    CHECK(chosen(bcast_algorithms, grid(at(8, 100)), "") == "binomial");  // the file has no multilevel rule
    CHECK(chosen(gather_algorithms, grid(at(8, 100)), "") == "multilevel");  // untouched

    // max_procs bounds a rule from above.
    REQUIRE(RegistryBase::rules_parse("bcast linear max_procs=4\nbcast binomial\n", "rules.txt").ok());
    CHECK(chosen(bcast_algorithms, at(4, 100), "") == "linear");
    CHECK(chosen(bcast_algorithms, at(5, 100), "") == "binomial");

    // Errors name the file and line, and change nothing.
    const std::string now = RegistryBase::rules_text();
    const auto rejected = [&](const std::string& text, const std::string& want) {
        const strata::base::Status parsed = RegistryBase::rules_parse(text, "rules.txt");
        CHECK_FALSE(parsed.ok());
        CHECK(parsed.error() == want);
        CHECK(RegistryBase::rules_text() == now);
    };
    rejected("bcats binomial\n", "rules.txt:1: unknown operation 'bcats'");
    rejected("bcast\n", "rules.txt:1: no algorithm after 'bcast'");
    rejected("bcast ring\n", "rules.txt:1: 'ring' is no algorithm of bcast (strata-info lists them)");
    rejected("bcast binomial min_bytes=lots\n",
             "rules.txt:1: 'min_bytes=lots': min_bytes takes a size (123, 64K, 8M)");
    rejected("bcast binomial min_procs=0\n", "rules.txt:1: 'min_procs=0': min_procs takes a process count from 1");
    rejected("bcast binomial level=9\n", "rules.txt:1: 'level=9': level takes a kind of topology level, 0 to 6");
    rejected("bcast binomial max_procs=0\n", "rules.txt:1: 'max_procs=0': max_procs takes a process count from 1");
    rejected("bcast binomial fast\n",
             "rules.txt:1: 'fast' is not min_bytes=SIZE, min_procs=N, max_procs=N or level=L");
    rejected("gather linear\nbcast binomial min_procs=2\n",
             "rules.txt:2: the last rule of bcast must name an algorithm that always fits, without thresholds "
             "(binomial, linear, scatter_allgather)");
    rejected("bcast binomial max_procs=4\n",
             "rules.txt:1: the last rule of bcast must name an algorithm that always fits, without thresholds "
             "(binomial, linear, scatter_allgather)");
    rejected("reduce binomial\n",
             "rules.txt:1: the last rule of reduce must name an algorithm that always fits, without thresholds "
             "(binomial_ordered)");

    REQUIRE(RegistryBase::rules_parse(builtin, "builtin").ok());
    CHECK(RegistryBase::rules_text() == builtin);
}
