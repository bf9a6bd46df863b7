// The rule (mpi/comms/dims.hpp): the least difference between the largest and
// the smallest factor, then the largest smallest factor, then the
// lexicographically smallest. Every search below is over the divisors of
// nodes (at most 1600 for an int), never over the splits themselves.
#include "mpi/comms/dims.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numeric>

namespace strata::mpi {

namespace {

// The divisors of n, numbered by their prime exponents in mixed radix: the
// divisor with exponents (a0, a1, ...) is index a0 + a1 * stride[1] + ...,
// so dividing by a divisor is subtracting its index.
struct Divisors {
    std::vector<int> primes, exps, stride;
    std::vector<int> value;     // by index; value[0] == 1, value.back() == n
    std::vector<int> by_value;  // indexes in increasing order of value
    int omega = 0;              // prime factors of n with multiplicity

    explicit Divisors(int n) {
        int rest = n;
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
        value.push_back(1);
        for (std::size_t i = 0; i < primes.size(); ++i) {
            stride.push_back(static_cast<int>(value.size()));
            const std::size_t below = value.size();
            for (int a = 1; a <= exps[i]; ++a) {
                for (std::size_t j = 0; j < below; ++j) value.push_back(value[(a - 1) * below + j] * primes[i]);
            }
        }
        by_value.resize(value.size());
        std::iota(by_value.begin(), by_value.end(), 0);
        std::sort(by_value.begin(), by_value.end(), [&](int a, int b) { return value[a] < value[b]; });
    }

    int count() const { return static_cast<int>(value.size()); }

    // Calls f(q, c + q) for every divisor q of n / value[c] (by index), each
    // q after every divisor of it: a pass of coin c over a table sees the
    // entries this same pass has already extended by c.
    template <class F>
    void multiples(int c, F f) const {
        const std::size_t np = primes.size();
        std::vector<int> room(np), digit(np, 0);
        for (std::size_t i = 0; i < np; ++i) room[i] = exps[i] - c / stride[i] % (exps[i] + 1);
        for (int q = 0;;) {
            f(q, c + q);
            std::size_t i = 0;
            for (; i < np && digit[i] == room[i]; ++i) {
                q -= digit[i] * stride[i];
                digit[i] = 0;
            }
            if (i == np) return;
            ++digit[i];
            q += stride[i];
        }
    }
};

// More factors than n has primes: some are 1, so the smallest is 1 and the
// largest is as small as it can be, best(n, count); then the rest is the
// lexicographically smallest. best(x, k) comes from a coin-change over the
// divisors taken in increasing order: fewest[x] is the fewest coins so far
// whose product is x, and best(x, k) is the coin at which fewest[x] first
// reaches k (padding with ones makes any larger count reachable too).
std::vector<int> balance_with_ones(const Divisors& dv, int count) {
    const int ndiv = dv.count();
    const int kmax = std::min(count, dv.omega);
    const auto row = static_cast<std::size_t>(kmax + 1);
    constexpr int unreachable = 1 << 20;
    std::vector<int> fewest(static_cast<std::size_t>(ndiv), unreachable);
    fewest[0] = 0;
    std::vector<int> best(static_cast<std::size_t>(ndiv) * row, 0);  // 0 (the value 1) is right for x = 1
    for (int c : dv.by_value) {
        if (c == 0) continue;
        dv.multiples(c, [&](int q, int x) {
            const int coins = fewest[q] + 1;
            if (coins >= fewest[x]) return;
            for (int k = coins; k <= std::min(fewest[x] - 1, kmax); ++k) best[x * row + k] = c;
            fewest[x] = coins;
        });
    }
    std::vector<int> out(static_cast<std::size_t>(count), 1);
    for (int x = ndiv - 1, k = count; k > 0 && x > 0; --k) {
        const int c = best[x * row + std::min(k, kmax)];
        out[static_cast<std::size_t>(count - k)] = dv.value[c];
        x -= c;
    }
    return out;
}

// Whether m^k <= n.
bool power_within(long long m, int k, long long n) {
    long long p = 1;
    for (int i = 0; i < k; ++i) {
        p *= m;
        if (p > n) return false;
    }
    return true;
}

// At most as many factors as n has primes: none is 1 in the best split (a
// 1 beside a composite factor a*b is beaten by a, b). For each candidate
// smallest factor m, largest first, reach[x] holds the counts j for which
// x is a product of j coins from m up to the current one; the coin at which
// n first becomes a product of `count` coins is the least largest factor M
// with smallest m. The best (m, M) is then split again, keeping for every
// (x, j) the coin at which j became reachable: that is the least largest
// factor of x in j factors of at least m, and taking it at every step gives
// the lexicographically smallest split (the tail of any split of x fits
// under its first factor, so the tail's own least largest factor does).
std::vector<int> balance_without_ones(const Divisors& dv, int count) {
    const int ndiv = dv.count();
    const int whole = ndiv - 1;
    const long long n = dv.value[static_cast<std::size_t>(whole)];
    const std::uint32_t mask = (2u << count) - 1;  // counts 0..count; count <= omega <= 30
    std::vector<std::uint32_t> reach(static_cast<std::size_t>(ndiv));
    long long best_gap = std::numeric_limits<long long>::max();
    std::size_t best_from = 0, best_to = 0;  // positions in by_value of m and M
    // The largest factor is at least the least divisor whose count-th power
    // reaches n, so once a smaller factor m is that far below it no smaller
    // one can do better.
    long long least_largest = n;
    for (int c : dv.by_value) {
        if (!power_within(dv.value[static_cast<std::size_t>(c)], count, n - 1)) {
            least_largest = dv.value[static_cast<std::size_t>(c)];
            break;
        }
    }
    for (std::size_t from = dv.by_value.size(); from-- > 1 && best_gap > 0;) {
        const long long m = dv.value[static_cast<std::size_t>(dv.by_value[from])];
        if (!power_within(m, count, n)) continue;
        if (least_largest - m >= best_gap) break;
        std::fill(reach.begin(), reach.end(), 0u);
        reach[0] = 1;
        for (std::size_t to = from; to < dv.by_value.size(); ++to) {
            const int c = dv.by_value[to];
            if (dv.value[static_cast<std::size_t>(c)] - m >= best_gap) break;
            dv.multiples(c, [&](int q, int x) { reach[x] |= (reach[q] << 1) & mask; });
            if ((reach[whole] >> count & 1u) != 0) {
                best_gap = dv.value[static_cast<std::size_t>(c)] - m;
                best_from = from;
                best_to = to;
                break;
            }
        }
    }
    const auto row = static_cast<std::size_t>(count + 1);
    std::vector<int> first(static_cast<std::size_t>(ndiv) * row, -1);
    std::fill(reach.begin(), reach.end(), 0u);
    reach[0] = 1;
    for (std::size_t to = best_from; to <= best_to; ++to) {
        const int c = dv.by_value[to];
        dv.multiples(c, [&](int q, int x) {
            std::uint32_t added = ((reach[q] << 1) & mask) & ~reach[x];
            reach[x] |= added;
            for (std::size_t j = 0; added != 0; ++j, added >>= 1) {
                if ((added & 1u) != 0) first[static_cast<std::size_t>(x) * row + j] = c;
            }
        });
    }
    std::vector<int> out(static_cast<std::size_t>(count));
    for (int x = whole, k = count; k > 0; --k) {
        const int c = first[static_cast<std::size_t>(x) * row + static_cast<std::size_t>(k)];
        out[static_cast<std::size_t>(count - k)] = dv.value[static_cast<std::size_t>(c)];
        x -= c;
    }
    return out;
}

}  // namespace

std::vector<int> dims_balance(int nodes, int count) {
    if (count == 0 || nodes == 1) return std::vector<int>(static_cast<std::size_t>(count), 1);
    const Divisors dv(nodes);
    return count > dv.omega ? balance_with_ones(dv, count) : balance_without_ones(dv, count);
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
