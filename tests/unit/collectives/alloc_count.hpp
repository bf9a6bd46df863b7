// Counts the allocations of this test program (alloc_count.cpp replaces the
// global operator new): what a repeated call must not do.
#pragma once

#include <cstdint>

namespace strata::test {

// Allocations through operator new since the program started.
std::uint64_t allocations();

}  // namespace strata::test
