#include "security/job_key.hpp"

#include <catch2/catch.hpp>

using namespace strata::security;

TEST_CASE("job keys are 32 random bytes in hex", "[security]") {
    const std::string a = job_key_create().value();
    const std::string b = job_key_create().value();
    CHECK(a.size() == 64);
    CHECK(a.find_first_not_of("0123456789abcdef") == std::string::npos);
    CHECK(a != b);
}
