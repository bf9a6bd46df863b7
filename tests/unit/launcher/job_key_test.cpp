#include "security/job_key.hpp"

#include <catch2/catch.hpp>

using namespace strata::security;

TEST_CASE("job keys are 32 random bytes in hex", "[security]") {
    const std::string a = job_key_create();
    const std::string b = job_key_create();
    CHECK(a.size() == 64);
    CHECK(a.find_first_not_of("0123456789abcdef") == std::string::npos);
    CHECK(a != b);
}

TEST_CASE("job_key_equal compares contents and lengths", "[security]") {
    const std::string a = job_key_create();
    std::string flipped = a;
    flipped[63] = flipped[63] == '0' ? '1' : '0';
    CHECK(job_key_equal(a, std::string(a)));
    CHECK_FALSE(job_key_equal(a, flipped));
    CHECK_FALSE(job_key_equal(a, a.substr(0, 63)));
    CHECK_FALSE(job_key_equal(a, ""));
}
