#include "collectives/selector.hpp"

#include <cstdio>
#include <mutex>
#include <stdexcept>

#include "base/knob.hpp"

namespace strata::coll {

namespace {

bool any(const Situation&) { return true; }
bool commutative(const Situation& s) { return s.commutative; }
int pof2_of(int n) {
    int p = 1;
    while (p * 2 <= n) p *= 2;
    return p;
}
bool commutative_and_long(const Situation& s) {
    return s.commutative && s.elements >= static_cast<std::size_t>(pof2_of(s.procs));
}

constexpr std::size_t KiB = 1024;

const AlgorithmInfo kAlgorithms[] = {
    {Algorithm::bcast_binomial, Collective::bcast, "binomial", "none", any},
    {Algorithm::bcast_scatter_allgather, Collective::bcast, "scatter_allgather", "none", any},
    {Algorithm::gather_binomial, Collective::gather, "binomial", "none", any},
    {Algorithm::gather_linear, Collective::gather, "linear", "none", any},
    {Algorithm::gatherv_linear, Collective::gatherv, "linear", "none", any},
    {Algorithm::scatter_binomial, Collective::scatter, "binomial", "none", any},
    {Algorithm::scatter_linear, Collective::scatter, "linear", "none", any},
    {Algorithm::scatterv_linear, Collective::scatterv, "linear", "none", any},
    {Algorithm::allgather_bruck, Collective::allgather, "bruck", "none", any},
    {Algorithm::allgather_ring, Collective::allgather, "ring", "none", any},
    {Algorithm::allgatherv_bruck, Collective::allgatherv, "bruck", "none", any},
    {Algorithm::allgatherv_ring, Collective::allgatherv, "ring", "none", any},
    {Algorithm::alltoall_bruck, Collective::alltoall, "bruck", "none", any},
    {Algorithm::alltoall_pairwise, Collective::alltoall, "pairwise", "none", any},
    {Algorithm::alltoallv_pairwise, Collective::alltoallv, "pairwise", "none", any},
    {Algorithm::reduce_binomial, Collective::reduce, "binomial", "commutative operation", commutative},
    {Algorithm::reduce_binomial_ordered, Collective::reduce, "binomial_ordered", "none", any},
    {Algorithm::reduce_rabenseifner, Collective::reduce, "rabenseifner",
     "commutative operation, at least 2^floor(log2 p) elements", commutative_and_long},
    {Algorithm::allreduce_recursive_doubling, Collective::allreduce, "recursive_doubling", "none", any},
    {Algorithm::allreduce_rabenseifner, Collective::allreduce, "rabenseifner",
     "commutative operation, at least 2^floor(log2 p) elements", commutative_and_long},
    {Algorithm::reduce_scatter_reduce_scatterv, Collective::reduce_scatter, "reduce_scatterv", "none", any},
    {Algorithm::reduce_scatter_recursive_halving, Collective::reduce_scatter, "recursive_halving",
     "commutative operation", commutative},
    {Algorithm::reduce_scatter_pairwise, Collective::reduce_scatter, "pairwise", "commutative operation",
     commutative},
    {Algorithm::scan_recursive_doubling, Collective::scan, "recursive_doubling", "none", any},
    {Algorithm::scan_linear, Collective::scan, "linear", "none", any},
};

// The short/long thresholds are MPICH's defaults (bcast 12 KiB and 8
// processes, allgather 80 KiB, alltoall 256 bytes and 8 processes,
// reductions 2 KiB, reduce_scatter 512 KiB); gather and scatter go linear at
// 32 KiB blocks, where a tree's intermediate copies cost more than the root's
// extra messages. Retune here (or in a topology layer), nowhere else.
const Rule kRules[] = {
    // Long messages on enough processes: scatter + ring allgather beats the tree.
    {Collective::bcast, Algorithm::bcast_scatter_allgather, 12 * KiB, 8},
    {Collective::bcast, Algorithm::bcast_binomial, 0, 1},
    // Large blocks: no intermediate copies, the root's link is the limit anyway.
    {Collective::gather, Algorithm::gather_linear, 32 * KiB, 1},
    {Collective::gather, Algorithm::gather_binomial, 0, 1},
    {Collective::gatherv, Algorithm::gatherv_linear, 0, 1},
    {Collective::scatter, Algorithm::scatter_linear, 32 * KiB, 1},
    {Collective::scatter, Algorithm::scatter_binomial, 0, 1},
    {Collective::scatterv, Algorithm::scatterv_linear, 0, 1},
    // Result of 80 KiB and more: bandwidth-bound, nearest-neighbour ring.
    {Collective::allgather, Algorithm::allgather_ring, 80 * KiB, 1},
    {Collective::allgather, Algorithm::allgather_bruck, 0, 1},
    {Collective::allgatherv, Algorithm::allgatherv_ring, 80 * KiB, 1},
    {Collective::allgatherv, Algorithm::allgatherv_bruck, 0, 1},
    // Bruck only pays off for tiny blocks on many processes.
    {Collective::alltoall, Algorithm::alltoall_pairwise, 257, 1},
    {Collective::alltoall, Algorithm::alltoall_bruck, 0, 8},
    {Collective::alltoall, Algorithm::alltoall_pairwise, 0, 1},
    {Collective::alltoallv, Algorithm::alltoallv_pairwise, 0, 1},
    // Long vectors: halve the data per step instead of passing all of it up the tree.
    {Collective::reduce, Algorithm::reduce_rabenseifner, 2 * KiB, 1},
    {Collective::reduce, Algorithm::reduce_binomial, 0, 1},
    {Collective::reduce, Algorithm::reduce_binomial_ordered, 0, 1},
    {Collective::allreduce, Algorithm::allreduce_rabenseifner, 2 * KiB, 1},
    {Collective::allreduce, Algorithm::allreduce_recursive_doubling, 0, 1},
    // Commutative: halving below 512 KiB, then pairwise (no power-of-two fold, each piece moves once).
    {Collective::reduce_scatter, Algorithm::reduce_scatter_pairwise, 512 * KiB, 1},
    {Collective::reduce_scatter, Algorithm::reduce_scatter_recursive_halving, 0, 1},
    {Collective::reduce_scatter, Algorithm::reduce_scatter_reduce_scatterv, 0, 1},
    {Collective::scan, Algorithm::scan_recursive_doubling, 0, 1},
};

constexpr std::size_t kCollectives = static_cast<std::size_t>(Collective::scan) + 1;

const char* const kNames[kCollectives] = {
    "bcast", "gather", "gatherv", "scatter", "scatterv", "allgather", "allgatherv", "alltoall", "alltoallv",
    "reduce", "allreduce", "reduce_scatter", "scan",
};

const base::KnobString kForced[kCollectives] = {
    {"STRATA_BCAST_ALGORITHM", "", "MPI_Bcast algorithm: binomial | scatter_allgather (empty: by size)"},
    {"STRATA_GATHER_ALGORITHM", "", "MPI_Gather algorithm: binomial | linear (empty: by size)"},
    {"STRATA_GATHERV_ALGORITHM", "", "MPI_Gatherv algorithm: linear"},
    {"STRATA_SCATTER_ALGORITHM", "", "MPI_Scatter algorithm: binomial | linear (empty: by size)"},
    {"STRATA_SCATTERV_ALGORITHM", "", "MPI_Scatterv algorithm: linear"},
    {"STRATA_ALLGATHER_ALGORITHM", "", "MPI_Allgather algorithm: bruck | ring (empty: by size)"},
    {"STRATA_ALLGATHERV_ALGORITHM", "", "MPI_Allgatherv algorithm: bruck | ring (empty: by size)"},
    {"STRATA_ALLTOALL_ALGORITHM", "", "MPI_Alltoall algorithm: bruck | pairwise (empty: by size)"},
    {"STRATA_ALLTOALLV_ALGORITHM", "", "MPI_Alltoallv algorithm: pairwise"},
    {"STRATA_REDUCE_ALGORITHM", "",
     "MPI_Reduce algorithm: binomial | rabenseifner (commutative ops) | binomial_ordered (empty: by size and op)"},
    {"STRATA_ALLREDUCE_ALGORITHM", "",
     "MPI_Allreduce algorithm: recursive_doubling | rabenseifner (commutative ops) (empty: by size)"},
    {"STRATA_REDUCE_SCATTER_ALGORITHM", "",
     "MPI_Reduce_scatter algorithm: reduce_scatterv | recursive_halving | pairwise (commutative ops) (empty: by size and op)"},
    {"STRATA_SCAN_ALGORITHM", "", "MPI_Scan algorithm: recursive_doubling | linear"},
};

}  // namespace

std::span<const AlgorithmInfo> algorithms_all() { return kAlgorithms; }

const AlgorithmInfo& algorithm_info(Algorithm a) {
    for (const AlgorithmInfo& info : kAlgorithms) {
        if (info.id == a) return info;
    }
    throw std::logic_error("algorithm_info: algorithm missing from the table");
}

std::span<const Rule> rules_default() { return kRules; }

const char* collective_name(Collective c) { return kNames[static_cast<std::size_t>(c)]; }

const char* collective_knob(Collective c) { return kForced[static_cast<std::size_t>(c)].name(); }

Algorithm algorithm_select(Collective c, const Situation& s, std::string_view forced) {
    if (!forced.empty()) {
        for (const AlgorithmInfo& info : kAlgorithms) {
            if (info.collective == c && forced == info.name && info.fits(s)) return info.id;
        }
    }
    for (const Rule& rule : kRules) {
        if (rule.collective != c || s.bytes < rule.min_bytes || s.procs < rule.min_procs) continue;
        if (algorithm_info(rule.algorithm).fits(s)) return rule.algorithm;
    }
    throw std::logic_error("algorithm_select: no rule applies; the table must end each collective unrestricted");
}

Algorithm algorithm_select(Collective c, const Situation& s) {
    const base::KnobString& knob = kForced[static_cast<std::size_t>(c)];
    const std::string& forced = knob.get();
    if (!forced.empty()) {
        // A misspelt name would silently test the default instead: say so, once.
        static std::once_flag warned[kCollectives];
        bool known = false;
        for (const AlgorithmInfo& info : kAlgorithms) known = known || (info.collective == c && forced == info.name);
        if (!known) {
            std::call_once(warned[static_cast<std::size_t>(c)], [&] {
                std::fprintf(stderr, "strata: %s=%s names no %s algorithm; choosing by size instead\n", knob.name(),
                             forced.c_str(), collective_name(c));
            });
        }
    }
    return algorithm_select(c, s, forced);
}

}  // namespace strata::coll
