// The algorithm selector: the default table, forced choices, and the rule
// that restrictions are honoured by falling back in the selector.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "collectives/selector.hpp"

using namespace strata::coll;

namespace {

Situation at(int procs, std::size_t bytes, std::size_t elements = 0, bool commutative = true) {
    return Situation{procs, bytes, elements, commutative};
}

const Collective kAll[] = {Collective::bcast,     Collective::gather,     Collective::gatherv,
                           Collective::scatter,   Collective::scatterv,   Collective::allgather,
                           Collective::allgatherv, Collective::alltoall,  Collective::alltoallv,
                           Collective::reduce,    Collective::allreduce,  Collective::reduce_scatter,
                           Collective::scan};

}  // namespace

TEST_CASE("the default table", "[selector]") {
    CHECK(algorithm_select(Collective::bcast, at(8, 100), "") == Algorithm::bcast_binomial);
    CHECK(algorithm_select(Collective::bcast, at(8, 12 * 1024), "") == Algorithm::bcast_scatter_allgather);
    CHECK(algorithm_select(Collective::bcast, at(4, 1 << 20), "") == Algorithm::bcast_binomial);
    CHECK(algorithm_select(Collective::gather, at(4, 100), "") == Algorithm::gather_binomial);
    CHECK(algorithm_select(Collective::gather, at(4, 1 << 20), "") == Algorithm::gather_linear);
    CHECK(algorithm_select(Collective::scatter, at(4, 100), "") == Algorithm::scatter_binomial);
    CHECK(algorithm_select(Collective::scatter, at(4, 1 << 20), "") == Algorithm::scatter_linear);
    CHECK(algorithm_select(Collective::allgather, at(8, 1000), "") == Algorithm::allgather_bruck);
    CHECK(algorithm_select(Collective::allgather, at(8, 80 * 1024), "") == Algorithm::allgather_ring);
    CHECK(algorithm_select(Collective::allgatherv, at(8, 1000), "") == Algorithm::allgatherv_bruck);
    CHECK(algorithm_select(Collective::allgatherv, at(8, 80 * 1024), "") == Algorithm::allgatherv_ring);
    CHECK(algorithm_select(Collective::alltoall, at(8, 256), "") == Algorithm::alltoall_bruck);
    CHECK(algorithm_select(Collective::alltoall, at(7, 256), "") == Algorithm::alltoall_pairwise);
    CHECK(algorithm_select(Collective::alltoall, at(8, 257), "") == Algorithm::alltoall_pairwise);
    CHECK(algorithm_select(Collective::reduce, at(4, 8, 2, true), "") == Algorithm::reduce_binomial);
    CHECK(algorithm_select(Collective::reduce, at(4, 8, 2, false), "") == Algorithm::reduce_binomial_ordered);
    CHECK(algorithm_select(Collective::reduce, at(8, 4096, 1024, true), "") == Algorithm::reduce_rabenseifner);
    CHECK(algorithm_select(Collective::reduce, at(8, 4096, 1024, false), "") == Algorithm::reduce_binomial_ordered);
    CHECK(algorithm_select(Collective::reduce, at(8, 4096, 4, true), "") == Algorithm::reduce_binomial);
    CHECK(algorithm_select(Collective::allreduce, at(8, 1024, 256), "") == Algorithm::allreduce_recursive_doubling);
    CHECK(algorithm_select(Collective::allreduce, at(8, 4096, 1024), "") == Algorithm::allreduce_rabenseifner);
    CHECK(algorithm_select(Collective::allreduce, at(8, 4096, 1024, false), "") ==
          Algorithm::allreduce_recursive_doubling);
    CHECK(algorithm_select(Collective::reduce_scatter, at(4, 1 << 20, 1 << 18), "") ==
          Algorithm::reduce_scatter_pairwise);
    CHECK(algorithm_select(Collective::reduce_scatter, at(4, 1 << 20, 1 << 18, false), "") ==
          Algorithm::reduce_scatter_reduce_scatterv);
    CHECK(algorithm_select(Collective::reduce_scatter, at(4, 64, 16), "") ==
          Algorithm::reduce_scatter_recursive_halving);
    CHECK(algorithm_select(Collective::reduce_scatter, at(4, 64, 16, false), "") ==
          Algorithm::reduce_scatter_reduce_scatterv);
    CHECK(algorithm_select(Collective::scan, at(4, 64, 16, false), "") == Algorithm::scan_recursive_doubling);
}

TEST_CASE("a forced algorithm is used when its restrictions hold", "[selector]") {
    CHECK(algorithm_select(Collective::bcast, at(2, 10), "scatter_allgather") == Algorithm::bcast_scatter_allgather);
    CHECK(algorithm_select(Collective::bcast, at(16, 1 << 20), "binomial") == Algorithm::bcast_binomial);
    CHECK(algorithm_select(Collective::gather, at(3, 1 << 20), "binomial") == Algorithm::gather_binomial);
    CHECK(algorithm_select(Collective::alltoall, at(3, 1 << 20), "bruck") == Algorithm::alltoall_bruck);
    CHECK(algorithm_select(Collective::scan, at(3, 4, 1), "linear") == Algorithm::scan_linear);
    CHECK(algorithm_select(Collective::reduce, at(3, 4, 1, true), "binomial_ordered") ==
          Algorithm::reduce_binomial_ordered);
}

TEST_CASE("restrictions send the choice back to the table", "[selector]") {
    // Non-commutative operations never reach the algorithms that reorder.
    CHECK(algorithm_select(Collective::reduce, at(4, 8, 2, false), "binomial") ==
          Algorithm::reduce_binomial_ordered);
    CHECK(algorithm_select(Collective::allreduce, at(4, 1 << 20, 1 << 18, false), "rabenseifner") ==
          Algorithm::allreduce_recursive_doubling);
    CHECK(algorithm_select(Collective::reduce_scatter, at(4, 1 << 20, 1 << 18, false), "pairwise") ==
          Algorithm::reduce_scatter_reduce_scatterv);
    // Rabenseifner needs a piece per process of the power-of-two core.
    CHECK(algorithm_select(Collective::allreduce, at(7, 12, 3), "rabenseifner") ==
          Algorithm::allreduce_recursive_doubling);
    CHECK(algorithm_select(Collective::allreduce, at(7, 16, 4), "rabenseifner") == Algorithm::allreduce_rabenseifner);
}

TEST_CASE("unknown or foreign names are ignored", "[selector]") {
    CHECK(algorithm_select(Collective::bcast, at(2, 10), "ring") == Algorithm::bcast_binomial);
    CHECK(algorithm_select(Collective::bcast, at(2, 10), "no_such_thing") == Algorithm::bcast_binomial);
    CHECK(algorithm_select(Collective::allgather, at(2, 10), "pairwise") == Algorithm::allgather_bruck);
}

TEST_CASE("the tables are complete and consistent", "[selector]") {
    std::set<std::string> seen;
    for (const AlgorithmInfo& info : algorithms_all()) {
        // Names are unique within a collective, and the enum maps back to its entry.
        CHECK(seen.insert(std::string(collective_name(info.collective)) + "/" + info.name).second);
        CHECK(&algorithm_info(info.id) == &info);
    }
    for (const Rule& r : rules_default()) CHECK(algorithm_info(r.algorithm).collective == r.collective);
    for (Collective c : kAll) {
        // Some algorithm is chosen for every situation, including the
        // least favourable one (non-commutative, one element, many processes).
        const Rule* last = nullptr;
        for (const Rule& r : rules_default()) {
            if (r.collective == c) last = &r;
        }
        REQUIRE(last != nullptr);
        CHECK(last->min_bytes == 0);
        CHECK(last->min_procs <= 1);
        CHECK(algorithm_info(last->algorithm).fits(at(1000, 1, 1, false)));
        for (int p : {1, 2, 3, 7, 8, 64}) {
            for (std::size_t b : {std::size_t{0}, std::size_t{1}, std::size_t{1} << 30}) {
                for (bool comm : {true, false}) {
                    const Algorithm a = algorithm_select(c, at(p, b, b, comm), "");
                    CHECK(algorithm_info(a).collective == c);
                    CHECK(algorithm_info(a).fits(at(p, b, b, comm)));
                }
            }
        }
    }
}
