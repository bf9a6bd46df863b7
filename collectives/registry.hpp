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
// The first rule that matches and whose algorithm's restrictions hold wins;
// STRATA_COLL_RULES's file may replace an operation's rules at MPI_Init.
// STRATA_<OP>_ALGORITHM names an algorithm to use instead whenever its
// restrictions hold. Every process of a communicator must choose the same
// algorithm, so the inputs are values every process knows: sizes from the
// signature, the process count, the operation, and the communicator's shape
// in the grid's topology (the same table everywhere); the knob must be set
// alike everywhere (mpirun passes one environment to all processes).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/knob.hpp"
#include "base/result.hpp"
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
    // The slowest link inside the group: the kind of its topology level
    // (wireup::Level: 0 the wide area, ... 3 vendor, 4 node), or -1 when the
    // group does not say.
    int level = -1;
    // Per shape (hierarchy.hpp): whether the communicator splits into more than
    // one cluster, and whether its clusters are runs of consecutive ranks (so a
    // reduction cluster by cluster keeps rank order).
    std::array<bool, kShapes> spans{};
    std::array<bool, kShapes> ordered{};
    // Whether the job's wide-area model (STRATA_PLOGP) has the links of every
    // two members of a group whose slowest link is a wide-area or a
    // local-area one (it spans sites, or the machines of one site).
    bool modelled = false;
};

inline constexpr std::size_t KiB = 1024;  // for the rules' sizes

// "From `min_bytes` and `min_procs` up to `max_procs` (0: no limit), on a
// group whose slowest link is of level kind `level` (-1: any), use `algorithm`."
struct Rule {
    const char* algorithm;
    std::size_t min_bytes = 0;
    int min_procs = 1;
    int level = -1;
    int max_procs = 0;
};

// Restrictions, as code; each algorithm names one.
namespace fits {
bool any(const Situation&);
bool commutative(const Situation&);
// Commutative and at least one element per process of the power-of-two core.
bool commutative_and_long(const Situation&);
// The group spans sites, and the job's wide-area model (STRATA_PLOGP) has its links.
bool modelled(const Situation&);
bool modelled_and_commutative(const Situation&);
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
    // hold is ignored and the rules decide. (The rules always decide:
    // rules_check makes sure of it.)
    std::size_t select(const Situation& s, std::string_view forced) const;
    // The same, with `forced` from the knob (an unknown name is reported once):
    // the choice of a call, which this process counts.
    std::size_t select(const Situation& s) const;

    // How many of this process's calls chose entry `i`, and how many asked
    // the knob's algorithm where its restrictions did not hold (the rules
    // chose instead).
    std::uint64_t chosen(std::size_t i) const { return chosen_[i]; }
    std::uint64_t forced_unfit() const { return forced_unfit_; }
    // Every operation this process called, with the count of each algorithm
    // it chose, one line per operation ("bcast: binomial 12, linear 1"), and
    // the knob's calls that fell back ("; STRATA_BCAST_ALGORITHM=segmented
    // did not fit 3 calls"); STRATA_STATS prints them at MPI_Finalize.
    static std::vector<std::string> choices_text();

    // Every registry, in the order of MPI-1's list of collectives.
    static std::span<const RegistryBase* const> all();

    // Replaces the rules of the operations that STRATA_COLL_RULES's file
    // names (rules_parse); the others keep theirs. Called once by MPI_Init,
    // before any collective; fails with the file, line and what is wrong.
    static base::Status rules_configure();
    // Parses a rules file's text: one rule per line, "OPERATION ALGORITHM
    // [min_bytes=SIZE] [min_procs=N] [max_procs=N] [level=L]" (SIZE takes K, M, G; L a
    // kind of topology level 0..6), '#' to the end of a line a comment. Each
    // operation's rules are its lines in order; its last must name an
    // algorithm without restrictions and have no thresholds, so a choice always
    // exists. `where` prefixes errors ("file:line: ..."). All or nothing: a
    // failure changes no operation's rules.
    static base::Status rules_parse(const std::string& text, const std::string& where);
    // Every operation's rules in that format (strata-info --rules: a file to start from).
    static std::string rules_text();

protected:
    RegistryBase(const char* operation, const base::KnobString& knob, std::vector<Entry> entries,
                 std::initializer_list<Rule> rules);
    ~RegistryBase() = default;

private:
    // The entries that `rules` name, when they all name algorithms of this
    // operation and the last always applies; else what is wrong.
    base::Result<std::vector<std::size_t>> rules_check(const std::vector<Rule>& rules) const;
    // Installs `rules` once rules_check accepts them.
    base::Status rules_set(std::vector<Rule> rules) const;

    const char* operation_;
    const base::KnobString& knob_;
    std::vector<Entry> entries_;
    // Built-in, or replaced once by rules_configure before any collective runs.
    mutable std::vector<Rule> rules_;
    mutable std::vector<std::size_t> rule_entry_;  // rules_[i] names entries_[rule_entry_[i]]
    mutable std::once_flag warned_;
    mutable std::vector<std::uint64_t> chosen_;  // per entry, this process's calls
    mutable std::uint64_t forced_unfit_ = 0;
};

// Situation of a call on `g` (its size and topology) moving `bytes`.
Situation situation_of(const Group& g, std::size_t bytes, std::size_t elements = 0, bool commutative = true);

template <class Fn>
struct Algorithm {
    const char* name;
    const char* restriction;
    bool (*fits)(const Situation&);
    Fn* run;
};

// What a multilevel algorithm needs of the clusters' rank order: nothing;
// consecutive ranks for a non-commutative operation (a reduction cluster by
// cluster keeps rank order then); consecutive ranks always (scan).
enum class Order { any, for_noncommutative, always };

// Whether the communicator splits by `shape`, with the order `o` asks for.
template <Order O>
bool spans(Shape shape, const Situation& s) {
    const auto i = static_cast<std::size_t>(shape);
    const bool in_order = O == Order::any || (O == Order::for_noncommutative && s.commutative) || s.ordered[i];
    return s.spans[i] && in_order;
}
// The same restriction in words.
const char* spans_words(Shape shape, Order o);

// An operation's multilevel algorithm `F` (its Fn with the shape after the
// group), bound to one shape.
template <auto F, Shape S, class Fn>
struct Shaped;
template <auto F, Shape S, class... A>
struct Shaped<F, S, adi::Error(const Group&, A...)> {
    static adi::Error run(const Group& g, A... a) { return F(g, S, a...); }
};

// The registry entries of multilevel algorithm `F`: "multilevel" (every
// level), and MagPIe's "two_level_site" and "two_level_machine".
template <class Fn, auto F, Order O = Order::any>
std::vector<Algorithm<Fn>> levels() {
    const auto entry = [](const char* name, Shape shape, bool (*fits)(const Situation&), Fn* run) {
        return Algorithm<Fn>{name, spans_words(shape, O), fits, run};
    };
    return {
        entry(
            "multilevel", Shape::multilevel, [](const Situation& s) { return spans<O>(Shape::multilevel, s); },
            &Shaped<F, Shape::multilevel, Fn>::run),
        entry(
            "two_level_site", Shape::site, [](const Situation& s) { return spans<O>(Shape::site, s); },
            &Shaped<F, Shape::site, Fn>::run),
        entry(
            "two_level_machine", Shape::machine, [](const Situation& s) { return spans<O>(Shape::machine, s); },
            &Shaped<F, Shape::machine, Fn>::run),
    };
}

template <class Fn>
class Registry : public RegistryBase {
public:
    // `flat` and `shaped` (levels<...>()) are the operation's algorithms.
    Registry(const char* operation, const base::KnobString& knob, std::initializer_list<Algorithm<Fn>> flat,
             const std::vector<Algorithm<Fn>>& shaped, std::initializer_list<Rule> rules)
        : RegistryBase(operation, knob, entries_of(flat, shaped), rules) {
        for (const Algorithm<Fn>& a : flat) runs_.push_back(a.run);
        for (const Algorithm<Fn>& a : shaped) runs_.push_back(a.run);
    }
    // The function chosen for `s` (forced by the knob where it may be).
    Fn* choose(const Situation& s) const { return runs_[select(s)]; }
    Fn* run(std::size_t i) const { return runs_[i]; }

private:
    static std::vector<Entry> entries_of(std::initializer_list<Algorithm<Fn>> flat,
                                         const std::vector<Algorithm<Fn>>& shaped) {
        std::vector<Entry> out;
        for (const Algorithm<Fn>& a : flat) out.push_back({a.name, a.restriction, a.fits});
        for (const Algorithm<Fn>& a : shaped) out.push_back({a.name, a.restriction, a.fits});
        return out;
    }
    std::vector<Fn*> runs_;
};

}  // namespace strata::coll
