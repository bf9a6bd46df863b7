#include "job/job_request.hpp"

#include <catch2/catch.hpp>
#include "job/job_plan.hpp"
#include "tests/unit/result_check.hpp"

using namespace strata::job;

using strata::test::failure_of;

namespace {

JobRequest rsl(const std::string& text) {
    auto r = parse_job_rsl(text, "job.rsl");
    INFO(r.error());
    REQUIRE(r);
    return *r;
}

JobRequest yaml(const std::string& text) {
    auto r = parse_job_yaml(text, "job.yaml");
    INFO(r.error());
    REQUIRE(r);
    return *r;
}

std::string rsl_error(const std::string& text) {
    const auto r = parse_job_rsl(text, "job.rsl");
    CHECK_FALSE(r);
    return r.error();
}

std::string yaml_error(const std::string& text) {
    const auto r = parse_job_yaml(text, "job.yaml");
    CHECK_FALSE(r);
    return r.error();
}

// This machine, for the plain host lines of machine files: "a" and "b" are not it.
const LocalHost kHere("here", {"10.0.0.5"});

MachineFile machines(const std::string& text) {
    auto mf = MachineFile::parse(text, "machines");
    INFO(mf.error());
    REQUIRE(mf);
    return *mf;
}

// A subjob's environment as NAME=VALUE texts, in order.
std::vector<std::string> env_of(const SubjobRequest& s) {
    std::vector<std::string> out;
    for (const auto& [name, value] : s.command.env) out.push_back(name + "=" + value);
    return out;
}

SubjobRequest subjob(const std::string& host, int port, AdapterKind adapter, int count, const std::string& exe,
                     std::vector<std::string> args) {
    SubjobRequest s;
    s.contact = Contact{host, port, adapter};
    s.count = count;
    s.command.program = exe;
    s.command.args = std::move(args);
    return s;
}

// The job of README's examples, without environment: what a machine file can say.
const JobRequest& two_sites() {
    static const JobRequest job{{
        subjob("anl.example.org", 2119, AdapterKind::fork, 8, "/opt/app", {"-v", "in put"}),
        subjob("uchicago.example.org", 2119, AdapterKind::slurm, 4, "/opt/app", {"-v", "in put"}),
    }};
    return job;
}

// Everything a subjob can carry.
JobRequest full_job() {
    JobRequest job;
    SubjobRequest a = subjob("anl.example.org", 2119, AdapterKind::fork, 4, "/path/app", {"a", "b c"});
    a.command.env = {{"FOO", "bar"}};
    a.command.directory = "/tmp";
    a.stage = true;
    a.stage_files = {"input.dat"};
    a.site = "site1";
    a.machine = "m1";
    a.host = "node-a";
    a.processor_name = "pa-01";
    SubjobRequest b = subjob("localhost", 2119, AdapterKind::fork, 2, "./other", {"a", "b c"});
    b.command.env = {{"FOO", "baz"}, {"X", "1"}};
    b.command.directory = "/tmp";
    job.subjobs = {a, b};
    return job;
}

}  // namespace

TEST_CASE("job request: machine file, YAML and RSL describe the same job alike", "[jobrequest]") {
    const JobRequest from_machines = job_request_from_machine_file(
        machines("# two sites\nanl.example.org:2119/fork 8\nuchicago.example.org/jobmanager-slurm 4\n"), 12,
        "/opt/app", {"-v", "in put"}, kHere);
    CHECK(from_machines == two_sites());

    CHECK(yaml("executable: /opt/app\n"
               "arguments: [-v, \"in put\"]\n"
               "subjobs:\n"
               "  - contact: anl.example.org:2119/fork\n"
               "    count: 8\n"
               "  - contact: uchicago.example.org/slurm\n"
               "    count: 4\n") == two_sites());

    CHECK(rsl("+( &(resourceManagerContact=\"anl.example.org/jobmanager-fork\")(count=8)(label=\"subjob 0\")\n"
              "    (executable=/opt/app)(arguments=-v \"in put\"))\n"
              " ( &(ResourceManagerContact=\"uchicago.example.org:2119/jobmanager-slurm\")(COUNT=4)\n"
              "    (Executable=/opt/app)(ARGUMENTS=\"-v\" 'in put'))\n") == two_sites());
}

TEST_CASE("job request: YAML and RSL with environment, directory, staging and labels", "[jobrequest]") {
    CHECK(yaml("executable: /path/app\n"
               "arguments: [a, \"b c\"]\n"
               "environment:\n"
               "  FOO: bar\n"
               "directory: /tmp\n"
               "stage: [input.dat]\n"
               "subjobs:\n"
               "  - contact: anl.example.org/fork\n"
               "    count: 4\n"
               "    site: site1\n"
               "    machine: m1\n"
               "    host: node-a\n"
               "    processor_name: pa-01\n"
               "  - contact: localhost\n"
               "    count: 2\n"
               "    executable: ./other\n"
               "    environment:\n"
               "      FOO: baz\n"
               "      X: \"1\"\n"
               "    stage: false\n") == full_job());
    CHECK(rsl("(* MPICH-G2 style *)\n"
              "+( &(resourceManagerContact=\"anl.example.org/jobmanager-fork\")\n"
              "    (count=4)\n"
              "    (label=\"subjob 0\")\n"
              "    (environment=(GLOBUS_LAN_ID site1)(FOO bar))\n"
              "    (directory=/tmp)\n"
              "    (executable=/path/app)\n"
              "    (arguments=a \"b c\")\n"
              "    (stage=yes)(stageFiles=input.dat)\n"
              "    (machine=m1)(host=node-a)(processor_name=pa-01)\n"
              " )\n"
              " ( &(resourceManagerContact=localhost)(count=2)(environment=(FOO baz)(X 1))(directory=/tmp)\n"
              "    (executable=./other)(arguments=a \"b c\") )\n") == full_job());
    // A single request, without '+'; a missing contact is this machine.
    const JobRequest one = rsl("&(executable=\"/bin/say \"\"hi\"\"\")(count=1)(site=s)");
    REQUIRE(one.subjobs.size() == 1);
    CHECK(one.subjobs[0].command.program == "/bin/say \"hi\"");
    CHECK(one.subjobs[0].contact == Contact{"localhost", 2119, AdapterKind::fork});
    CHECK(one.subjobs[0].site == "s");
    CHECK(one.size() == 1);
}

TEST_CASE("job request: the account to run as at a site, at the top level or per subjob", "[jobrequest]") {
    const JobRequest y = yaml("executable: /a\naccount: jane\nsubjobs:\n  - {contact: x/fork, count: 1}\n"
                              "  - {contact: y/fork, count: 1, account: proj7}\n");
    REQUIRE(y.subjobs.size() == 2);
    CHECK(y.subjobs[0].account == "jane");
    CHECK(y.subjobs[1].account == "proj7");
    const JobRequest r = rsl("+(&(resourceManagerContact=x/fork)(count=1)(executable=/a)(account=proj7))");
    REQUIRE(r.subjobs.size() == 1);
    CHECK(r.subjobs[0].account == "proj7");
}

TEST_CASE("job request: printed RSL parses back to the same request", "[jobrequest]") {
    JobRequest tricky = full_job();
    tricky.subjobs[1].command.args = {"say \"hi\"", "", "(x)", "a=b", "'q'"};
    tricky.subjobs[1].command.env = {{"EMPTY", ""}, {"Q", "\"quoted\""}};
    tricky.subjobs[1].contact = Contact{"::1", 9, AdapterKind::slurm};
    tricky.subjobs[1].stage_files = {"a b", "c"};
    tricky.subjobs[1].stage = true;
    tricky.subjobs[1].account = "jane-project";
    for (const JobRequest& job : {two_sites(), full_job(), tricky}) {
        const std::string text = job_request_rsl(job);
        INFO(text);
        CHECK(rsl(text) == job);
        CHECK(job_request_rsl(rsl(text)) == text);
        auto detected = parse_job_file(text, "dump");
        REQUIRE(detected);
        CHECK(*detected == job);
    }
    CHECK(job_request_rsl(two_sites()) ==
          "+\n"
          "( &(resourceManagerContact=\"anl.example.org/jobmanager-fork\")\n"
          "   (count=8)\n"
          "   (label=\"subjob 0\")\n"
          "   (executable=\"/opt/app\")\n"
          "   (arguments=\"-v\" \"in put\")\n"
          ")\n"
          "( &(resourceManagerContact=\"uchicago.example.org/jobmanager-slurm\")\n"
          "   (count=4)\n"
          "   (label=\"subjob 1\")\n"
          "   (executable=\"/opt/app\")\n"
          "   (arguments=\"-v\" \"in put\")\n"
          ")\n");
}

TEST_CASE("job request: the command line without a machine file, and cycling machine files", "[jobrequest]") {
    CHECK(job_request_local(3, "p", {"x"}) ==
          JobRequest{{subjob("localhost", 2119, AdapterKind::fork, 3, "p", {"x"})}});
    // Plain host lines of other machines are ssh logins.
    auto ssh = [](SubjobRequest s) {
        s.contact.transport = Transport::ssh;
        s.contact.port = 0;
        return s;
    };
    CHECK(job_request_from_machine_file(machines("a 2\nb\n"), 5, "p", {}, kHere) ==
          JobRequest{{ssh(subjob("a", 2119, AdapterKind::fork, 2, "p", {})),
                      ssh(subjob("b", 2119, AdapterKind::fork, 1, "p", {})),
                      ssh(subjob("a", 2119, AdapterKind::fork, 2, "p", {}))}});
    // This machine's are fork contacts; consecutive identical contacts merge.
    CHECK(job_request_from_machine_file(machines("10.0.0.5\n10.0.0.5:2119/fork 2\n"), 3, "p", {}, kHere) ==
          JobRequest{{subjob("10.0.0.5", 2119, AdapterKind::fork, 3, "p", {})}});
    CHECK(job_request_from_machine_file(machines("a\na/ssh 2\n"), 3, "p", {}, kHere) ==
          JobRequest{{ssh(subjob("a", 2119, AdapterKind::fork, 3, "p", {}))}});
}

TEST_CASE("job request: auto-detection of RSL and YAML", "[jobrequest]") {
    CHECK(parse_job_file("# yaml\nexecutable: x\nsubjobs: [{count: 1}]\n", "f"));
    CHECK(parse_job_file("\n  (* rsl *) &(executable=x)(count=1)", "f"));
    CHECK(parse_job_file("+(&(executable=x)(count=1))", "f"));
    const auto rsl_in_yaml = parse_job_file("# YAML comment\n+(&(executable=x)(count=1))", "f");
    CHECK_FALSE(rsl_in_yaml);
    CHECK(rsl_in_yaml.error().rfind("f:2:1: expected a map with 'executable' and 'subjobs'", 0) == 0);
    const auto absent = load_job_file("/nonexistent/job");
    CHECK_FALSE(absent);
    CHECK(absent.error() == "cannot read job file '/nonexistent/job': No such file or directory");
}

TEST_CASE("job request: malformed RSL names file, line, column and what is wrong", "[jobrequest]") {
    CHECK(rsl_error("+\n( &(resourceManagerContact=\"a/fork\")\n    (count=4\n    (executable=/bin/x))\n") ==
          "job.rsl:4:5: expected ')' to close the relation started at 3:5, got '('");
    CHECK(rsl_error("&(executable=/bin/x)(count=2") ==
          "job.rsl:1:29: expected ')' to close the relation started at 1:21, got the end of the file");
    CHECK(rsl_error("&(executable=\"/bin/x)(count=2)") == "job.rsl:1:14: unterminated string; expected a closing \"");
    CHECK(rsl_error("&(executable=/bin/x)(count=2)(colour=blue)") ==
          "job.rsl:1:31: subjob 0: unknown attribute 'colour'; expected resourceManagerContact, count, jobType, "
          "label, environment, libraryPath, directory, stdin, stdout, stderr, account, username, strata, queue, "
          "project, maxWallTime, "
          "maxTime, hostCount, maxMemory, minMemory, dryRun, executable, arguments, stage, stageFiles, site, "
          "machine, host, processorName or network, or another attribute of GRAM's RSL schema (README: \"RSL\")");
    CHECK(rsl_error("&(executable=/bin/x)(count=four)") ==
          "job.rsl:1:28: subjob 0: 'count' must be a positive integer, got 'four'");
    CHECK(rsl_error("&(executable=/bin/x)(count=0)") ==
          "job.rsl:1:28: subjob 0: 'count' must be a positive integer, got '0'");
    CHECK(rsl_error("+( &(count=2)(executable=/bin/a) )\n ( &(count=2) )\n") ==
          "job.rsl:2:4: subjob 1: no 'executable'; add (executable=PATH)");
    CHECK(rsl_error("&(resourceManagerContact=\"anl.example.org:99999/fork\")(count=1)(executable=x)") ==
          "job.rsl:1:43: subjob 0: bad port '99999' in contact 'anl.example.org:99999/fork'; expected a number from "
          "1 to 65535");
    CHECK(rsl_error("&(resourceManagerContact=anl.example.org/jobmanager-pbs)(count=1)(executable=x)") ==
          "job.rsl:1:42: subjob 0: unknown adapter 'jobmanager-pbs' in contact 'anl.example.org/jobmanager-pbs'; "
          "expected fork, slurm, jobmanager-fork or jobmanager-slurm, or ssh[+adapter] or srun");
    CHECK(rsl_error("&(executable=x)(count=1)(environment=FOO)") ==
          "job.rsl:1:38: subjob 0: 'environment' takes (NAME value) pairs, e.g. (environment=(FOO bar))");
    CHECK(rsl_error("&(count=1)(executable=x)(COUNT=2)") ==
          "job.rsl:1:26: subjob 0: 'COUNT' is given twice (first at 1:3)");
    CHECK(rsl_error("&(executable=/bin/x)(count=1000001)") ==
          "job.rsl:1:28: subjob 0: 'count' 1000001 is too large; at most 1000000");
    CHECK(rsl_error("&(executable=/bin/x)(count=-3)") ==
          "job.rsl:1:28: subjob 0: 'count' must be a positive integer, got '-3'");
    CHECK(rsl_error("&(count=1)") == "job.rsl:1:1: subjob 0: no 'executable'; add (executable=PATH)");
    CHECK(rsl_error("&(executable=x)") == "job.rsl:1:1: subjob 0: no 'count'; add (count=N)");
    CHECK(rsl_error("  \n") ==
          "job.rsl:2:1: expected an RSL request ('&(...)') or multi-request ('+(&(...))...'), got an empty file");
    CHECK(rsl_error("&(count=1)(executable=x) extra") ==
          "job.rsl:1:26: expected the end of the file after the request, got 'e'");
    CHECK(rsl_error("&(count>1)") == "job.rsl:1:8: only '=' relations are supported; 'count' needs '='");
    CHECK(rsl_error("&(executable=$(HOME)/x)(count=1)") ==
          "job.rsl:1:14: RSL variables ($(NAME)) are not supported; write the value itself");
    CHECK(rsl_error("+(&(count=1)(executable=x)") ==
          "job.rsl:1:27: expected ')' to close the request started at 1:2, got the end of the file");
    CHECK(rsl_error("&(count=1)(executable=x)(environment=(1X y))") ==
          "job.rsl:1:39: subjob 0: '1X' is not an environment variable name");
    CHECK(rsl_error("&(count=1)(executable=x)(site=a)(environment=(GLOBUS_LAN_ID b))") ==
          "job.rsl:1:31: subjob 0: 'site' is 'a' but GLOBUS_LAN_ID is 'b'; give one");
    CHECK(rsl_error("&(count=1 2)(executable=x)") ==
          "job.rsl:1:9: subjob 0: 'count' takes a single value, got 2 values");
}

TEST_CASE("job request: malformed YAML names file, line, column and what is wrong", "[jobrequest]") {
    CHECK(yaml_error("executable: /bin/app\n"
                     "subjobs:\n"
                     "  - contact: a/fork\n"
                     "    count: 2\n"
                     "  - count: four\n") ==
          "job.yaml:5:12: subjob 1: 'count' must be a positive integer, got 'four'");
    CHECK(yaml_error("executable: x\nsubjobs:\n  - count: 0\n") ==
          "job.yaml:3:12: subjob 0: 'count' must be a positive integer, got '0'");
    CHECK(yaml_error("executable: x\ncolour: blue\nsubjobs: [{count: 1}]\n") ==
          "job.yaml:2:1: unknown key 'colour'; expected executable, arguments, environment, directory, stdin, stdout, "
          "stderr, account, "
          "strata, queue, project, max_wall_time, job_type, host_count, max_memory, min_memory, stage, bind_to, "
          "security, network or subjobs");
    CHECK(yaml_error("executable: x\nsubjobs:\n  - contact: a/fork\n    cont: 2\n") ==
          "job.yaml:4:5: subjob 0: unknown key 'cont'; expected contact, count, executable, arguments, environment, "
          "directory, stdin, stdout, stderr, account, strata, queue, project, max_wall_time, job_type, host_count, max_memory, min_memory, "
          "stage, bind_to, site, network, machine, host or "
          "processor_name");
    CHECK(yaml_error("subjobs:\n  - contact: a/fork\n    count: 2\n") ==
          "job.yaml:2:5: subjob 0: no 'executable'; give it at the top level or in the subjob");
    CHECK(yaml_error("executable: x\nsubjobs:\n  - contact: a/fork\n") ==
          "job.yaml:3:5: subjob 0: no 'count'; give the number of processes");
    CHECK(yaml_error("executable: x\nsubjobs:\n  - contact: a.example.org:0/fork\n    count: 1\n") ==
          "job.yaml:3:28: subjob 0: bad port '0' in contact 'a.example.org:0/fork'; expected a number from 1 to 65535");
    CHECK(yaml_error("executable: x\nsubjobs:\n  - contact: \"a/pbs\"\n    count: 1\n") ==
          "job.yaml:3:17: subjob 0: unknown adapter 'pbs' in contact 'a/pbs'; expected fork, slurm, jobmanager-fork "
          "or jobmanager-slurm, or ssh[+adapter] or srun");
    CHECK(yaml_error("executable: x\nstage: maybe\nsubjobs: [{count: 1}]\n") ==
          "job.yaml:2:8: 'stage' must be true, false or a list of files, got 'maybe'");
    CHECK(yaml_error("executable: x\nenvironment: [A=1]\nsubjobs: [{count: 1}]\n") ==
          "job.yaml:2:14: 'environment' must be a map of NAME: value");
    CHECK(yaml_error("executable: x\n") == "job.yaml:1:1: no 'subjobs'; list at least one subjob with its contact and count");
    CHECK(yaml_error("executable: x\nsubjobs: []\n") == "job.yaml:2:10: 'subjobs' must be a list of at least one subjob");
    CHECK(yaml_error("executable: x\nexecutable: y\nsubjobs: [{count: 1}]\n") ==
          "job.yaml:2:1: 'executable' is given twice (first at 1:1)");
    CHECK(yaml_error("executable: x\nenvironment: {GLOBUS_LAN_ID: b}\nsubjobs:\n  - {count: 1, site: a}\n") ==
          "job.yaml:4:5: subjob 0: 'site' is 'a' but GLOBUS_LAN_ID is 'b'; give one");
    CHECK(yaml("executable: x\nenvironment: {GLOBUS_LAN_ID: b}\nsubjobs:\n  - {count: 1}\n").subjobs[0].site == "b");
    CHECK(yaml_error("- just\n- a list\n") ==
          "job.yaml:1:1: expected a map with 'executable' and 'subjobs' (a YAML job file) or an RSL request starting "
          "with '&' or '+'");
    CHECK(yaml_error("executable: [x\nsubjobs: []\n").rfind("job.yaml:", 0) == 0);
}

TEST_CASE("job request: security: {data: tls} encrypts the links between sites", "[jobrequest]") {
    const JobRequest tls = yaml("executable: x\nsecurity: {data: tls}\nsubjobs:\n  - {contact: a/fork, count: 1}\n"
                                "  - {contact: b/fork, count: 2, environment: {OTHER: 1}}\n");
    REQUIRE(tls.subjobs.size() == 2);
    CHECK(env_of(tls.subjobs[0]) == std::vector<std::string>{"STRATA_DATA_TLS=wan"});
    CHECK(env_of(tls.subjobs[1]) == std::vector<std::string>{"OTHER=1", "STRATA_DATA_TLS=wan"});
    // A subjob's own setting stays; plain is the default.
    const JobRequest own = yaml("executable: x\nsecurity: {data: tls}\nsubjobs:\n"
                                "  - {count: 1, environment: {STRATA_DATA_TLS: all}}\n");
    CHECK(env_of(own.subjobs[0]) == std::vector<std::string>{"STRATA_DATA_TLS=all"});
    CHECK(env_of(yaml("executable: x\nsecurity: {data: plain}\nsubjobs: [{count: 1}]\n").subjobs[0]).empty());
    CHECK(yaml_error("executable: x\nsecurity: {data: yes}\nsubjobs: [{count: 1}]\n") ==
          "job.yaml:2:18: 'data' must be tls (links between sites encrypted) or plain, not 'yes'");
    CHECK(yaml_error("executable: x\nsecurity: {cipher: aes}\nsubjobs: [{count: 1}]\n") ==
          "job.yaml:2:12: unknown security setting 'cipher'; expected data");
    CHECK(yaml_error("executable: x\nsecurity: tls\nsubjobs: [{count: 1}]\n") ==
          "job.yaml:2:11: 'security' must be a map such as {data: tls}");
}

TEST_CASE("machine file: contact lines, and their errors with a column", "[machinefile][jobrequest]") {
    const MachineFile mf = machines("anl.example.org:2119/fork 8\n  node7/jobmanager-slurm\nplain 2\n");
    REQUIRE(mf.entries().size() == 3);
    CHECK(mf.entries()[0].host == "anl.example.org");
    CHECK(mf.entries()[0].slots == 8);
    CHECK(mf.entries()[0].contact == Contact{"anl.example.org", 2119, AdapterKind::fork});
    CHECK(mf.entries()[1].contact == Contact{"node7", 2119, AdapterKind::slurm});
    CHECK(mf.entries()[1].slots == 1);
    CHECK_FALSE(mf.entries()[2].contact);
    std::string error = failure_of(MachineFile::parse("anl.example.org:99999/fork 8\n", "hosts"));
    CHECK(error ==
          "hosts:1:17: bad port '99999' in contact 'anl.example.org:99999/fork'; expected a number from 1 to 65535");
    error = failure_of(MachineFile::parse("ok\n  anl.example.org/pbs 2\n", "hosts"));
    CHECK(error == "hosts:2:19: unknown adapter 'pbs' in contact 'anl.example.org/pbs'; expected fork, slurm, "
                   "jobmanager-fork or jobmanager-slurm, or ssh[+adapter] or srun");
    error = failure_of(MachineFile::parse("a/fork 0\n", "hosts"));
    CHECK(error == "hosts:1: process count must be at least 1");
}

TEST_CASE("job request: the network key sets STRATA_EMULATION in every subjob", "[jobrequest]") {
    const JobRequest job = yaml("executable: /bin/app\n"
                                "network:\n"
                                "  wan: {latency_ms: 10, bandwidth_mbit: 100}\n"
                                "  lan: {latency_ms: 0.5}\n"
                                "  links:\n"
                                "    - {sites: [A, B], latency_ms: 30, bandwidth_mbit: 50}\n"
                                "subjobs:\n"
                                "  - {count: 1, site: A}\n"
                                "  - {count: 1, site: B, environment: {STRATA_EMULATION: 'wan:latency_ms=1'}}\n"
                                "  - {count: 1, contact: c.example.org}\n");
    const std::string want =
        "STRATA_EMULATION=wan:latency_ms=10,bandwidth_mbit=100;lan:latency_ms=0.5;A/B:latency_ms=30,bandwidth_mbit=50";
    CHECK(env_of(job.subjobs[0]) == std::vector<std::string>{want});
    // A subjob's own setting wins.
    CHECK(env_of(job.subjobs[1]) == std::vector<std::string>{"STRATA_EMULATION=wan:latency_ms=1"});
    CHECK(env_of(job.subjobs[2]) == std::vector<std::string>{want});
    // The contact's host is a site too.
    CHECK(yaml("executable: x\nnetwork: {links: [{sites: [A, c.example.org], latency_ms: 1}]}\n"
               "subjobs: [{count: 1, site: A}, {count: 1, contact: c.example.org}]\n")
              .subjobs.size() == 2);
}

TEST_CASE("job request: network's uplink, shared by everything a site sends to other sites", "[jobrequest]") {
    const JobRequest job = yaml("executable: /bin/app\n"
                                "network: {wan: {latency_ms: 10}, uplink: {bandwidth_mbit: 100}}\n"
                                "subjobs: [{count: 1, site: A}, {count: 1, site: B}]\n");
    CHECK(env_of(job.subjobs[0]) ==
          std::vector<std::string>{"STRATA_EMULATION=wan:latency_ms=10;uplink:bandwidth_mbit=100"});
}

TEST_CASE("job request: network's window and streams", "[jobrequest]") {
    const JobRequest job = yaml("executable: /bin/app\n"
                                "network:\n"
                                "  wan: {latency_ms: 10, window_kib: 64}\n"
                                "  streams: 4\n"
                                "subjobs:\n"
                                "  - {count: 1, site: A}\n"
                                "  - {count: 1, site: B, environment: {STRATA_TCP_STREAMS: '2'}}\n");
    CHECK(env_of(job.subjobs[0]) ==
          std::vector<std::string>{"STRATA_EMULATION=wan:latency_ms=10,window_kib=64", "STRATA_TCP_STREAMS=4"});
    // A subjob's own setting wins.
    CHECK(env_of(job.subjobs[1]) ==
          std::vector<std::string>{"STRATA_TCP_STREAMS=2", "STRATA_EMULATION=wan:latency_ms=10,window_kib=64"});
    // Streams without emulation.
    CHECK(env_of(yaml("executable: x\nnetwork: {streams: 8}\nsubjobs: [{count: 1}]\n").subjobs[0]) ==
          std::vector<std::string>{"STRATA_TCP_STREAMS=8"});
}

TEST_CASE("job request: a bad network key names the place and what is wrong", "[jobrequest]") {
    const std::string subjobs = "subjobs: [{count: 1, site: A}, {count: 1, site: B}]\n";
    CHECK(yaml_error("executable: x\nnetwork: {man: {latency_ms: 1}}\n" + subjobs) ==
          "job.yaml:2:11: unknown level 'man' in 'network'; expected wan (between sites), lan (between machines of a "
          "site), uplink (each site's own, shared by all it sends to other sites), links or streams");
    CHECK(yaml_error("executable: x\nnetwork: {uplink: {latency_ms: 1, bandwidth_mbit: 10}}\n" + subjobs) ==
          "job.yaml:2:19: 'uplink': an uplink has a bandwidth only (bandwidth_mbit): latency and window are the wide "
          "area's (wan)");
    CHECK(yaml_error("executable: x\nnetwork: {wan: {latency_ms: -1}}\n" + subjobs) ==
          "job.yaml:2:29: 'latency_ms' must not be negative, got -1");
    CHECK(yaml_error("executable: x\nnetwork: {wan: {bandwidth_mbit: fast}}\n" + subjobs) ==
          "job.yaml:2:33: 'bandwidth_mbit' must be a number, not 'fast'");
    CHECK(yaml_error("executable: x\nnetwork: {lan: {delay: 3}}\n" + subjobs) ==
          "job.yaml:2:17: unknown key 'delay' in 'lan'; expected latency_ms, bandwidth_mbit, window_kib or premium_mbit");
    CHECK(yaml_error("executable: x\nnetwork: {links: [{sites: [A, B], delay: 3}]}\n" + subjobs) ==
          "job.yaml:2:35: unknown key 'delay' in 'links'; expected latency_ms, bandwidth_mbit, window_kib, premium_mbit or sites");
    CHECK(yaml_error("executable: x\nnetwork: {wan: {window_kib: -8}}\n" + subjobs) ==
          "job.yaml:2:29: 'window_kib' must not be negative, got -8");
    CHECK(yaml_error("executable: x\nnetwork: {streams: 0}\n" + subjobs) ==
          "job.yaml:2:20: 'streams': '0' is not a number of streams; expected 1 to 16");
    CHECK(yaml_error("executable: x\nnetwork: {streams: [4]}\n" + subjobs) ==
          "job.yaml:2:20: 'streams': '' is not a number of streams; expected 1 to 16");
    CHECK(yaml_error("executable: x\nnetwork: {wan: {}}\n" + subjobs) ==
          "job.yaml:2:16: 'wan' gives none of latency_ms, bandwidth_mbit, window_kib or premium_mbit");
    CHECK(yaml_error("executable: x\nnetwork: {links: [{sites: [A, C], latency_ms: 5}]}\n" + subjobs) ==
          "job.yaml:2:31: 'network' names site 'C', which no subjob is at");
    CHECK(yaml_error("executable: x\nnetwork: {links: [{latency_ms: 5}]}\n" + subjobs) ==
          "job.yaml:2:19: 'links' needs 'sites: [A, B]'");
    CHECK(yaml_error("executable: x\nnetwork: {links: [{sites: [A], latency_ms: 5}]}\n" + subjobs) ==
          "job.yaml:2:27: 'sites' must name two sites, e.g. [anl, ncsa]");
}

TEST_CASE("job request: bind_to sets STRATA_BIND_TO, at the top level or per subjob", "[jobrequest]") {
    const JobRequest job = yaml("executable: x\n"
                                "bind_to: socket\n"
                                "subjobs:\n"
                                "  - {count: 1}\n"
                                "  - {count: 2, bind_to: none}\n"
                                "  - {count: 1, environment: {STRATA_BIND_TO: core}}\n");
    REQUIRE(job.subjobs.size() == 3);
    CHECK(env_of(job.subjobs[0]) == std::vector<std::string>{"STRATA_BIND_TO=socket"});
    CHECK(env_of(job.subjobs[1]) == std::vector<std::string>{"STRATA_BIND_TO=none"});
    // A subjob's own variable wins.
    CHECK(env_of(job.subjobs[2]) == std::vector<std::string>{"STRATA_BIND_TO=core"});
    // Unset: the default rule, nothing in the environment.
    CHECK(env_of(yaml("executable: x\nsubjobs: [{count: 1}]\n").subjobs[0]).empty());
    CHECK(yaml_error("executable: x\nbind_to: cores\nsubjobs: [{count: 1}]\n") ==
          "job.yaml:2:10: 'bind_to' must be core, socket or none, not 'cores'");
    CHECK(yaml_error("executable: x\nsubjobs:\n  - {count: 1, bind_to: [core]}\n") ==
          "job.yaml:3:25: subjob 0: 'bind_to' must be core, socket or none");
}

TEST_CASE("job request: a setting in the environment is checked as the processes would check it", "[jobrequest]") {
    // wireup/settings.hpp's rows: a value MPI_Init would refuse stops the job
    // file here, at the value's position; other variables pass untouched.
    CHECK(yaml_error("executable: x\nenvironment: {STRATA_DATA_TLS: tls}\nsubjobs: [{count: 1}]\n") ==
          "job.yaml:2:32: STRATA_DATA_TLS='tls': expected off, wan or all");
    CHECK(yaml_error("executable: x\nsubjobs:\n  - {count: 1, environment: {STRATA_NETWORK: 'fd00::/8'}}\n") ==
          "job.yaml:3:46: subjob 0: STRATA_NETWORK='fd00::/8': expected an interface name (e.g. eth0) or an IPv4 "
          "subnet in CIDR form (e.g. 10.1.0.0/16)");
    CHECK(rsl_error("&(count=1)(executable=x)(environment=(STRATA_TCP_STREAMS 17))") ==
          "job.rsl:1:58: subjob 0: STRATA_TCP_STREAMS='17': expected 1 to 16 connections per link between sites");
    const JobRequest fine = yaml("executable: x\nenvironment: {STRATA_DATA_TLS: all, STRATA_NETWORK: '', OTHER: tls}\n"
                                 "subjobs: [{count: 1}]\n");
    CHECK(env_of(fine.subjobs[0]) ==
          std::vector<std::string>{"STRATA_DATA_TLS=all", "STRATA_NETWORK=", "OTHER=tls"});
}

TEST_CASE("job request: queue, project and wall time, in YAML and RSL alike, and back", "[jobrequest]") {
    const JobRequest y = yaml("executable: x\nqueue: short\nmax_wall_time: 90\nsubjobs:\n"
                              "  - {contact: a/ssh+slurm, count: 2, project: phys}\n"
                              "  - {contact: b/slurm, count: 1, queue: long}\n");
    CHECK(y.subjobs[0].batch == Batch{"short", "phys", 90});
    CHECK(y.subjobs[1].batch == Batch{"long", "", 90});
    const JobRequest r = rsl("+( &(resourceManagerContact=\"a/ssh+slurm\")(count=2)(executable=x)(queue=short)"
                             "(project=phys)(maxWallTime=90) )"
                             "( &(resourceManagerContact=\"b/slurm\")(count=1)(executable=x)(queue=long)"
                             "(maxWallTime=90) )");
    CHECK(r == y);
    CHECK(rsl(job_request_rsl(y)) == y);
    CHECK(yaml_error("executable: x\nmax_wall_time: 0\nsubjobs: [{count: 1}]\n") ==
          "job.yaml:2:16: 'max_wall_time' must be minutes from 1 to 525600, got '0'");
    CHECK(rsl_error("&(executable=x)(count=1)(maxWallTime=ten)") ==
          "job.rsl:1:38: subjob 0: 'maxWallTime' must be minutes from 1 to 525600, got 'ten'");
}

// MPICH-G2's users wrote multi-requests like this one, with DUROC's subjob
// index and GRAM's attributes; every attribute is read, applied or said.
TEST_CASE("job request: an MPICH-G2 multi-request with GRAM's attributes", "[jobrequest]") {
    const std::string text =
        "+\n"
        "( &(resourceManagerContact=\"clstr.site1.org/jobmanager-slurm\")\n"
        "   (count=8)\n"
        "   (hostCount=2)\n"
        "   (jobtype=mpi)\n"
        "   (label=\"subjob 0\")\n"
        "   (environment=(GLOBUS_DUROC_SUBJOB_INDEX 0)\n"
        "                (LD_LIBRARY_PATH /opt/globus/lib))\n"
        "   (library_path=/opt/app/lib)\n"
        "   (directory=\"/home/smith\")\n"
        "   (executable=\"/home/smith/myapp\")\n"
        "   (arguments=\"123\" \"456\")\n"
        "   (maxWallTime=30)(maxMemory=512)(minMemory=256)(queue=batch)(project=TG-ABC)\n"
        "   (gramMyjob=collective)\n"
        ")\n"
        "( &(resourceManagerContact=\"clstr.site2.org\")\n"
        "   (count=4)\n"
        "   (jobType=multiple)\n"
        "   (label=\"subjob 8\")\n"
        "   (environment=(GLOBUS_DUROC_SUBJOB_INDEX 1))\n"
        "   (directory=\"/home/smith\")\n"
        "   (executable=\"/home/smith/myapp\")\n"
        "   (arguments=\"123\" \"456\")\n"
        "   (max_time=30)(min_memory=256)(username=smith)(dryRun=no)\n"
        ")\n";
    auto r = parse_job_rsl(text, "g2.rsl");
    REQUIRE(r);
    REQUIRE(r->subjobs.size() == 2);
    const SubjobRequest& a = r->subjobs[0];
    CHECK(a.count == 8);
    CHECK(a.batch == Batch{"batch", "TG-ABC", 30, 2, 512});
    CHECK(a.command.env == Environment{{"GLOBUS_DUROC_SUBJOB_INDEX", "0"},
                                       {"LD_LIBRARY_PATH", "/opt/globus/lib:/opt/app/lib"}});
    CHECK(a.command.args == std::vector<std::string>{"123", "456"});
    const SubjobRequest& b = r->subjobs[1];
    CHECK(b.batch == Batch{"", "", 30, 0, 0});  // a fork contact: memory is said, not applied
    CHECK(b.account == "smith");
    CHECK(r->ignored == std::vector<std::string>{
                            "14:5: 'gramMyjob': obsolete, and ignored by GRAM itself",
                            "24:29: 'min_memory': memory is asked of Slurm; the fork adapter sets no limit"});
    // What it applies prints back and reads back alike.
    CHECK(rsl(job_request_rsl(*r)) == *r);
    // YAML says the same with its own keys.
    const JobRequest y = yaml("executable: /home/smith/myapp\narguments: ['123', '456']\ndirectory: /home/smith\n"
                              "max_wall_time: 30\nsubjobs:\n"
                              "  - {contact: clstr.site1.org/jobmanager-slurm, count: 8, host_count: 2, job_type: mpi,\n"
                              "     max_memory: 512, min_memory: 256, queue: batch, project: TG-ABC,\n"
                              "     environment: {GLOBUS_DUROC_SUBJOB_INDEX: '0', LD_LIBRARY_PATH: "
                              "'/opt/globus/lib:/opt/app/lib'}}\n"
                              "  - {contact: clstr.site2.org, count: 4, job_type: multiple, min_memory: 256,\n"
                              "     account: smith, environment: {GLOBUS_DUROC_SUBJOB_INDEX: '1'}}\n");
    CHECK(y == *r);
}

TEST_CASE("job request: GRAM attributes Strata cannot honour are refused with what to do instead", "[jobrequest]") {
    const std::string head = "&(executable=x)(count=4)";
    CHECK(rsl_error(head + "(jobType=single)") ==
          "job.rsl:1:34: subjob 0: 'jobType=single' starts one process, not an MPI job; Strata starts 'count' "
          "processes as ranks of one MPI_COMM_WORLD (jobType mpi or multiple)");
    CHECK(rsl_error(head + "(jobtype=condor)") ==
          "job.rsl:1:34: subjob 0: 'jobtype=condor' needs Condor; Strata starts processes with its fork or slurm "
          "adapter (jobType mpi or multiple)");
    CHECK(rsl_error(head + "(restart=\"https://h:1/123\")") ==
          "job.rsl:1:26: subjob 0: 'restart' cannot be honoured: Strata does not restart a GRAM job; run the job "
          "again");
    CHECK(rsl_error(head + "(file_stage_in=(\"gsiftp://h/x\" x))") ==
          "job.rsl:1:26: subjob 0: 'file_stage_in' cannot be honoured: GASS URLs are not read; stage local files "
          "with (stageFiles=...)");
    CHECK(rsl_error(head + "(dryRun=yes)") ==
          "job.rsl:1:33: subjob 0: 'dryRun=yes': Strata has no dry run; mpirun -dumprsl prints the job without "
          "running it");
    CHECK(rsl_error(head + "(hostCount=2)") ==
          "job.rsl:1:36: subjob 0: 'hostCount=2': the fork adapter runs every process on this host; to spread the "
          "subjob over emulated nodes, give it a host identity ('host')");
    CHECK(rsl_error("&(resourceManagerContact=\"h/slurm\")" + head.substr(1) + "(hostCount=5)") ==
          "job.rsl:1:70: subjob 0: 'hostCount' must be a number of hosts from 1 to the subjob's count (4), got '5'");
    CHECK(rsl_error("&(resourceManagerContact=\"h/slurm\")" + head.substr(1) + "(maxMemory=100)(minMemory=200)") ==
          "job.rsl:1:85: subjob 0: 'minMemory' (200) is more than 'maxMemory' (100)");
    CHECK(rsl_error(head + "(maxTime=10)(maxWallTime=20)") ==
          "job.rsl:1:34: subjob 0: 'maxTime' is '10' but 'maxWallTime' is '20'; give one");
    CHECK(rsl_error(head + "(account=a)(username=b)") ==
          "job.rsl:1:46: subjob 0: 'username' is 'b' but 'account' is 'a'; give one");
    CHECK(yaml_error("executable: x\njob_type: single\nsubjobs: [{count: 1}]\n") ==
          "job.yaml:2:11: 'job_type=single' starts one process, not an MPI job; Strata starts 'count' processes as "
          "ranks of one MPI_COMM_WORLD (jobType mpi or multiple)");
    CHECK(yaml_error("executable: x\nsubjobs: [{contact: h/slurm, count: 2, host_count: 3}]\n") ==
          "job.yaml:2:52: subjob 0: 'host_count' must be a number of hosts from 1 to the subjob's count (2), got '3'");
}

TEST_CASE("job request: stdin, stdout and stderr files at the site, in RSL and YAML alike, and back", "[jobrequest]") {
    const JobRequest r = rsl("&(executable=x)(count=2)(directory=/run)(stdin=in.txt)(stdout=\"/abs/out\")"
                             "(stderr=err.txt)");
    const Command& c = r.subjobs[0].command;
    CHECK(c.stdin_file == "in.txt");
    CHECK(c.stdout_file == "/abs/out");
    CHECK(c.stderr_file == "err.txt");
    CHECK(rsl(job_request_rsl(r)) == r);
    const JobRequest y = yaml("executable: x\ndirectory: /run\nstdin: in.txt\nstdout: /abs/out\n"
                              "subjobs: [{count: 2, stderr: err.txt}]\n");
    CHECK(y == r);
}

TEST_CASE("job request: a private site, in YAML and RSL alike, and back", "[jobrequest]") {
    const JobRequest y = yaml("executable: x\nsubjobs:\n"
                              "  - {contact: a/ssh, count: 2, network: private}\n"
                              "  - {contact: b/ssh, count: 1, network: public}\n");
    CHECK(y.subjobs[0].network_private);
    CHECK_FALSE(y.subjobs[1].network_private);
    const JobRequest r = rsl("+( &(resourceManagerContact=\"a/ssh\")(count=2)(executable=x)(network=private) )"
                             "( &(resourceManagerContact=\"b/ssh\")(count=1)(executable=x) )");
    CHECK(r == y);
    CHECK(rsl(job_request_rsl(y)) == y);
    CHECK(yaml_error("executable: x\nsubjobs: [{count: 1, network: hidden}]\n") ==
          "job.yaml:2:31: subjob 0: 'network' is 'hidden'; expected private (no other site can connect to its processes: a "
          "relay carries their traffic) or public");
    CHECK(rsl_error("&(executable=x)(count=1)(network=nat)") ==
          "job.rsl:1:34: subjob 0: 'network' is 'nat'; expected private (no other site can connect to its "
          "processes: a relay carries their traffic) or public");
}

TEST_CASE("hostCount with an emulated host at a fork contact: that many emulated nodes, filled as Slurm's blocks") {
    const JobRequest r = yaml("executable: /bin/x\nsubjobs:\n  - {count: 5, host: sp, host_count: 3}\n"
                              "  - {count: 4, host: o2k}\n");
    const strata::job::JobPlan plan = strata::job::JobPlan::from_request(r, kHere);
    REQUIRE(plan.subjobs.size() == 2);
    const Subjob& sp = plan.subjobs[0];
    CHECK(sp.host_nodes == 3);
    CHECK(sp.batch.host_count == 0);  // mpirun's doing: the fork adapter starts them here
    std::vector<int> nodes;
    for (int i = 0; i < sp.count; ++i) nodes.push_back(sp.host_node(i));
    CHECK(nodes == std::vector<int>{0, 0, 1, 1, 2});
    CHECK(plan.subjobs[1].host_nodes == 0);
    CHECK(plan.subjobs[1].host_node(3) == 0);
    // RSL alike; -dumprsl still shows the hostCount asked for.
    const JobRequest same = rsl("&(count=5)(executable=/bin/x)(host=sp)(hostCount=3)");
    CHECK(strata::job::JobPlan::from_request(same, kHere).subjobs[0].host_nodes == 3);
    // 16 over 4 nodes: 4 each.
    Subjob llnl;
    llnl.count = 16;
    llnl.host_nodes = 4;
    for (int i = 0; i < 16; ++i) CHECK(llnl.host_node(i) == i / 4);
}
