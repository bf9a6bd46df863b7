// Why the greedy below is exact: write best(x, k) for the smallest possible
// largest factor of x over all products of k factors. The lexicographically
// smallest non-increasing vector starts with d = best(x, k); its tail is any
// split of x/d into k-1 factors no larger than d, and the unconstrained
// best(x/d, k-1) is already <= d (the rest of an optimal split shows it), so
// the tail is found the same way, without a bound to carry.
//
// best(x, k) comes from a coin-change over the divisors of `nodes`: taking
// divisors c as coins in increasing order, fewest[x] is the fewest coins so
// far whose product is x, and best(x, k) is the coin at which fewest[x]
// first reaches k. Divisors are numbered by their prime exponents in mixed
// radix, so x/c is an index subtraction and every multiple of c is visited
// after its quotient; a pass costs the divisor count of nodes/c.
#include "mpi/dims.hpp"

#include <algorithm>
#include <cstddef>
#include <numeric>

namespace strata::mpi {

std::vector<int> dims_balance(int nodes, int count) {
    std::vector<int> out(static_cast<std::size_t>(count), 1);
    if (count == 0 || nodes == 1) return out;

    std::vector<int> primes, exps;
    int rest = nodes;
    int omega = 0;  // prime factors with multiplicity: no split needs more factors
    for (int p = 2; p <= rest / p; ++p) {
        if (rest % p != 0) continue;
        primes.push_back(p);
        exps.push_back(0);
        while (rest % p == 0) {
            rest /= p;
            ++exps.back();
            ++omega;
        }
    }
    if (rest > 1) {
        primes.push_back(rest);
        exps.push_back(1);
        ++omega;
    }

    const std::size_t np = primes.size();
    std::vector<int> stride(np);
    std::vector<int> value{1};
    for (std::size_t i = 0; i < np; ++i) {
        stride[i] = static_cast<int>(value.size());
        const std::size_t below = value.size();
        for (int a = 1; a <= exps[i]; ++a) {
            for (std::size_t j = 0; j < below; ++j) value.push_back(value[(a - 1) * below + j] * primes[i]);
        }
    }
    const int ndiv = static_cast<int>(value.size());
    std::vector<int> by_value(static_cast<std::size_t>(ndiv));
    std::iota(by_value.begin(), by_value.end(), 0);
    std::sort(by_value.begin(), by_value.end(), [&](int a, int b) { return value[a] < value[b]; });

    const int kmax = std::min(count, omega);
    const auto row = static_cast<std::size_t>(kmax + 1);
    constexpr int unreachable = 1 << 20;
    std::vector<int> fewest(static_cast<std::size_t>(ndiv), unreachable);
    fewest[0] = 0;
    std::vector<int> best(ndiv * row, 0);  // divisor indexes; 0 (the value 1) is right for x = 1
    std::vector<int> room(np), digit(np);
    for (int c : by_value) {
        if (c == 0) continue;
        for (std::size_t i = 0; i < np; ++i) {
            room[i] = exps[i] - c / stride[i] % (exps[i] + 1);
            digit[i] = 0;
        }
        for (int q = 0;;) {
            const int x = c + q;
            const int coins = fewest[q] + 1;
            if (coins < fewest[x]) {
                for (int k = coins; k <= std::min(fewest[x] - 1, kmax); ++k) best[x * row + k] = c;
                fewest[x] = coins;
            }
            std::size_t i = 0;
            for (; i < np && digit[i] == room[i]; ++i) {
                q -= digit[i] * stride[i];
                digit[i] = 0;
            }
            if (i == np) break;
            ++digit[i];
            q += stride[i];
        }
    }

    for (int x = ndiv - 1, k = count; k > 0 && x > 0; --k) {
        const int c = best[x * row + std::min(k, kmax)];
        out[static_cast<std::size_t>(count - k)] = value[c];
        x -= c;
    }
    return out;
}

DimsError dims_fill(int nodes, std::span<int> dims) {
    if (std::any_of(dims.begin(), dims.end(), [](int d) { return d < 0; })) return DimsError::negative_entry;
    long long fixed = 1;  // stays <= nodes, so the next product fits
    int zeros = 0;
    for (int d : dims) {
        if (d == 0) {
            ++zeros;
            continue;
        }
        fixed *= d;
        if (fixed > nodes) return DimsError::indivisible;
    }
    if (nodes % fixed != 0 || (zeros == 0 && fixed != nodes)) return DimsError::indivisible;
    const std::vector<int> balanced = dims_balance(static_cast<int>(nodes / fixed), zeros);
    auto next = balanced.begin();
    for (int& d : dims) {
        if (d == 0) d = *next++;
    }
    return DimsError::none;
}

}  // namespace strata::mpi
