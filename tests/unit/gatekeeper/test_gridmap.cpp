#include "gatekeeper/gridmap.hpp"

#include "../security/scratch_dir.hpp"

#include <catch2/catch.hpp>

#include <fstream>
#include <string>
#include <vector>

using strata::gatekeeper::GridMap;

namespace {

using Accounts = std::vector<std::string>;

// The error for `text`, which must be refused.
std::string error_of(const std::string& text) {
    const auto map = GridMap::parse(text, "grid-mapfile");
    CHECK_FALSE(map);
    return map.error();
}

}  // namespace

TEST_CASE("gridmap: quoted, escaped and unquoted subjects with their accounts", "[gridmap]") {
    auto map = GridMap::parse(
        "# site users\n"
        "\n"
        "\"/O=Strata Grid/OU=Users/CN=Jane Doe\" jane\n"
        "  \"/O=Strata Grid/OU=Users/CN=Bob Q. Public\"   bob,guest,ops  \n"
        "/O=Strata/CN=nospaces alice\n"
        "\"/O=Strata/CN=Say \\\"hi\\\"\" quoter\n"
        "\"/O=Strata/CN=back\\\\slash\" slasher\n"
        "\"/O=Strata/CN=keep\\n\" keeper\n"
        "\t# indented comment\n"
        "   \t \n"
        "\"/O=Strata/CN=x\"\tdot.user_1-a\n",
        "grid-mapfile");
    REQUIRE(map);
    CHECK(map.error().empty());
    CHECK(map->size() == 7);

    const Accounts* jane = map->accounts("/O=Strata Grid/OU=Users/CN=Jane Doe");
    REQUIRE(jane != nullptr);
    CHECK(*jane == Accounts{"jane"});

    const Accounts* bob = map->accounts("/O=Strata Grid/OU=Users/CN=Bob Q. Public");
    REQUIRE(bob != nullptr);
    CHECK(*bob == Accounts{"bob", "guest", "ops"});
    CHECK(bob->front() == "bob");  // the default account

    const Accounts* alice = map->accounts("/O=Strata/CN=nospaces");
    REQUIRE(alice != nullptr);
    CHECK(*alice == Accounts{"alice"});

    // \" and \\ inside quotes are a quote and a backslash; any other backslash stays.
    const Accounts* quoter = map->accounts("/O=Strata/CN=Say \"hi\"");
    REQUIRE(quoter != nullptr);
    CHECK(*quoter == Accounts{"quoter"});
    const Accounts* slasher = map->accounts("/O=Strata/CN=back\\slash");
    REQUIRE(slasher != nullptr);
    CHECK(*slasher == Accounts{"slasher"});
    const Accounts* keeper = map->accounts("/O=Strata/CN=keep\\n");
    REQUIRE(keeper != nullptr);
    CHECK(*keeper == Accounts{"keeper"});

    const Accounts* x = map->accounts("/O=Strata/CN=x");
    REQUIRE(x != nullptr);
    CHECK(*x == Accounts{"dot.user_1-a"});
}

TEST_CASE("gridmap: subjects match exactly, never by prefix or case", "[gridmap]") {
    auto map = GridMap::parse("\"/O=Grid/CN=Jane Doe\" jane\n/O=Grid/CN=Bob bob\n", "grid-mapfile");
    REQUIRE(map);
    CHECK(map->accounts("/O=Grid/CN=Jane Doe") != nullptr);
    CHECK(map->accounts("/O=Grid/CN=Bob") != nullptr);
    CHECK(map->accounts("/O=Grid/CN=Jane") == nullptr);
    CHECK(map->accounts("/O=Grid/CN=Jane Doe/CN=proxy") == nullptr);
    CHECK(map->accounts("/O=Grid/CN=Bobby") == nullptr);
    CHECK(map->accounts("/O=Grid/CN=jane doe") == nullptr);
    CHECK(map->accounts("\"/O=Grid/CN=Jane Doe\"") == nullptr);
    CHECK(map->accounts("/O=Grid") == nullptr);
    CHECK(map->accounts("") == nullptr);
}

TEST_CASE("gridmap: empty files, comment-only files and a missing final newline", "[gridmap]") {
    auto empty = GridMap::parse("", "grid-mapfile");
    REQUIRE(empty);
    CHECK(empty->size() == 0);
    CHECK(empty->accounts("/O=Grid/CN=Jane") == nullptr);

    auto comments = GridMap::parse("# nobody yet\n\n   # really\n", "grid-mapfile");
    REQUIRE(comments);
    CHECK(comments->size() == 0);

    auto last = GridMap::parse("/O=Grid/CN=a a\n/O=Grid/CN=b b", "grid-mapfile");
    REQUIRE(last);
    CHECK(last->size() == 2);
    REQUIRE(last->accounts("/O=Grid/CN=b") != nullptr);
    CHECK(*last->accounts("/O=Grid/CN=b") == Accounts{"b"});
}

TEST_CASE("gridmap: CRLF line ends are read like LF ones", "[gridmap]") {
    auto map = GridMap::parse(
        "# written on Windows\r\n"
        "\r\n"
        "\"/O=Grid/CN=Jane Doe\" jane,guest\r\n"
        "/O=Grid/CN=bob bob\r\n",
        "grid-mapfile");
    REQUIRE(map);
    CHECK(map->size() == 2);
    REQUIRE(map->accounts("/O=Grid/CN=Jane Doe") != nullptr);
    CHECK(*map->accounts("/O=Grid/CN=Jane Doe") == Accounts{"jane", "guest"});
    REQUIRE(map->accounts("/O=Grid/CN=bob") != nullptr);
    CHECK(*map->accounts("/O=Grid/CN=bob") == Accounts{"bob"});

    // Line numbers still count CRLF lines, and a lone account-less subject is still refused.
    CHECK(error_of("/O=Grid/CN=a a\r\n/O=Grid/CN=b\r\n") ==
          "grid-mapfile:2: no local account after the subject \"/O=Grid/CN=b\"");
}

TEST_CASE("gridmap: account names", "[gridmap]") {
    const std::string longest(32, 'a');
    auto map = GridMap::parse("/O=Grid/CN=a " + longest + ",b-,_c,9\n", "grid-mapfile");
    REQUIRE(map);
    REQUIRE(map->accounts("/O=Grid/CN=a") != nullptr);
    CHECK(*map->accounts("/O=Grid/CN=a") == Accounts{longest, "b-", "_c", "9"});

    CHECK(error_of("/O=Grid/CN=a " + longest + "a\n") ==
          "grid-mapfile:1: '" + longest + "a' is not an account name (expected name[,name...] after the subject)");
}

TEST_CASE("gridmap: every refusal names the file and the line", "[gridmap]") {
    SECTION("a quoted subject without its closing quote") {
        CHECK(error_of("# ok\n\"/O=Grid/CN=Jane Doe jane\n") == "grid-mapfile:2: the subject's closing '\"' is missing");
        // An escaped quote does not close the subject.
        CHECK(error_of("\"/O=Grid/CN=Jane\\\" jane\n") == "grid-mapfile:1: the subject's closing '\"' is missing");
        CHECK(error_of("\"/O=Grid/CN=Jane\\") == "grid-mapfile:1: the subject's closing '\"' is missing");
    }
    SECTION("a subject that is not a DN") {
        CHECK(error_of("\n\njane /O=Grid/CN=Jane\n") ==
              "grid-mapfile:3: 'jane' is not a subject; expected a quoted DN such as \"/O=Grid/CN=Jane Doe\"");
        CHECK(error_of("\"O=Grid/CN=Jane Doe\" jane\n") ==
              "grid-mapfile:1: 'O=Grid/CN=Jane Doe' is not a subject; expected a quoted DN such as \"/O=Grid/CN=Jane "
              "Doe\"");
        CHECK(error_of("\"\" jane\n") ==
              "grid-mapfile:1: '' is not a subject; expected a quoted DN such as \"/O=Grid/CN=Jane Doe\"");
    }
    SECTION("a subject without an account") {
        CHECK(error_of("/O=Grid/CN=a a\n\"/O=Grid/CN=Jane Doe\"\n") ==
              "grid-mapfile:2: no local account after the subject \"/O=Grid/CN=Jane Doe\"");
        CHECK(error_of("\"/O=Grid/CN=Jane Doe\"   \t \n") ==
              "grid-mapfile:1: no local account after the subject \"/O=Grid/CN=Jane Doe\"");
        CHECK(error_of("/O=Grid/CN=Jane") == "grid-mapfile:1: no local account after the subject \"/O=Grid/CN=Jane\"");
    }
    SECTION("a bad account name") {
        const std::string tail = " is not an account name (expected name[,name...] after the subject)";
        CHECK(error_of("\"/O=Grid/CN=Jane Doe\" bad name\n") == "grid-mapfile:1: 'bad name'" + tail);
        CHECK(error_of("/O=Grid/CN=a -x\n") == "grid-mapfile:1: '-x'" + tail);
        CHECK(error_of("/O=Grid/CN=a a,,b\n") == "grid-mapfile:1: ''" + tail);
        CHECK(error_of("/O=Grid/CN=a a,\n") == "grid-mapfile:1: ''" + tail);
        CHECK(error_of("/O=Grid/CN=a ,a\n") == "grid-mapfile:1: ''" + tail);
        CHECK(error_of("/O=Grid/CN=a a, b\n") == "grid-mapfile:1: ' b'" + tail);
        CHECK(error_of("/O=Grid/CN=a a,b;rm\n") == "grid-mapfile:1: 'b;rm'" + tail);
        CHECK(error_of("/O=Grid/CN=a ../root\n") == "grid-mapfile:1: '../root'" + tail);
    }
    SECTION("a subject listed twice, however it is written") {
        CHECK(error_of("\"/O=Grid/CN=Jane\" jane\n# again\n/O=Grid/CN=Jane guest\n") ==
              "grid-mapfile:3: the subject \"/O=Grid/CN=Jane\" is listed twice");
        CHECK(error_of("\"/O=Grid/CN=Jane Doe\" jane\n\"/O=Grid/CN=Jane Doe\" jane\n") ==
              "grid-mapfile:2: the subject \"/O=Grid/CN=Jane Doe\" is listed twice");
    }
    SECTION("the path is the one given") {
        const auto map = GridMap::parse("nope x\n", "/etc/grid-security/grid-mapfile");
        CHECK_FALSE(map);
        CHECK(map.error() ==
              "/etc/grid-security/grid-mapfile:1: 'nope' is not a subject; expected a quoted DN such as "
              "\"/O=Grid/CN=Jane Doe\"");
    }
}

TEST_CASE("gridmap: load reads a file and reports one it cannot read", "[gridmap]") {
    strata::test::ScratchDir dir;
    REQUIRE_FALSE(dir.path().empty());
    const std::string path = (dir.path() / "grid-mapfile").string();
    {
        std::ofstream out(path);
        out << "\"/O=Grid/CN=Jane Doe\" jane,guest\n/O=Grid/CN=x\n";
    }
    const auto refused = GridMap::load(path);
    CHECK_FALSE(refused);
    CHECK(refused.error() == path + ":2: no local account after the subject \"/O=Grid/CN=x\"");

    {
        std::ofstream out(path, std::ios::trunc);
        out << "\"/O=Grid/CN=Jane Doe\" jane,guest\n";
    }
    auto map = GridMap::load(path);
    REQUIRE(map);
    CHECK(map.error().empty());
    REQUIRE(map->accounts("/O=Grid/CN=Jane Doe") != nullptr);
    CHECK(*map->accounts("/O=Grid/CN=Jane Doe") == Accounts{"jane", "guest"});

    const std::string missing = (dir.path() / "absent").string();
    const auto absent = GridMap::load(missing);
    CHECK_FALSE(absent);
    CHECK(absent.error() == "cannot read grid-mapfile '" + missing + "': No such file or directory");
}
