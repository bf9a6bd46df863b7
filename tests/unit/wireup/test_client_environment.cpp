// Client::from_environment reads what mpirun set; a number mpirun would never
// write is refused there, before any connection is tried.
#include "wireup/environment.hpp"
#include "wireup/protocol.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>

using namespace strata::wireup;
using Catch::Matchers::Contains;

namespace {

// What from_environment says, with these variables set (null: unset).
std::string client_error(const char* wireup, const char* size, const char* rank, const char* subjob) {
    const auto set = [](const char* name, const char* value) {
        if (value != nullptr)
            ::setenv(name, value, 1);
        else
            ::unsetenv(name);
    };
    set(env::kWireup, wireup);
    set(env::kSize, size);
    set(env::kRank, rank);
    set(env::kSubjob, subjob);
    set(env::kJobKey, "unit-test-key");
    const auto client = Client::from_environment();
    for (const char* name : {env::kWireup, env::kSize, env::kRank, env::kSubjob, env::kJobKey}) ::unsetenv(name);
    return client.error();
}

}  // namespace

TEST_CASE("the client takes only plain numbers from mpirun's variables") {
    // Port 1 on loopback refuses: well-formed variables get as far as dialling.
    CHECK_THAT(client_error("127.0.0.1:1", "2", "1", "0"), Contains("cannot reach mpirun at 127.0.0.1:1"));
    for (const char* size : {"+2", " 2", "2 ", "2x", "0", "99999999999", ""}) {
        INFO("STRATA_SIZE='" << size << "'");
        CHECK_THAT(client_error("127.0.0.1:1", size, "0", nullptr),
                   Contains("STRATA_SIZE is missing or not a positive integer"));
    }
    for (const char* rank : {"+1", " 1", "-1", "2"}) {
        INFO("STRATA_RANK='" << rank << "'");
        CHECK_THAT(client_error("127.0.0.1:1", "2", rank, nullptr),
                   Contains("STRATA_RANK is missing or not a rank below STRATA_SIZE"));
    }
    CHECK_THAT(client_error("127.0.0.1:1", "2", "1", "+0"), Contains("STRATA_SUBJOB='+0' is not a subjob index"));
    CHECK_THAT(client_error("127.0.0.1:+1", "2", "1", nullptr),
               Contains("STRATA_WIREUP='127.0.0.1:+1' is not host:port"));
    CHECK_THAT(client_error("127.0.0.1:65536", "2", "1", nullptr),
               Contains("STRATA_WIREUP='127.0.0.1:65536' is not host:port"));
}
