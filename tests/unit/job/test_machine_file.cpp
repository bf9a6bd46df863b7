#include "job/machine_file.hpp"

#include <catch2/catch.hpp>
#include "tests/unit/result_check.hpp"

#include <unistd.h>

#include <cstdio>
#include <fstream>

using strata::job::MachineFile;

using strata::test::failure_of;

namespace {

std::string error_of(const std::string& text) { return failure_of(MachineFile::parse(text, "hosts")); }

}  // namespace

TEST_CASE("machine file: the three forms, comments and blank lines", "[machinefile]") {
    auto mf = MachineFile::parse(
        "# cluster\n"
        "\n"
        "node1\n"
        "  node2   4   # trailing comment\n"
        "node3:2\r\n"
        "\tnode-4.example.org\t3\n"
        "10.0.0.1:5\n"
        "[::1]:2\n"
        "fe80::1\n"
        "[::1]\n",
        "hosts");
    REQUIRE(mf);
    CHECK(mf.error().empty());
    const auto& e = mf->entries();
    REQUIRE(e.size() == 8);
    CHECK((e[0].host == "node1" && e[0].slots == 1 && e[0].line == 3));
    CHECK((e[1].host == "node2" && e[1].slots == 4 && e[1].line == 4));
    CHECK((e[2].host == "node3" && e[2].slots == 2 && e[2].line == 5));
    CHECK((e[3].host == "node-4.example.org" && e[3].slots == 3));
    CHECK((e[4].host == "10.0.0.1" && e[4].slots == 5));
    CHECK((e[5].host == "::1" && e[5].slots == 2));
    CHECK((e[6].host == "fe80::1" && e[6].slots == 1));
    CHECK((e[7].host == "::1" && e[7].slots == 1));
    CHECK(mf->slots_total() == 1 + 4 + 2 + 3 + 5 + 2 + 1 + 1);
    CHECK(mf->path() == "hosts");
}

TEST_CASE("machine file: every malformed line names file, line and what was expected", "[machinefile]") {
    CHECK(error_of("a\nb:\n") ==
          "hosts:2: missing process count after ':'; expected 'host:N' with N a positive integer");
    CHECK(error_of("node x\n") == "hosts:1: 'x' is not a process count; expected a positive integer");
    CHECK(error_of("node:x\n") == "hosts:1: 'x' is not a process count; expected a positive integer");
    CHECK(error_of("node -2\n") == "hosts:1: '-2' is not a process count; expected a positive integer");
    CHECK(error_of("node 0\n") == "hosts:1: process count must be at least 1");
    CHECK(error_of("node:0\n") == "hosts:1: process count must be at least 1");
    CHECK(error_of("node 1000001\n") == "hosts:1: process count 1000001 is too large; at most 1000000 per line");
    CHECK(error_of("node 99999999999999\n") ==
          "hosts:1: process count 99999999999999 is too large; at most 1000000 per line");
    CHECK(error_of("# c\n\nnode 2 3\n") ==
          "hosts:3: unexpected '3' after the process count; expected 'host', 'host N' or 'host:N'");
    CHECK(error_of("node:2 3\n") ==
          "hosts:1: process count given twice ('node:2' and '3'); expected 'host', 'host N' or 'host:N'");
    CHECK(error_of(":4\n") == "hosts:1: missing host name before ':'; expected 'host', 'host N' or 'host:N'");
    CHECK(error_of("no$de\n") == "hosts:1: 'no$de' is not a valid host name; expected 'host', 'host N' or 'host:N'");
    CHECK(error_of("-node\n") == "hosts:1: '-node' is not a valid host name; expected 'host', 'host N' or 'host:N'");
    CHECK(error_of("no$de:2\n") == "hosts:1: 'no$de' is not a valid host name; expected 'host', 'host N' or 'host:N'");
    CHECK(error_of("[::1\n") == "hosts:1: '[::1' has no closing ']'; expected '[address]' or '[address]:N'");
    CHECK(error_of("[::1]x\n") == "hosts:1: unexpected 'x' after '[::1]'; expected '[address]:N'");
    CHECK(error_of("[node1]:2\n") == "hosts:1: 'node1' is not an IPv6 address; brackets are for IPv6 literals");
    CHECK(error_of("[::1]:\n") ==
          "hosts:1: missing process count after ':'; expected '[address]:N' with N a positive integer");
    CHECK(error_of("1::2::3\n") ==
          "hosts:1: '1::2::3' is not a valid IPv6 address; write '[address]:N' to give an IPv6 host a count");
}

TEST_CASE("machine file: a file without hosts is an error", "[machinefile]") {
    CHECK(error_of("") == "hosts: lists no hosts; expected 'host', 'host N' or 'host:N', one per line");
    CHECK(error_of("# only\n\n   \n") == "hosts: lists no hosts; expected 'host', 'host N' or 'host:N', one per line");
}

TEST_CASE("machine file: load reads the file and reports unreadable ones", "[machinefile]") {
    char path[] = "/tmp/strata-machinefile-XXXXXX";
    const int fd = ::mkstemp(path);
    REQUIRE(fd >= 0);
    ::close(fd);
    std::ofstream(path) << "localhost 2\n";
    auto mf = MachineFile::load(path);
    REQUIRE(mf);
    CHECK(mf->slots_total() == 2);
    ::unlink(path);

    std::string error = failure_of(MachineFile::load(path));
    CHECK(error == std::string("cannot read machine file '") + path + "': No such file or directory");
    error = failure_of(MachineFile::load("/"));
    CHECK(error == "cannot read machine file '/': Is a directory");
}
