// For tests of functions that return base::Result or base::Status.
#pragma once

#include <catch2/catch.hpp>

#include <string>

namespace strata::test {

// The text of `r`, a result that must be a failure.
template <class R>
std::string failure_of(const R& r) {
    CHECK_FALSE(r.ok());
    return r.error();
}

}  // namespace strata::test
