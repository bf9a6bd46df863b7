// Which algorithm runs a collective: one registry per operation, the one place
// that decides.
//
// A registry lists the operation's algorithms (name, restrictions as code and
// in words, function) and its rules ("from this many bytes and this many
// processes, use that algorithm"), and is declared beside the algorithms in
// collectives/<op>/<op>.cpp. The dispatch (collectives.cpp), the names
// STRATA_<OP>_ALGORITHM accepts, strata-info's table (which the README's
// follows) and the conformance matrix that runs every algorithm
// (tests/integration/coll) all read the registries; nothing repeats them.
//
// The first rule that matches and whose algorithm's restrictions hold wins.
// STRATA_<OP>_ALGORITHM names an algorithm to use instead whenever its
// restrictions hold. Every process of a communicator must choose the same
// algorithm, so the inputs are values every process knows: sizes from the
// signature, the process count, the operation, and the communicator's shape
// in the grid's topology (the same table everywhere); the knob must be set
// alike everywhere (mpirun passes one environment to all processes).
#pragma once

#include <array>
#include <cstddef>
#include <initializer_list>
#include <mutex>
#include <span>
#include <string_view>
#include <vector>

#include "base/knob.hpp"
#include "collectives/collective.hpp"
#include "collectives/hierarchy.hpp"

namespace strata::coll {

// What a choice depends on. `bytes` is, per operation: bcast the message;
// gather/scatter one process's block; allgather(v) the whole gathered result;
// alltoall one block; reductions the vector (reduce_scatter the whole vector
// before scattering); zero for barrier and the v-variants of the rooted ones.
struct Situation {
    int procs = 1;
    std::size_t bytes = 0;
    std::size_t elements = 0;  // reductions: elements in the vector
    bool commutative = true;   // reductions: whether the operation is
    // The slowest link inside the group: a topology level (wireup/topology.hpp,
    // 0 the wide area), or -1 when the group does not say.
    int level = -1;
    // Per shape (hierarchy.hpp): whether the communicator splits into more than
    // one cluster, and whether its clusters are runs of consecutive ranks (so a
    // reduction cluster by cluster keeps rank order).
    std::array<bool, kShapes> spans{};
    std::array<bool, kShapes> ordered{};
};

// "From `min_bytes` and `min_procs`, on a group whose slowest link is at
// `level` (-1: any), use `algorithm`."
struct Rule {
    const char* algorithm;
    std::size_t min_bytes = 0;
    int min_procs = 1;
    int level = -1;
};

// Restrictions, as code; each algorithm names one.
namespace fits {
bool any(const Situation&);
bool commutative(const Situation&);
// Commutative and at least one element per process of the power-of-two core.
bool commutative_and_long(const Situation&);
// The communicator splits by the shape (and, for a non-commutative
// reduction, its clusters keep rank order).
template <Shape S>
bool spans(const Situation& s) {
    return s.spans[static_cast<std::size_t>(S)];
}
template <Shape S>
bool spans_in_order(const Situation& s) {
    const auto i = static_cast<std::size_t>(S);
    return s.spans[i] && (s.commutative || s.ordered[i]);
}
// The communicator splits by the shape into clusters of consecutive ranks.
template <Shape S>
bool spans_ordered(const Situation& s) {
    const auto i = static_cast<std::size_t>(S);
    return s.spans[i] && s.ordered[i];
}
}  // namespace fits

// An operation's registry, whatever its algorithms' signature.
class RegistryBase {
public:
    struct Entry {
        const char* name;         // as STRATA_<OP>_ALGORITHM spells it
        const char* restriction;  // when it may run, in words
        bool (*fits)(const Situation&);
    };

    const char* operation() const { return operation_; }  // "bcast", "reduce_scatter", ...
    const char* knob() const { return knob_.name(); }     // "STRATA_BCAST_ALGORITHM", ...
    std::span<const Entry> entries() const { return entries_; }
    std::span<const Rule> rules() const { return rules_; }
    // The entry called `name`, or -1.
    int find(std::string_view name) const;

    // The choice for `s` when `forced` (an algorithm name, or empty) is asked
    // for. A forced algorithm that is unknown or whose restrictions do not
    // hold is ignored and the rules decide.
    std::size_t select(const Situation& s, std::string_view forced) const;
    // The same, with `forced` from the knob (an unknown name is reported once).
    std::size_t select(const Situation& s) const;

    // Every registry, in the order of MPI-1's list of collectives.
    static std::span<const RegistryBase* const> all();

protected:
    RegistryBase(const char* operation, const base::KnobString& knob, std::vector<Entry> entries,
                 std::initializer_list<Rule> rules);
    ~RegistryBase() = default;

private:
    const char* operation_;
    const base::KnobString& knob_;
    std::vector<Entry> entries_;
    std::vector<Rule> rules_;
    std::vector<std::size_t> rule_entry_;  // rules_[i] names entries_[rule_entry_[i]]
    mutable std::once_flag warned_;
};

// Situation of a call on `g` (its size and topology) moving `bytes`.
Situation situation_of(const Group& g, std::size_t bytes, std::size_t elements = 0, bool commutative = true);

// The restrictions of the multilevel and two-level algorithms, in words:
// what the communicator must span.
inline constexpr const char* kSpansWords[kShapes] = {
    "more than one cluster at some level",
    "more than one site",
    "more than one machine",
};
inline constexpr const char* kSpansInOrderWords[kShapes] = {
    "more than one cluster at some level; non-commutative: clusters of consecutive ranks",
    "more than one site; non-commutative: sites of consecutive ranks",
    "more than one machine; non-commutative: machines of consecutive ranks",
};
inline constexpr const char* kSpansOrderedWords[kShapes] = {
    "more than one cluster at some level, each of consecutive ranks",
    "more than one site, each of consecutive ranks",
    "more than one machine, each of consecutive ranks",
};

template <class Fn>
struct Algorithm {
    const char* name;
    const char* restriction;
    bool (*fits)(const Situation&);
    Fn* run;
};

template <class Fn>
class Registry : public RegistryBase {
public:
    Registry(const char* operation, const base::KnobString& knob, std::initializer_list<Algorithm<Fn>> algorithms,
             std::initializer_list<Rule> rules)
        : RegistryBase(operation, knob, entries_of(algorithms), rules) {
        for (const Algorithm<Fn>& a : algorithms) runs_.push_back(a.run);
    }
    // The function chosen for `s` (forced by the knob where it may be).
    Fn* choose(const Situation& s) const { return runs_[select(s)]; }
    Fn* run(std::size_t i) const { return runs_[i]; }

private:
    static std::vector<Entry> entries_of(std::initializer_list<Algorithm<Fn>> algorithms) {
        std::vector<Entry> out;
        for (const Algorithm<Fn>& a : algorithms) out.push_back({a.name, a.restriction, a.fits});
        return out;
    }
    std::vector<Fn*> runs_;
};

}  // namespace strata::coll
