#include "job/adapter_table.hpp"

#include <catch2/catch.hpp>

using namespace strata::job;

TEST_CASE("adapter table: every row is found by its name and its service names") {
    for (const AdapterInfo& a : kAdapterTable) {
        CHECK(adapter_find(a.name) == &a);
        CHECK(adapter_find_service(a.name) == &a);
        CHECK(adapter_find_service(std::string("jobmanager-") + a.name) == &a);
        CHECK(&adapter_info(a.kind) == &a);
        CHECK(std::string(adapter_name(a.kind)) == a.name);
    }
    CHECK(adapter_find_service("jobmanager")->kind == AdapterKind::fork);
    CHECK(adapter_find("jobmanager-slurm") == nullptr);  // a service name, not an adapter's
    CHECK(adapter_find_service("jobmanager-") == nullptr);
    CHECK(adapter_find_service("pbs") == nullptr);
    CHECK(adapter_find("") == nullptr);
}

TEST_CASE("adapter table: what a gatekeeper does per adapter") {
    CHECK(adapter_info(AdapterKind::fork).records_local_pids);
    CHECK_FALSE(adapter_info(AdapterKind::fork).reports_pending);
    CHECK_FALSE(adapter_info(AdapterKind::slurm).records_local_pids);
    CHECK(adapter_info(AdapterKind::slurm).reports_pending);
}

TEST_CASE("adapter table: the lists messages give") {
    CHECK(adapter_names_text(false) == "fork or slurm");
    CHECK(adapter_names_text(true) == "fork, slurm, jobmanager-fork or jobmanager-slurm");
}
