#include "launcher/command_plan.hpp"

#include <catch2/catch.hpp>
#include "tests/unit/result_check.hpp"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <utility>
#include <vector>

using namespace strata::launcher;
namespace job = strata::job;

using strata::test::failure_of;

namespace {

job::MachineFile file(const std::string& text) {
    auto mf = job::MachineFile::parse(text, "m");
    REQUIRE(mf);
    return *mf;
}

struct Expect {
    std::string machine;
    int first;
    int count;
    std::string contact = job::kLocalContact;
};

const job::LocalHost kHere("node1", {"10.0.0.5"});

// The Slurm variables mpirun reads, set for one test and restored after it.
class SlurmEnv {
public:
    explicit SlurmEnv(const std::vector<std::pair<const char*, const char*>>& set) {
        for (const char* n : kNames) {
            if (const char* v = std::getenv(n)) saved_.emplace_back(n, v);
            ::unsetenv(n);
        }
        for (const auto& [n, v] : set) ::setenv(n, v, 1);
    }
    ~SlurmEnv() {
        for (const char* n : kNames) ::unsetenv(n);
        for (const auto& [n, v] : saved_) ::setenv(n.c_str(), v.c_str(), 1);
    }
    SlurmEnv(const SlurmEnv&) = delete;
    SlurmEnv& operator=(const SlurmEnv&) = delete;

private:
    static constexpr const char* kNames[] = {"SLURM_JOB_ID", "SLURM_JOB_NODELIST", "SLURM_NODELIST",
                                             "SLURM_TASKS_PER_NODE", "SLURM_CLUSTER_NAME"};
    std::vector<std::pair<std::string, std::string>> saved_;
};

void check_plan(const job::JobPlan& p, int size, const std::vector<Expect>& want) {
    CHECK(p.size == size);
    REQUIRE(p.subjobs.size() == want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
        INFO("subjob " << i);
        CHECK(p.subjobs[i].index == static_cast<int>(i));
        CHECK(p.subjobs[i].contact == want[i].contact);
        CHECK(p.subjobs[i].machine == want[i].machine);
        CHECK(p.subjobs[i].first_rank == want[i].first);
        CHECK(p.subjobs[i].count == want[i].count);
    }
}

// A machine file's plan, as JobPlan::build makes it. The hosts are loopback
// addresses: all this machine, each its own subjob.
job::JobPlan machine_plan(const std::string& text, int np) {
    return job::JobPlan::from_request(job::job_request_from_machine_file(file(text), np, "p", {}, kHere), kHere);
}

}  // namespace

TEST_CASE("plan: slots are filled in order; consecutive ranks on a host form a subjob", "[plan]") {
    const std::string mf = "127.0.0.1 2\n127.0.0.2\n127.0.0.3:3\n";
    check_plan(machine_plan(mf, 6), 6, {{"127.0.0.1", 0, 2}, {"127.0.0.2", 2, 1}, {"127.0.0.3", 3, 3}});
    check_plan(machine_plan(mf, 3), 3, {{"127.0.0.1", 0, 2}, {"127.0.0.2", 2, 1}});
    check_plan(machine_plan(mf, 1), 1, {{"127.0.0.1", 0, 1}});
}

TEST_CASE("plan: more processes than slots cycle through the file", "[plan]") {
    check_plan(machine_plan("127.0.0.1 2\n127.0.0.2\n", 7), 7,
               {{"127.0.0.1", 0, 2},
                {"127.0.0.2", 2, 1},
                {"127.0.0.1", 3, 2},
                {"127.0.0.2", 5, 1},
                {"127.0.0.1", 6, 1}});
    // A single host cycles into one subjob.
    check_plan(machine_plan("127.0.0.1 2\n", 5), 5, {{"127.0.0.1", 0, 5}});
    // The same host on consecutive lines is one subjob.
    check_plan(machine_plan("127.0.0.1\n127.0.0.1:2\n127.0.0.2\n", 4), 4,
               {{"127.0.0.1", 0, 3}, {"127.0.0.2", 3, 1}});
}

TEST_CASE("plan: without a machine file, one subjob on this machine", "[plan]") {
    const SlurmEnv outside({});
    const job::LocalHost local("node1.example.org", {});
    Options o;
    o.program = "p";
    auto p = plan_build(o, local);
    REQUIRE(p);
    check_plan(*p, 1, {{"node1", 0, 1}});
    o.np = 8;
    p = plan_build(o, local);
    REQUIRE(p);
    check_plan(*p, 8, {{"node1", 0, 8}});
}

TEST_CASE("plan: machine file hosts: this machine's run here, others over ssh", "[plan]") {
    const SlurmEnv outside({});
    char path[] = "/tmp/strata-plan-XXXXXX";
    const int fd = ::mkstemp(path);
    REQUIRE(fd >= 0);
    ::close(fd);
    const job::LocalHost local("node1", {"10.0.0.5"});
    Options o;
    o.program = "p";
    o.machinefile = path;
    std::string error;

    std::ofstream(path) << "localhost 2\n10.0.0.5\nnode1:1\n";
    auto p = plan_build(o, local);
    REQUIRE(p);
    check_plan(*p, 4, {{"localhost", 0, 2}, {"10.0.0.5", 2, 1}, {"node1", 3, 1}});

    // Another machine's plain host line: an ssh login there.
    std::ofstream(path) << "# here\nlocalhost\n192.0.2.1 2\n";
    p = plan_build(o, local);
    REQUIRE(p);
    check_plan(*p, 3, {{"localhost", 0, 1}, {"192.0.2.1", 1, 2, "192.0.2.1/ssh+fork"}});

    std::ofstream(path) << "localhost 2 2\n";
    error = failure_of(plan_build(o, local));
    CHECK(error.rfind(std::string(path) + ":1: unexpected '2'", 0) == 0);
    ::unlink(path);
}

TEST_CASE("plan: a job file's subjobs run here or go to the gatekeeper their contact names", "[plan]") {
    const SlurmEnv outside({});
    const job::LocalHost local("node1", {"10.0.0.5"});
    auto request = job::parse_job_yaml("executable: /bin/app\n"
                                  "arguments: [x]\n"
                                  "directory: /tmp\n"
                                  "environment: {A: '1'}\n"
                                  "subjobs:\n"
                                  "  - {contact: localhost/fork, count: 2}\n"
                                  "  - {count: 1, machine: here, executable: ./b, arguments: []}\n"
                                  "  - {contact: '10.0.0.5/jobmanager-fork', count: 3}\n"
                                  "  - {contact: 'localhost:2119/fork', count: 1}\n"
                                  "  - {contact: 'anl.example.org', count: 1}\n"
                                  "  - {contact: 'localhost/slurm', count: 1}\n",
                                  "job.yaml");
    REQUIRE(request);
    const std::optional<job::JobPlan> p = job::JobPlan::from_request(*request, local);
    CHECK(p->size == 9);
    REQUIRE(p->subjobs.size() == 6);
    const job::Subjob& a = p->subjobs[0];
    CHECK((a.index == 0 && a.first_rank == 0 && a.count == 2 && a.contact == job::kLocalContact));
    CHECK((a.machine == "localhost" && a.command.program == "/bin/app" && a.command.args == std::vector<std::string>{"x"}));
    CHECK(a.command.directory == "/tmp");
    CHECK(a.command.env == std::vector<std::pair<std::string, std::string>>{{"A", "1"}});
    CHECK((p->subjobs[1].first_rank == 2 && p->subjobs[1].machine == "here" && p->subjobs[1].command.program == "./b"));
    CHECK(p->subjobs[1].command.args.empty());
    CHECK((p->subjobs[2].first_rank == 3 && p->subjobs[2].machine == "10.0.0.5"));
    CHECK(p->subjobs[2].contact == job::kLocalContact);
    // A port, another host or another adapter: a gatekeeper.
    CHECK(p->subjobs[3].contact == "localhost:2119/jobmanager-fork");
    CHECK(p->subjobs[4].contact == "anl.example.org/jobmanager-fork");
    CHECK(p->subjobs[5].contact == "localhost/jobmanager-slurm");
    CHECK(p->subjobs[5].first_rank == 8);
}

TEST_CASE("plan: machine file contact lines run here or at the gatekeeper they name", "[plan]") {
    const SlurmEnv outside({});
    char path[] = "/tmp/strata-plan-XXXXXX";
    const int fd = ::mkstemp(path);
    REQUIRE(fd >= 0);
    ::close(fd);
    const job::LocalHost local("node1", {});
    Options o;
    o.program = "p";
    o.machinefile = path;
    std::string error;
    std::ofstream(path) << "localhost/fork 2\nnode1/jobmanager-fork\n";
    auto p = plan_build(o, local);
    REQUIRE(p);
    check_plan(*p, 3, {{"localhost", 0, 2}, {"node1", 2, 1}});

    std::ofstream(path) << "localhost\nanl.example.org:2119/fork 8\nlocalhost:3000/fork 2\n";
    p = plan_build(o, local);
    REQUIRE(p);
    check_plan(*p, 11,
               {{"localhost", 0, 1},
                {"anl.example.org", 1, 8, "anl.example.org:2119/jobmanager-fork"},
                {"localhost", 9, 2, "localhost:3000/jobmanager-fork"}});

    // A plain host line of another machine is started over ssh.
    std::ofstream(path) << "localhost\nanl.example.org 8\n";
    p = plan_build(o, local);
    REQUIRE(p);
    check_plan(*p, 9, {{"localhost", 0, 1}, {"anl.example.org", 1, 8, "anl.example.org/ssh+fork"}});
    ::unlink(path);
}

TEST_CASE("plan: inside a Slurm allocation, a subjob per node through srun", "[plan]") {
    const SlurmEnv inside({{"SLURM_JOB_ID", "7"},
                           {"SLURM_JOB_NODELIST", "c[1-3]"},
                           {"SLURM_TASKS_PER_NODE", "2(x2),1"},
                           {"SLURM_CLUSTER_NAME", "hpc"}});
    Options o;
    o.program = "p";
    auto p = plan_build(o, kHere);
    REQUIRE(p);
    check_plan(*p, 5, {{"c1", 0, 2, "c1/srun"}, {"c2", 2, 2, "c2/srun"}, {"c3", 4, 1, "c3/srun"}});
    for (const job::Subjob& s : p->subjobs) {
        CHECK(s.site == "hpc");
        CHECK(s.host == s.machine);
    }
    o.np = 3;
    p = plan_build(o, kHere);
    REQUIRE(p);
    check_plan(*p, 3, {{"c1", 0, 2, "c1/srun"}, {"c2", 2, 1, "c2/srun"}});
    o.np = 0;
    o.launcher = "ssh";
    p = plan_build(o, kHere);
    REQUIRE(p);
    CHECK(p->subjobs[0].contact == "c1/ssh+fork");
    // -launcher fork: the allocation's task count, all here.
    o.launcher = "fork";
    p = plan_build(o, kHere);
    REQUIRE(p);
    check_plan(*p, 5, {{"node1", 0, 5}});
}

TEST_CASE("plan: -launcher srun needs an allocation; -launcher fork refuses other hosts", "[plan]") {
    const SlurmEnv outside({});
    Options o;
    o.program = "p";
    o.launcher = "srun";
    CHECK(failure_of(plan_build(o, kHere)) ==
          "-launcher srun starts ranks on the nodes of a Slurm allocation, and SLURM_JOB_ID is not set (run mpirun "
          "inside salloc or sbatch)");
    char path[] = "/tmp/strata-plan-XXXXXX";
    const int fd = ::mkstemp(path);
    REQUIRE(fd >= 0);
    ::close(fd);
    std::ofstream(path) << "localhost\n192.0.2.1 2\n";
    o.machinefile = path;
    o.launcher = "fork";
    CHECK(failure_of(plan_build(o, kHere)) == std::string(path) +
                                                   ":2: host '192.0.2.1' is not this machine, and -launcher fork "
                                                   "starts processes only here");
    {
        const SlurmEnv inside({{"SLURM_JOB_ID", "7"}, {"SLURM_JOB_NODELIST", "c1"}});
        o.launcher.clear();
        auto p = plan_build(o, kHere);
        REQUIRE(p);
        check_plan(*p, 3, {{"localhost", 0, 1}, {"192.0.2.1", 1, 2, "192.0.2.1/srun"}});
    }
    ::unlink(path);
}
