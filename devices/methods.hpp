// The method table: which devices exist, in order of preference; the one
// place that knows every device (the engine knows methods only). The engine
// gives each peer the first method in this table that reaches it.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "adi/method.hpp"

namespace strata::dev {

struct MethodEntry {
    const char* name;
    std::unique_ptr<adi::Method> (*create)(const adi::MethodContext& ctx);
    bool needed_alone;  // also created when the job has a single process
    // For the fast methods (the topology's vendor level): whether the method
    // links the processes of two cards, decided from the cards alone by the
    // same rule its connect_world follows. Null for the others.
    bool (*links)(const wireup::BusinessCard& a, const wireup::BusinessCard& b);
};

// The table itself, in order of preference (strata-info prints it).
std::span<const MethodEntry> method_table();

// Whether some fast method links the processes of `a` and `b` (wireup::FastLink).
bool fast_link(const wireup::BusinessCard& a, const wireup::BusinessCard& b);

// Instantiates the methods this process needs, in table order, leaving out the
// excluded ones. Fails when the exclusion list is invalid.
base::Result<std::vector<std::unique_ptr<adi::Method>>> methods_create(const adi::MethodContext& ctx);

}  // namespace strata::dev
