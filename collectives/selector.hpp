// Which algorithm runs a collective: the one place that decides.
//
// The decision is data: for each collective, an ordered table of rules
// ("from this many bytes and this many processes, use that algorithm"); the
// first rule that matches and whose algorithm's restrictions hold wins. The
// environment variable STRATA_<COLLECTIVE>_ALGORITHM names an algorithm to use
// instead whenever its restrictions hold. A topology-aware layer plugs in by
// choosing here, before the flat algorithms are consulted.
//
// Every process of a communicator must choose the same algorithm, so the
// inputs are values every process knows (sizes from the signature, the
// process count, the operation) and the knob must be set alike everywhere
// (mpirun passes one environment to all processes).
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

namespace strata::coll {

enum class Collective {
    bcast, gather, gatherv, scatter, scatterv, allgather, allgatherv, alltoall, alltoallv, reduce, allreduce,
    reduce_scatter, scan,
};

enum class Algorithm {
    bcast_binomial, bcast_scatter_allgather,
    gather_binomial, gather_linear,
    gatherv_linear,
    scatter_binomial, scatter_linear,
    scatterv_linear,
    allgather_bruck, allgather_ring,
    allgatherv_bruck, allgatherv_ring,
    alltoall_bruck, alltoall_pairwise,
    alltoallv_pairwise,
    reduce_binomial, reduce_binomial_ordered, reduce_rabenseifner,
    allreduce_recursive_doubling, allreduce_rabenseifner,
    reduce_scatter_reduce_scatterv, reduce_scatter_recursive_halving, reduce_scatter_pairwise,
    scan_recursive_doubling, scan_linear,
};

// What a choice depends on. `bytes` is, per collective: bcast the message;
// gather/scatter one process's block; allgather(v) the whole gathered
// result; alltoall one block; reductions the vector (reduce_scatter the whole
// vector before scattering). Unused for the v-variants that have one algorithm.
struct Situation {
    int procs = 1;
    std::size_t bytes = 0;
    std::size_t elements = 0;  // reductions: elements in the vector
    bool commutative = true;   // reductions: whether the operation is
};

struct AlgorithmInfo {
    Algorithm id;
    Collective collective;
    const char* name;         // as STRATA_<COLLECTIVE>_ALGORITHM spells it
    const char* restriction;  // when it may run, in words
    bool (*fits)(const Situation&);
};

struct Rule {
    Collective collective;
    Algorithm algorithm;
    std::size_t min_bytes;
    int min_procs;
};

std::span<const AlgorithmInfo> algorithms_all();
const AlgorithmInfo& algorithm_info(Algorithm a);
// The default rules, per collective in order; the last rule of each collective
// names an algorithm without restrictions, so a choice always exists.
std::span<const Rule> rules_default();
const char* collective_name(Collective c);  // "bcast", "reduce_scatter", ...
const char* collective_knob(Collective c);  // "STRATA_BCAST_ALGORITHM", ...

// The choice for `s` when `forced` (an algorithm name, or empty) is asked for.
// A forced algorithm of another collective, unknown, or whose restrictions do
// not hold is ignored and the rules decide.
Algorithm algorithm_select(Collective c, const Situation& s, std::string_view forced);
// The same, with `forced` from STRATA_<COLLECTIVE>_ALGORITHM.
Algorithm algorithm_select(Collective c, const Situation& s);

}  // namespace strata::coll
