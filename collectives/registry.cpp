#include "collectives/registry.hpp"

#include <cstdio>
#include <mutex>
#include <stdexcept>
#include <string>

#include "collectives/allgather/allgather.hpp"
#include "collectives/allgatherv/allgatherv.hpp"
#include "collectives/allreduce/allreduce.hpp"
#include "collectives/alltoall/alltoall.hpp"
#include "collectives/alltoallv/alltoallv.hpp"
#include "collectives/barrier/barrier.hpp"
#include "collectives/bcast/bcast.hpp"
#include "collectives/gather/gather.hpp"
#include "collectives/gatherv/gatherv.hpp"
#include "collectives/reduce/reduce.hpp"
#include "collectives/reduce_scatter/reduce_scatter.hpp"
#include "collectives/scan/scan.hpp"
#include "collectives/scatter/scatter.hpp"
#include "collectives/scatterv/scatterv.hpp"

namespace strata::coll {

namespace fits {

bool any(const Situation&) { return true; }
bool commutative(const Situation& s) { return s.commutative; }
bool commutative_and_long(const Situation& s) {
    return s.commutative && s.elements >= static_cast<std::size_t>(pof2_floor(s.procs));
}

}  // namespace fits

Situation situation_of(const Group& g, std::size_t bytes, std::size_t elements, bool commutative) {
    Situation s{g.size(), bytes, elements, commutative, g.level, {}, {}};
    if (g.levels != nullptr) {
        for (int i = 0; i < kShapes; ++i) {
            const Hierarchy& h = g.levels->of(static_cast<Shape>(i));
            s.spans[static_cast<std::size_t>(i)] = h.spans();
            s.ordered[static_cast<std::size_t>(i)] = h.ordered();
        }
        s.level = g.levels->of(Shape::multilevel).top_level();
    }
    return s;
}

const char* spans_words(Shape shape, Order o) {
    static const char* const words[3][kShapes] = {
        {"more than one cluster at some level", "more than one site", "more than one machine"},
        {"more than one cluster at some level; non-commutative: clusters of consecutive ranks",
         "more than one site; non-commutative: sites of consecutive ranks",
         "more than one machine; non-commutative: machines of consecutive ranks"},
        {"more than one cluster at some level, each of consecutive ranks",
         "more than one site, each of consecutive ranks", "more than one machine, each of consecutive ranks"},
    };
    return words[static_cast<int>(o)][static_cast<int>(shape)];
}

RegistryBase::RegistryBase(const char* operation, const base::KnobString& knob, std::vector<Entry> entries,
                           std::initializer_list<Rule> rules)
    : operation_(operation), knob_(knob), entries_(std::move(entries)), rules_(rules) {
    for (const Rule& r : rules_) {
        const int i = find(r.algorithm);
        if (i < 0)
            throw std::logic_error(std::string("collective registry ") + operation + ": a rule names '" + r.algorithm +
                                   "', which is no algorithm of it");
        rule_entry_.push_back(static_cast<std::size_t>(i));
    }
}

int RegistryBase::find(std::string_view name) const {
    for (std::size_t i = 0; i < entries_.size(); ++i) {
        if (name == entries_[i].name) return static_cast<int>(i);
    }
    return -1;
}

std::size_t RegistryBase::select(const Situation& s, std::string_view forced) const {
    if (!forced.empty()) {
        const int i = find(forced);
        if (i >= 0 && entries_[static_cast<std::size_t>(i)].fits(s)) return static_cast<std::size_t>(i);
    }
    for (std::size_t i = 0; i < rules_.size(); ++i) {
        const Rule& r = rules_[i];
        if (s.bytes < r.min_bytes || s.procs < r.min_procs || (r.level >= 0 && s.level != r.level)) continue;
        if (entries_[rule_entry_[i]].fits(s)) return rule_entry_[i];
    }
    throw std::logic_error(std::string("collective registry ") + operation_ +
                           ": no rule applies; the last rule must name an unrestricted algorithm");
}

std::size_t RegistryBase::select(const Situation& s) const {
    const std::string& forced = knob_.get();
    if (!forced.empty() && find(forced) < 0) {
        // A misspelt name would silently test the default instead: say so, once.
        std::call_once(warned_, [&] {
            std::fprintf(stderr, "strata: %s=%s names no %s algorithm; choosing by the rules instead\n", knob(),
                         forced.c_str(), operation_);
        });
    }
    return select(s, forced);
}

std::span<const RegistryBase* const> RegistryBase::all() {
    static const RegistryBase* const registries[] = {
        &barrier_algorithms,        &bcast_algorithms,     &gather_algorithms,    &gatherv_algorithms,
        &scatter_algorithms,        &scatterv_algorithms,  &allgather_algorithms, &allgatherv_algorithms,
        &alltoall_algorithms,       &alltoallv_algorithms, &reduce_algorithms,    &allreduce_algorithms,
        &reduce_scatter_algorithms, &scan_algorithms,
    };
    return registries;
}

}  // namespace strata::coll
