#include "job/slurm_allocation.hpp"

#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

using namespace strata::job;

namespace {

using Names = std::vector<std::string>;

Names expand(const std::string& text) {
    auto r = slurm_hostlist_expand(text);
    INFO(text << ": " << r.error());
    REQUIRE(r);
    return *r;
}

std::string expand_error(const std::string& text) {
    auto r = slurm_hostlist_expand(text);
    REQUIRE_FALSE(r);
    return r.error();
}

strata::base::Result<SlurmAllocation> from(const std::map<std::string, std::string>& env) {
    return slurm_allocation([&](const char* name) -> const char* {
        auto it = env.find(name);
        return it == env.end() ? nullptr : it->second.c_str();
    });
}

}  // namespace

TEST_CASE("slurm host lists: names, ranges, padding, several groups", "[slurm]") {
    CHECK(expand("vm") == Names{"vm"});
    CHECK(expand("n[1-3]") == Names{"n1", "n2", "n3"});
    CHECK(expand("n[01-03,7],gpu5") == Names{"n01", "n02", "n03", "n7", "gpu5"});
    CHECK(expand("n[8-11]") == Names{"n8", "n9", "n10", "n11"});
    CHECK(expand("r[1-2]-n[1,3]") == Names{"r1-n1", "r1-n3", "r2-n1", "r2-n3"});
    CHECK(expand("a,b.example.org") == Names{"a", "b.example.org"});
}

TEST_CASE("slurm host lists: malformed and oversized lists are refused, bounded", "[slurm]") {
    CHECK(expand_error("n[1-3") == "'n[1-3': '[' without ']'");
    CHECK(expand_error("n1-3]") == "'n1-3]': ']' without '['");
    CHECK(expand_error("n[3-1]") == "'n[3-1]': expected a range N-M with M >= N inside '[...]'");
    CHECK(expand_error("n[]") == "'n[]': expected a number inside '[...]'");
    CHECK(expand_error("n[1;2]") == "'n[1;2]': unexpected ';' inside '[...]'");
    CHECK(expand_error("a,,b") == "'a,,b': an empty name");
    CHECK(expand_error("-x") == "'-x' is not a valid host name");
    // Refused before anything is expanded: a million nodes, or a product of ranges.
    CHECK(expand_error("n[0-999999]") == "'n[0-999999]' names more than 65536 nodes");
    CHECK(expand_error("a[1-1000]b[1-1000]") == "'a[1-1000]b[1-1000]' names more than 65536 nodes");
    CHECK(expand_error("n[1-999999999999]").find("expected a range") != std::string::npos);
}

TEST_CASE("slurm tasks per node: runs and their errors", "[slurm]") {
    CHECK(*slurm_tasks_per_node("2(x3),1", 4) == std::vector<int>{2, 2, 2, 1});
    CHECK(*slurm_tasks_per_node("4", 1) == std::vector<int>{4});
    CHECK_FALSE(slurm_tasks_per_node("", 1));
    CHECK_FALSE(slurm_tasks_per_node("0", 1));
    CHECK_FALSE(slurm_tasks_per_node("2(x", 1));
    CHECK_FALSE(slurm_tasks_per_node("2,", 2));
    CHECK_FALSE(slurm_tasks_per_node("20000", 1));
    CHECK(slurm_tasks_per_node("1(x999999999)", 3).error() ==
          "'1(x999999999)' counts more nodes than the allocation has (3)");
}

TEST_CASE("slurm allocation: from the environment salloc gives", "[slurm]") {
    auto a = from({{"SLURM_JOB_ID", "42"},
                   {"SLURM_JOB_NODELIST", "n[1-3]"},
                   {"SLURM_TASKS_PER_NODE", "2(x2),1"},
                   {"SLURM_CLUSTER_NAME", "c"}});
    REQUIRE(a);
    CHECK(a->job_id == "42");
    CHECK(a->cluster == "c");
    CHECK(a->nodes == std::vector<std::pair<std::string, int>>{{"n1", 2}, {"n2", 2}, {"n3", 1}});
    CHECK(a->tasks() == 5);
    const MachineFile f = a->machine_file();
    CHECK(f.slots_total() == 5);
    CHECK(f.path() == "the Slurm allocation 42");
    // Without tasks per node, one task each.
    CHECK(from({{"SLURM_JOB_ID", "1"}, {"SLURM_JOB_NODELIST", "a,b"}})->tasks() == 2);
    CHECK(from({}).error() == "not inside a Slurm allocation (SLURM_JOB_ID is not set)");
    CHECK(from({{"SLURM_JOB_ID", "1"}}).error() == "SLURM_JOB_ID is set but SLURM_JOB_NODELIST is not");
    CHECK(from({{"SLURM_JOB_ID", "1"}, {"SLURM_JOB_NODELIST", "n[1-"}}).error() ==
          "SLURM_JOB_NODELIST='n[1-': '[' without ']'");
    CHECK(from({{"SLURM_JOB_ID", "1"}, {"SLURM_JOB_NODELIST", "n[1-3]"}, {"SLURM_TASKS_PER_NODE", "2"}}).error() ==
          "SLURM_TASKS_PER_NODE='2' counts 1 nodes but SLURM_JOB_NODELIST='n[1-3]' names 3");
}
