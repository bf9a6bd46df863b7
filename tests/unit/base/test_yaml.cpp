#include <catch2/catch.hpp>

#include "base/yaml.hpp"

#include <string>
#include <utility>
#include <vector>

namespace yaml = strata::base::yaml;
using strata::base::Result;
using strata::base::Status;

namespace {

using Pairs = std::vector<std::pair<std::string, std::string>>;

// The root of `text`, read as "f.yaml", which must parse.
yaml::Value root_of(const yaml::Document& doc) {
    Result<yaml::Value> root = doc.root();
    INFO(root.error());
    REQUIRE(root.ok());
    return *root;
}

// The value of `key` in the root map.
yaml::Value value_of(const yaml::Document& doc, const std::string& key) {
    const yaml::Value root = root_of(doc);
    return root.of(root.node()[key]);
}

struct Server {
    std::string name;
    long long port = 0;
    std::vector<std::string> tags;
    struct Limits {
        long long jobs = 0;
    } limits;
};

const yaml::Field<Server::Limits> kLimits[] = {
    {"jobs",
     [](const yaml::Entry& e, Server::Limits& l) -> Status {
         Result<long long> n = yaml::integer(e.value, 1, 9, "'jobs' must be 1 to 9");
         if (!n) return n.failure();
         l.jobs = *n;
         return {};
     }},
};

const yaml::Field<Server> kServer[] = {
    {"name",
     [](const yaml::Entry& e, Server& s) -> Status {
         Result<std::string> name = yaml::nonempty_string(e.value, "'name' must be a word");
         if (!name) return name.failure();
         s.name = *name;
         return {};
     },
     "no 'name'; give one"},
    {"port",
     [](const yaml::Entry& e, Server& s) -> Status {
         Result<long long> port = yaml::integer(e.value, 0, 65535, "'port' must be 0 to 65535");
         if (!port) return port.failure();
         s.port = *port;
         return {};
     }},
    {"tags",
     [](const yaml::Entry& e, Server& s) -> Status {
         Result<std::vector<std::string>> tags = yaml::strings(e.value, "'tags' must be a list of words");
         if (!tags) return tags.failure();
         s.tags = *tags;
         return {};
     }},
    {"limits",
     [](const yaml::Entry& e, Server& s) -> Status {
         return yaml::map_read(e.value, "'limits' must be a map", yaml::Table<Server::Limits>{kLimits, "limit"},
                               s.limits);
     }},
};

// `text` read by the tables above: the server, or the error.
Result<Server> server_of(const std::string& text, yaml::Wording wording = {}) {
    const yaml::Document doc(text, "f.yaml", wording);
    Result<yaml::Value> root = doc.root();
    if (!root) return root.failure();
    Server s;
    if (Status st = yaml::map_read(*root, "expected a map", yaml::Table<Server>{kServer}, s); !st) return st.failure();
    return s;
}

}  // namespace

TEST_CASE("yaml: a document read by a table, nested maps by their own", "[yaml]") {
    const Result<Server> s = server_of("name: a\nport: 80\ntags: [x, y]\nlimits: {jobs: 3}\n");
    INFO(s.error());
    REQUIRE(s.ok());
    CHECK(s->name == "a");
    CHECK(s->port == 80);
    CHECK(s->tags == std::vector<std::string>{"x", "y"});
    CHECK(s->limits.jobs == 3);
}

TEST_CASE("yaml: every message names the file, line and column", "[yaml]") {
    CHECK(server_of("- a\n").error() == "f.yaml:1:1: expected a map");
    CHECK(server_of("").error() == "f.yaml:1:1: expected a map");
    CHECK(server_of("name: a\nname: b\n").error() == "f.yaml:2:1: 'name' is given twice (first at 1:1)");
    CHECK(server_of("name: a\nhost: b\n").error() ==
          "f.yaml:2:1: unknown key 'host'; expected name, port, tags or limits");
    CHECK(server_of("port: 1\n").error() == "f.yaml:1:1: no 'name'; give one");
    CHECK(server_of("name: ''\n").error() == "f.yaml:1:7: 'name' must be a word");
    CHECK(server_of("name: [a]\n").error() == "f.yaml:1:7: 'name' must be a word");
    CHECK(server_of("name: a\nport: 65536\n").error() == "f.yaml:2:7: 'port' must be 0 to 65535");
    CHECK(server_of("name: a\nport: 8.5\n").error() == "f.yaml:2:7: 'port' must be 0 to 65535");
    CHECK(server_of("name: a\ntags: x\n").error() == "f.yaml:2:7: 'tags' must be a list of words");
    CHECK(server_of("name: a\ntags: [x, [y]]\n").error() == "f.yaml:2:11: 'tags' must be a list of words");
    CHECK(server_of("name: a\nlimits: 5\n").error() == "f.yaml:2:9: 'limits' must be a map");
    CHECK(server_of("name: a\nlimits:\n  jobs: 1\n  job: 2\n").error() ==
          "f.yaml:4:3: unknown limit 'job'; expected jobs");
    CHECK(server_of("name: a\nlimits: {jobs: 10}\n").error() == "f.yaml:2:16: 'jobs' must be 1 to 9");
    CHECK(server_of("name: a\n[k]: v\n").error() == "f.yaml:2:1: keys must be plain words");
}

TEST_CASE("yaml: a document that does not parse is an error, not an exception", "[yaml]") {
    CHECK(server_of("name: [a\n").error().rfind("f.yaml:2:1: malformed YAML: ", 0) == 0);
    CHECK(server_of("name: \"a").error() == "f.yaml:1:9: malformed YAML: illegal EOF in scalar");
    // A reader's own wording: without the label, or without columns.
    CHECK(server_of("name: \"a", {.malformed = ""}).error() == "f.yaml:1:9: illegal EOF in scalar");
    CHECK(server_of("name: \"a", {.columns = false}).error() == "f.yaml:1: malformed YAML: illegal EOF in scalar");
}

TEST_CASE("yaml: without columns a reader's own messages give the line, and the engine's line and column", "[yaml]") {
    const yaml::Wording lines{.columns = false};
    CHECK(server_of("name: a\nport: x\n", lines).error() == "f.yaml:2: 'port' must be 0 to 65535");
    CHECK(server_of("name: a\n  \nname: b\n", lines).error() == "f.yaml:3:1: 'name' is given twice (first at 1:1)");
}

TEST_CASE("yaml: a prefix follows the place while a part of the file is read", "[yaml]") {
    const std::string text = "a: [1]\nb: 2\n";
    yaml::Document doc(text, "f.yaml");
    const yaml::Value a = value_of(doc, "a");
    doc.prefix_set("part 1: ");
    CHECK(a.fail("no").text == "f.yaml:1:4: part 1: no");
    CHECK(doc.at({2, 3}, "no").text == "f.yaml:2:3: part 1: no");
    CHECK(doc.at({}, "no").text == "f.yaml: part 1: no");
    doc.prefix_set("");
    CHECK(a.fail("no").text == "f.yaml:1:4: no");
}

// One of each kind of value, for the typed readers.
const std::string kValues =
    "s: plain\n"
    "q: \"in quotes\"\n"
    "e: ''\n"
    "n: -12\n"
    "b: yes\n"
    "l: [a, 'b c']\n"
    "m: {X: 1, Y: two}\n"
    "bad: {1X: 1}\n"
    "deep: {X: [1]}\n";

TEST_CASE("yaml: typed readers of strings", "[yaml]") {
    const yaml::Document doc(kValues, "f.yaml");
    CHECK(*yaml::string(value_of(doc, "s"), "?") == "plain");
    CHECK(yaml::string(value_of(doc, "e"), "?").value().empty());
    CHECK(yaml::string(value_of(doc, "l"), "not a string").error() == "f.yaml:6:4: not a string");
    CHECK(yaml::nonempty_string(value_of(doc, "e"), "empty").error() == "f.yaml:3:4: empty");
    CHECK(*yaml::strings(value_of(doc, "l"), "?") == std::vector<std::string>{"a", "b c"});
    CHECK_FALSE(value_of(doc, "s").quoted());
    CHECK(value_of(doc, "q").quoted());
    CHECK(value_of(doc, "e").quoted());
}

TEST_CASE("yaml: typed readers of numbers and booleans", "[yaml]") {
    const yaml::Document doc(kValues, "f.yaml");
    CHECK(*yaml::integer(value_of(doc, "n"), -12, -12, "?") == -12);
    CHECK(yaml::integer(value_of(doc, "n"), 0, 10, "out of range").error() == "f.yaml:4:4: out of range");
    CHECK(yaml::integer(value_of(doc, "s"), 0, 10, "not a number").error() == "f.yaml:1:4: not a number");
    CHECK(*yaml::boolean(value_of(doc, "b"), "?"));
    CHECK(yaml::boolean(value_of(doc, "s"), "not a bool").error() == "f.yaml:1:4: not a bool");
}

TEST_CASE("yaml: a map of names and strings", "[yaml]") {
    const yaml::Document doc(kValues, "f.yaml");
    const yaml::NamedStrings env{"not a map", [](const std::string& n) { return !n.empty() && n[0] != '1'; },
                                 "is not a name", [](const std::string& n) { return "'" + n + "' needs a string"; }};
    CHECK(*yaml::named_strings(value_of(doc, "m"), env) == Pairs{{"X", "1"}, {"Y", "two"}});
    CHECK(yaml::named_strings(value_of(doc, "s"), env).error() == "f.yaml:1:4: not a map");
    CHECK(yaml::named_strings(value_of(doc, "bad"), env).error() == "f.yaml:8:7: '1X' is not a name");
    CHECK(yaml::named_strings(value_of(doc, "deep"), env).error() == "f.yaml:9:11: 'X' needs a string");
}
