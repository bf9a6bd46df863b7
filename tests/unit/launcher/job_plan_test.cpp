#include "launcher/job_plan.hpp"

#include <catch2/catch.hpp>

#include <unistd.h>

#include <fstream>

using namespace strata::launcher;

namespace {

MachineFile file(const std::string& text) {
    std::string error;
    auto mf = MachineFile::parse(text, "m", error);
    REQUIRE(mf);
    return *mf;
}

struct Expect {
    std::string machine;
    int first;
    int count;
};

void check_plan(const JobPlan& p, int size, const std::vector<Expect>& want) {
    CHECK(p.size == size);
    REQUIRE(p.subjobs.size() == want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
        INFO("subjob " << i);
        CHECK(p.subjobs[i].index == static_cast<int>(i));
        CHECK(p.subjobs[i].contact == kLocalContact);
        CHECK(p.subjobs[i].machine == want[i].machine);
        CHECK(p.subjobs[i].first_rank == want[i].first);
        CHECK(p.subjobs[i].count == want[i].count);
    }
}

}  // namespace

TEST_CASE("plan: slots are filled in order; consecutive ranks on a host form a subjob", "[plan]") {
    const MachineFile mf = file("a 2\nb\nc:3\n");
    check_plan(JobPlan::from_machine_file(mf, 6), 6, {{"a", 0, 2}, {"b", 2, 1}, {"c", 3, 3}});
    check_plan(JobPlan::from_machine_file(mf, 3), 3, {{"a", 0, 2}, {"b", 2, 1}});
    check_plan(JobPlan::from_machine_file(mf, 1), 1, {{"a", 0, 1}});
}

TEST_CASE("plan: more processes than slots cycle through the file", "[plan]") {
    check_plan(JobPlan::from_machine_file(file("a 2\nb\n"), 7), 7,
               {{"a", 0, 2}, {"b", 2, 1}, {"a", 3, 2}, {"b", 5, 1}, {"a", 6, 1}});
    // A single host cycles into one subjob.
    check_plan(JobPlan::from_machine_file(file("a 2\n"), 5), 5, {{"a", 0, 5}});
    // The same host on consecutive lines is one subjob.
    check_plan(JobPlan::from_machine_file(file("a\na:2\nb\n"), 4), 4, {{"a", 0, 3}, {"b", 3, 1}});
}

TEST_CASE("plan: without a machine file, one subjob on this machine", "[plan]") {
    const LocalHost local("node1.example.org", {});
    Options o;
    o.program = "p";
    std::string error;
    auto p = JobPlan::build(o, local, error);
    REQUIRE(p);
    check_plan(*p, 1, {{"node1", 0, 1}});
    o.np = 8;
    p = JobPlan::build(o, local, error);
    REQUIRE(p);
    check_plan(*p, 8, {{"node1", 0, 8}});
}

TEST_CASE("plan: machine file hosts must be this machine", "[plan]") {
    char path[] = "/tmp/strata-plan-XXXXXX";
    const int fd = ::mkstemp(path);
    REQUIRE(fd >= 0);
    ::close(fd);
    const LocalHost local("node1", {"10.0.0.5"});
    Options o;
    o.program = "p";
    o.machinefile = path;
    std::string error;

    std::ofstream(path) << "localhost 2\n10.0.0.5\nnode1:1\n";
    auto p = JobPlan::build(o, local, error);
    REQUIRE(p);
    check_plan(*p, 4, {{"localhost", 0, 2}, {"10.0.0.5", 2, 1}, {"node1", 3, 1}});

    std::ofstream(path) << "# here\nlocalhost\n192.0.2.1 2\n";
    CHECK_FALSE(JobPlan::build(o, local, error));
    CHECK(error == std::string(path) +
                       ":3: host '192.0.2.1' is not this machine; the local fork adapter cannot start processes there "
                       "(remote sites will be reached through a gatekeeper contact)");

    std::ofstream(path) << "localhost 2 2\n";
    CHECK_FALSE(JobPlan::build(o, local, error));
    CHECK(error.rfind(std::string(path) + ":1: unexpected '2'", 0) == 0);
    ::unlink(path);
}
