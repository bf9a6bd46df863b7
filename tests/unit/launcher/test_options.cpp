#include "launcher/options.hpp"

#include <catch2/catch.hpp>

using strata::launcher::Options;
namespace wireup = strata::wireup;

namespace {

std::optional<Options> parse(std::vector<std::string> args) {
    auto o = Options::parse(args);
    if (!o) return std::nullopt;
    return *o;
}

std::string error_of(std::vector<std::string> args) {
    auto o = Options::parse(args);
    CHECK_FALSE(o);
    return o.error();
}

}  // namespace

TEST_CASE("options: everything, then the program and its own options", "[options]") {
    auto o = parse({"-np",         "4",         "-machinefile", "hosts", "-l", "-net", "10.1.0.0/16",
                    "-port-range", "4000:4100", "-x",           "A=1",   "-x", "B",    "-x",
                    "C=",          "-v",        "./prog",       "-np",   "9",  "--",   "x"});
    REQUIRE(o);
    CHECK(o->np == 4);
    CHECK(o->machinefile == "hosts");
    CHECK(o->label);
    CHECK(o->setting(wireup::kNetwork) == "10.1.0.0/16");
    CHECK(o->setting(wireup::kPortRange) == "4000:4100");
    REQUIRE(o->exports.size() == 3);
    CHECK((o->exports[0].first == "A" && o->exports[0].second == "1"));
    CHECK((o->exports[1].first == "B" && !o->exports[1].second));
    CHECK((o->exports[2].first == "C" && o->exports[2].second == ""));
    CHECK(o->verbose);
    CHECK(o->setting(wireup::kVerbose) == "1");
    // What every process receives, in the order given.
    CHECK(o->settings == decltype(o->settings){{&wireup::kNetwork, "10.1.0.0/16"},
                                               {&wireup::kPortRange, "4000:4100"},
                                               {&wireup::kVerbose, "1"}});
    CHECK_FALSE(o->help);
    CHECK(o->program == "./prog");
    CHECK(o->args == std::vector<std::string>{"-np", "9", "--", "x"});
}

TEST_CASE("options: short spellings, defaults and --", "[options]") {
    auto o = parse({"-n", "2", "-f", "m", "hostname"});
    REQUIRE(o);
    CHECK(o->np == 2);
    CHECK(o->machinefile == "m");
    CHECK_FALSE(o->label);
    CHECK(o->program == "hostname");
    CHECK(o->args.empty());

    o = parse({"prog"});
    REQUIRE(o);
    CHECK(o->np == 0);
    CHECK(o->machinefile.empty());

    o = parse({"--", "-weird-program-name", "a"});
    REQUIRE(o);
    CHECK(o->program == "-weird-program-name");
    CHECK(o->args == std::vector<std::string>{"a"});

    for (const char* net : {"eth0", "ib0", "eno1.100", "192.168.0.0/24", "0.0.0.0/0"}) {
        INFO(net);
        CHECK(parse({"-net", net, "p"}));
    }
    // An option given twice: the last value, once.
    o = parse({"-net", "eth0", "-exclude", "shm", "-net", "ib0", "p"});
    REQUIRE(o);
    CHECK(o->settings ==
          decltype(o->settings){{&wireup::kExcludeMethods, "shm"}, {&wireup::kNetwork, "ib0"}});
}

TEST_CASE("options: help stops parsing", "[options]") {
    for (const char* h : {"-h", "--help"}) {
        auto o = parse({"-np", "2", h});
        REQUIRE(o);
        CHECK(o->help);
    }
}

TEST_CASE("options: every bad command line is refused with a reason", "[options]") {
    CHECK(error_of({}) == "no program to run");
    CHECK(error_of({"-np", "3"}) == "no program to run");
    CHECK(error_of({"-np"}) == "option -np needs a value");
    CHECK(error_of({"-x"}) == "option -x needs a value");
    CHECK(error_of({"-bogus", "p"}) == "unknown option '-bogus'");
    CHECK(error_of({"--np", "2", "p"}) == "unknown option '--np'");
    for (const char* n : {"0", "-1", "abc", "2x", "", "1000001", "99999999999"}) {
        INFO(n);
        CHECK(error_of({"-np", n, "p"}) ==
              std::string("option -np expects a number of processes from 1 to 1000000, not '") + n + "'");
    }
    CHECK(error_of({"-f", "", "p"}) == "option -f expects a file name");
    for (const char* r : {"1", "5:1", "0:10", "1:65536", "a:b", ":", "10:"}) {
        INFO(r);
        CHECK(error_of({"-port-range", r, "p"}) ==
              std::string("option -port-range expects LO:HI with 1 <= LO <= HI <= 65535 (e.g. 50000:50100), not '") +
                  r + "'");
    }
    // What the library refuses, mpirun refuses: it takes IPv4 subnets, not
    // addresses or IPv6 networks.
    for (const char* net : {"", "10.0.0.0/33", "fd00::/8", "fd00::/129", "10.0.0.0/x", "eth0/8",
                            "a-very-long-interface-name", "et h0", "10.0.0.1/"}) {
        INFO(net);
        CHECK(error_of({"-net", net, "p"}).rfind("option -net expects an interface name", 0) == 0);
    }
    // A setting passed with -x is checked as every process would check it.
    CHECK(error_of({"-x", "STRATA_BIND_TO=cores", "p"}) == "STRATA_BIND_TO='cores': expected core, socket or none");
    CHECK(error_of({"-x", "STRATA_EMULATION=wan:latency_ms=-1", "p"}) ==
          "STRATA_EMULATION='wan:latency_ms=-1': 'wan': 'latency_ms' must not be negative, got -1");
    CHECK(parse({"-x", "STRATA_BIND_TO=", "-x", "STRATA_BIND_TO", "-x", "STRATA_DATA_TLS=wan", "p"}));
    for (const char* x : {"=1", "1A=2", "A-B=3", ""}) {
        INFO(x);
        CHECK(error_of({"-x", x, "p"}) ==
              std::string("option -x expects NAME or NAME=VALUE with NAME an environment variable name, not '") + x +
                  "'");
    }
}

TEST_CASE("options: -commfile and -gencomm, one or the other", "[options]") {
    auto o = parse({"-commfile", "comms.xml", "-np", "2", "prog"});
    REQUIRE(o);
    CHECK(o->commfile == "comms.xml");
    CHECK_FALSE(o->gencomm);
    o = parse({"-gencomm", "-jobfile", "job.yaml"});
    REQUIRE(o);
    CHECK((o->gencomm && o->commfile.empty() && o->jobfile == "job.yaml"));
    CHECK(error_of({"-commfile"}) == "option -commfile needs a value");
    CHECK(error_of({"-commfile", "", "prog"}) == "option -commfile expects a file name");
    CHECK(error_of({"-gencomm", "-commfile", "c.xml", "prog"}) ==
          "options -commfile and -gencomm both give the communicator file; choose one");
}

TEST_CASE("options: -jobfile replaces the program, -dumprsl", "[options]") {
    auto o = parse({"-dumprsl", "-jobfile", "job.yaml", "-l"});
    REQUIRE(o);
    CHECK(o->jobfile == "job.yaml");
    CHECK(o->dumprsl);
    CHECK(o->label);
    CHECK(o->program.empty());
    o = parse({"-dumprsl", "-np", "2", "prog", "a"});
    REQUIRE(o);
    CHECK((o->dumprsl && o->np == 2 && o->program == "prog"));
    CHECK(error_of({"-jobfile"}) == "option -jobfile needs a value");
    CHECK(error_of({"-jobfile", ""}) == "option -jobfile expects a file name");
    CHECK(error_of({"-jobfile", "j", "-np", "2"}) ==
          "option -jobfile describes the whole job; do not combine it with -np or -machinefile");
    CHECK(error_of({"-f", "m", "-jobfile", "j"}) ==
          "option -jobfile describes the whole job; do not combine it with -np or -machinefile");
    CHECK(error_of({"-jobfile", "j", "prog"}) == "option -jobfile names the program; unexpected 'prog' on the command line");
    CHECK(error_of({"-dumprsl"}) == "no program to run");
}

TEST_CASE("options: -bind-to and --bind-to take core, socket or none", "[options]") {
    CHECK(parse({"-bind-to", "core", "p"})->setting(wireup::kBindTo) == "core");
    CHECK(parse({"--bind-to", "socket", "p"})->setting(wireup::kBindTo) == "socket");
    CHECK(parse({"-bind-to", "none", "p"})->setting(wireup::kBindTo) == "none");
    CHECK(parse({"p"})->settings.empty());
    for (const char* bad : {"cores", "", "hwthread", "CORE"}) {
        INFO(bad);
        CHECK(error_of({"-bind-to", bad, "p"}) ==
              std::string("option -bind-to expects core, socket or none, not '") + bad + "'");
    }
    CHECK(error_of({"--bind-to", "l3", "p"}) == "option --bind-to expects core, socket or none, not 'l3'");
    CHECK(error_of({"-bind-to"}) == "option -bind-to needs a value");
    const std::string usage = strata::launcher::options_usage();
    CHECK(usage.find("\n  -bind-to WHAT ") != std::string::npos);
    CHECK(usage.find("also --bind-to") != std::string::npos);
}
