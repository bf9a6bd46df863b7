#include <catch2/catch.hpp>

#include "base/result.hpp"

#include <memory>

using strata::base::Error;
using strata::base::Result;
using strata::base::Status;

namespace {

Result<int> half(int n) {
    if (n % 2 != 0) return Error{std::to_string(n) + " is odd"};
    return n / 2;
}

// Passes a failure up, with context, into a Result of another type.
Result<std::string> quarter_text(int n) {
    Result<int> h = half(n);
    if (!h) return h.failure();
    Result<int> q = half(*h);
    if (!q) return std::move(q).failure().prefixed("quarter: ");
    return std::to_string(*q);
}

Status even(int n) {
    if (Result<int> h = half(n); !h) return h.failure();
    return {};
}

}  // namespace

TEST_CASE("a Result holds a value or an error", "[result]") {
    const Result<int> ok = half(8);
    REQUIRE(ok.ok());
    REQUIRE(static_cast<bool>(ok));
    CHECK(*ok == 4);
    CHECK(ok.value() == 4);
    CHECK(ok.error().empty());

    const Result<int> bad = half(7);
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error() == "7 is odd");
}

TEST_CASE("a failure passes up with or without context", "[result]") {
    CHECK(*quarter_text(8) == "2");
    CHECK(quarter_text(7).error() == "7 is odd");
    CHECK(quarter_text(6).error() == "quarter: 3 is odd");
}

TEST_CASE("a Result holds move-only values", "[result]") {
    Result<std::unique_ptr<int>> r = std::make_unique<int>(5);
    REQUIRE(r.ok());
    CHECK(**r == 5);
    std::unique_ptr<int> taken = *std::move(r);
    CHECK(*taken == 5);
}

TEST_CASE("a Status is success or an error", "[result]") {
    const Status fine;
    CHECK(fine.ok());
    CHECK(fine.error().empty());
    CHECK(even(4).ok());
    const Status odd = even(5);
    REQUIRE_FALSE(odd.ok());
    CHECK(odd.error() == "5 is odd");
    // An error with an empty text is still a failure.
    CHECK_FALSE(Status(Error{}).ok());
}
