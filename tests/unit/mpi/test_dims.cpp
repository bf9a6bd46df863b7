// MPI_Dims_create's arithmetic: dims_balance against MPICH's own answers
// (dims_mpich.txt, written by dims_mpich.c) and against a brute force that
// applies the rule of mpi/comms/dims.hpp literally (least largest minus smallest,
// then largest smallest, then lexicographically smallest, of all
// non-increasing factorisations), dims_fill's fixed entries and errors, and
// time bounds on inputs that an exponential search cannot meet (MPI test
// suites use them).
#include <catch2/catch.hpp>

#include <chrono>
#include <climits>
#include <cstddef>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "mpi/comms/dims.hpp"

using strata::mpi::dims_balance;
using strata::mpi::dims_fill;
using strata::mpi::DimsError;

namespace {

std::vector<int> divisors_of(int n) {
    std::vector<int> small, large;
    for (int d = 1; d <= n / d; ++d) {
        if (n % d != 0) continue;
        small.push_back(d);
        if (d != n / d) large.push_back(n / d);
    }
    small.insert(small.end(), large.rbegin(), large.rend());
    return small;
}

// The rule of mpi/comms/dims.hpp, for two non-increasing splits of one number.
bool better(const std::vector<int>& a, const std::vector<int>& b) {
    const int gap_a = a.front() - a.back(), gap_b = b.front() - b.back();
    if (gap_a != gap_b) return gap_a < gap_b;
    if (a.back() != b.back()) return a.back() > b.back();
    return a < b;
}

// Every non-increasing split of `rest` into `k` factors from `divs` no larger
// than `cap`, each compared with `best`. Only branches that cannot complete
// are cut (k factors no larger than d cannot reach rest when d^k < rest).
void brute_search(const std::vector<int>& divs, long long rest, int k, int cap, std::vector<int>& cur,
                  std::vector<int>& best) {
    if (k == 0) {
        if (rest == 1 && (best.empty() || better(cur, best))) best = cur;
        return;
    }
    for (int d : divs) {
        if (d > cap) break;
        if (rest % d != 0) continue;
        long long reach = 1;
        for (int i = 0; i < k && reach < rest; ++i) reach *= d;
        if (reach < rest) continue;
        cur.push_back(d);
        brute_search(divs, rest / d, k - 1, d, cur, best);
        cur.pop_back();
    }
}

std::vector<int> brute_balance(int nodes, int count) {
    const std::vector<int> divs = divisors_of(nodes);
    std::vector<int> cur, best;
    brute_search(divs, nodes, count, nodes, cur, best);
    return best;
}

std::string show(const std::vector<int>& v) {
    std::string s;
    for (int d : v) {
        if (!s.empty()) s += 'x';
        s += std::to_string(d);
    }
    return s;
}

}  // namespace

TEST_CASE("dims_balance: small cases the MPI standard and test suites spell out") {
    CHECK(dims_balance(6, 2) == std::vector<int>{3, 2});
    CHECK(dims_balance(7, 3) == std::vector<int>{7, 1, 1});
    CHECK(dims_balance(60, 3) == std::vector<int>{5, 4, 3});
    CHECK(dims_balance(1, 3) == std::vector<int>{1, 1, 1});
    CHECK(dims_balance(1, 0).empty());
    // Where the lexicographically smallest split, 21x20x11, differs more.
    CHECK(dims_balance(4620, 3) == std::vector<int>{22, 15, 14});
    // Where 20x18x14 and 9x8x5 differ as little but have a smaller smallest.
    CHECK(dims_balance(5040, 3) == std::vector<int>{21, 16, 15});
    CHECK(dims_balance(360, 3) == std::vector<int>{10, 6, 6});
}

TEST_CASE("dims_balance gives MPICH's answer for every nnodes of its table") {
    std::ifstream table(STRATA_DIMS_MPICH);
    REQUIRE(table.good());
    std::string line;
    int rows = 0;
    while (std::getline(table, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream in(line);
        int nodes = 0, count = 0;
        in >> nodes >> count;
        std::vector<int> want(static_cast<std::size_t>(count));
        for (int& d : want) in >> d;
        REQUIRE(in);
        INFO("nnodes " << nodes << ", ndims " << count);
        CHECK(show(dims_balance(nodes, count)) == show(want));
        ++rows;
    }
    CHECK(rows == 15000);
}

TEST_CASE("dims_balance equals the brute force for every nnodes up to 1000 and 1 to 6 dims") {
    for (int nodes = 1; nodes <= 1000; ++nodes) {
        for (int count = 1; count <= 6; ++count) {
            INFO("nnodes " << nodes << ", ndims " << count);
            REQUIRE(show(dims_balance(nodes, count)) == show(brute_balance(nodes, count)));
        }
    }
}

TEST_CASE("dims_balance equals the brute force on large nnodes with 2 and 3 dims") {
    for (int nodes : {INT_MAX, 1 << 30, 223092870, 735134400, 2095133040, 1102701600, 997920000, 4620 * 4620}) {
        for (int count = 2; count <= 3; ++count) {
            INFO("nnodes " << nodes << ", ndims " << count);
            CHECK(show(dims_balance(nodes, count)) == show(brute_balance(nodes, count)));
        }
    }
}

TEST_CASE("dims_fill keeps fixed entries and balances the rest, or refuses when they do not divide") {
    const int fixed_values[] = {2, 3, 1, 5, 4};
    for (int nodes = 1; nodes <= 300; ++nodes) {
        for (int ndims = 1; ndims <= 5; ++ndims) {
            for (int mask = 1; mask < (1 << ndims); ++mask) {
                std::vector<int> dims(static_cast<std::size_t>(ndims), 0);
                long long fixed = 1;
                int zeros = 0;
                for (int i = 0; i < ndims; ++i) {
                    if (mask & (1 << i)) {
                        dims[i] = fixed_values[(nodes + i) % 5];
                        fixed *= dims[i];
                    } else {
                        ++zeros;
                    }
                }
                const std::vector<int> before = dims;
                INFO("nnodes " << nodes << ", dims " << show(before));
                const DimsError e = dims_fill(nodes, dims);
                if (nodes % fixed != 0 || (zeros == 0 && fixed != nodes)) {
                    CHECK(e == DimsError::indivisible);
                    CHECK(dims == before);
                    continue;
                }
                REQUIRE(e == DimsError::none);
                std::vector<int> filled;
                for (int i = 0; i < ndims; ++i) {
                    if (before[i] != 0) {
                        CHECK(dims[i] == before[i]);
                    } else {
                        filled.push_back(dims[i]);
                    }
                }
                CHECK(show(filled) == show(brute_balance(static_cast<int>(nodes / fixed), zeros)));
            }
        }
    }
}

TEST_CASE("dims_fill errors") {
    SECTION("a negative entry, reported before an indivisible one") {
        std::vector<int> dims{4, 0, -1};
        CHECK(dims_fill(6, dims) == DimsError::negative_entry);
        CHECK(dims == std::vector<int>{4, 0, -1});
    }
    SECTION("fixed entries that do not divide nnodes") {
        std::vector<int> dims{4, 0};
        CHECK(dims_fill(6, dims) == DimsError::indivisible);
        CHECK(dims == std::vector<int>{4, 0});
    }
    SECTION("all entries fixed: their product must be nnodes") {
        std::vector<int> dims{2, 3};
        CHECK(dims_fill(12, dims) == DimsError::indivisible);
        CHECK(dims_fill(6, dims) == DimsError::none);
        CHECK(dims == std::vector<int>{2, 3});
    }
    SECTION("no dims at all: only one node fits") {
        CHECK(dims_fill(1, {}) == DimsError::none);
        CHECK(dims_fill(2, {}) == DimsError::indivisible);
    }
    SECTION("32 fixed entries whose product overflows 64 bits") {
        std::vector<int> dims(32, 65536);
        dims[31] = 0;
        CHECK(dims_fill(INT_MAX, dims) == DimsError::indivisible);
        std::vector<int> twos(32, 2);
        twos[0] = 0;
        CHECK(dims_fill(1 << 30, twos) == DimsError::indivisible);
    }
}

TEST_CASE("dims_fill is fast on the inputs MPI test suites use, up to 32 dims with fixed entries") {
    using clock = std::chrono::steady_clock;
    const auto batch_start = clock::now();
    const int nodes_list[] = {INT_MAX, 1 << 30, 223092870, 735134400, 2095133040, 1102701600, 2 * 3 * 5 * 7 * 11 * 13,
                              1000000007, 999999000, 2147483640};
    for (int nodes : nodes_list) {
        for (int ndims = 2; ndims <= 32; ++ndims) {
            for (int pattern = 0; pattern < 3; ++pattern) {
                std::vector<int> dims(static_cast<std::size_t>(ndims), 0);
                if (pattern == 1 && nodes % 2 == 0) dims[0] = 2;
                if (pattern == 2) {
                    for (int i = 1; i < ndims; i += 3) dims[i] = 1;
                    if (nodes % 3 == 0) dims[ndims - 1] = 3;
                }
                const std::vector<int> before = dims;
                INFO("nnodes " << nodes << ", dims " << show(before));
                const auto start = clock::now();
                const DimsError e = dims_fill(nodes, dims);
                CHECK(clock::now() - start < std::chrono::seconds(1));
                REQUIRE(e == DimsError::none);
                long long product = 1;
                int last_free = INT_MAX;
                for (int i = 0; i < ndims; ++i) {
                    REQUIRE(dims[i] >= 1);
                    product *= dims[i];
                    if (before[i] != 0) {
                        CHECK(dims[i] == before[i]);
                    } else {
                        CHECK(dims[i] <= last_free);
                        last_free = dims[i];
                    }
                }
                CHECK(product == nodes);
            }
        }
    }
    CHECK(clock::now() - batch_start < std::chrono::seconds(10));
}
