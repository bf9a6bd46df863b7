// Conditions that only a bug in Strata can break: a built-in table that
// contradicts itself, a tree the library built with a node missing, a
// precondition a caller inside the library ignored. Nothing a user writes (a
// rules file, a parameter file, an environment variable) or measures can reach
// them; those failures are base::Result values.
//
// Like assert, but kept in release builds: the message goes to stderr and the
// process aborts (SIGABRT), so a debugger or a core file shows where. Tests
// check them with tests/unit/death.hpp.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

namespace strata::coll {

// Prints "strata: internal error: WHAT" and aborts.
[[noreturn, gnu::cold, gnu::noinline]] inline void invariant_failed(const std::string& what) {
    std::fprintf(stderr, "strata: internal error: %s\n", what.c_str());
    std::abort();
}

// Aborts with `what` unless `holds`.
inline void invariant(bool holds, const char* what) {
    if (!holds) [[unlikely]]
        invariant_failed(what);
}

}  // namespace strata::coll
