#include "commfile/comm_file.hpp"

#include <catch2/catch.hpp>
#include "tests/unit/result_check.hpp"

#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

using namespace strata::commfile;
using Catch::Contains;
using Catch::StartsWith;

using strata::test::failure_of;

namespace {

File parsed(const std::string& text, const std::string& where) {
    strata::base::Result<File> f = parse(text, where);
    INFO(f.error());
    REQUIRE(f.ok());
    return std::move(*f);
}

// The error of a file parse() must refuse.
std::string parse_error(const std::string& text, const std::string& where) { return failure_of(parse(text, where)); }

// A file's definitions without their lines, which differ between the two
// spellings: one line per definition, regular expressions between slashes.
std::vector<std::string> summary(const File& f) {
    std::vector<std::string> out;
    for (const Definition& d : f.defs) {
        std::string s = std::string(d.inter ? "intercomm " : "comm ") + d.name + " color " + std::to_string(d.color) +
                        " in " + std::to_string(d.parent) + ":";
        for (const Member& m : d.members) {
            s += " " + (m.re ? "/" + m.text + "/" : m.text);
            // Appended piece by piece: GCC 12 at -O3 warns falsely (-Wrestrict) on "@" + std::to_string(...).
            if (m.key >= 0) (s += '@') += std::to_string(m.key);
        }
        if (d.inter) ((((s += ' ') += std::to_string(d.first)) += ' ') += std::to_string(d.second));
        out.push_back(s);
    }
    return out;
}

// The index of the definition called `name` of colour `color`.
int def(const File& f, const std::string& name, int color = 0) {
    const std::vector<int>* same = f.named(name);
    INFO(name);
    REQUIRE(same != nullptr);
    REQUIRE(color < static_cast<int>(same->size()));
    return (*same)[static_cast<std::size_t>(color)];
}

const Resolved& of(const std::vector<Resolved>& r, const File& f, const std::string& name, int color = 0) {
    return r[static_cast<std::size_t>(def(f, name, color))];
}

std::vector<int> group_of(const std::vector<Resolved>& r, const File& f, const std::string& name, int color = 0) {
    const Resolved& g = of(r, f, name, color);
    INFO(name << ": " << g.error);
    CHECK(g.error.empty());
    return g.group;
}

std::vector<int> ranks(std::initializer_list<int> r) { return r; }

}  // namespace

// ---------------------------------------------------------------------------
// Parsing

TEST_CASE("the XML and YAML spellings of a file give the same definitions", "[commfile][parse]") {
    const std::string xml = R"(<?xml version="1.0"?>
<communicators>
  <comm name="RED">
    <processor>p4-01</processor>
    <processor key="0">pd-01</processor>
    <processor name="pd-02"/>
    <comm name="PINK">
      <processor>pd-02</processor>
      <processor>p4-0[12]</processor>
    </comm>
    <comm name="ROSE"><processor name="p4-01" key="0"/></comm>
    <intercomm name="PINK_ROSE"><first>PINK</first><second>ROSE</second></intercomm>
  </comm>
  <comm name="BLUE"><processor>x-1</processor></comm>
  <comm name="BLUE"><processor>x-2</processor></comm>
  <intercomm name="BLUES">
    <first>BLUE</first>
    <second color="1">BLUE</second>
  </intercomm>
</communicators>
)";
    const std::string yaml = R"(# the same file
comms:
  - name: RED
    processors: [p4-01, {name: pd-01, key: 0}, {name: pd-02}]
    comms:
      - name: PINK
        processors: [pd-02, "p4-0[12]"]
      - name: ROSE
        processors:
          - name: p4-01
            key: 0
    intercomms:
      - {name: PINK_ROSE, first: PINK, second: ROSE}
  - {name: BLUE, processors: [x-1]}
  - {name: BLUE, processors: [x-2]}
intercomms:
  - name: BLUES
    first: BLUE
    second: {name: BLUE, color: 1}
)";
    const File from_xml = parsed(xml, "c.xml");
    const File from_yaml = parsed(yaml, "c.yaml");
    // Intercomms come after every comm; a nested one lies in its sides' parent.
    const std::vector<std::string> expected{
        "comm RED color 0 in -1: p4-01 pd-01@0 pd-02",
        "comm PINK color 0 in 0: pd-02 /p4-0[12]/",
        "comm ROSE color 0 in 0: p4-01@0",
        "comm BLUE color 0 in -1: x-1",
        "comm BLUE color 1 in -1: x-2",
        "intercomm PINK_ROSE color 0 in 0: 1 2",
        "intercomm BLUES color 0 in -1: 3 4",
    };
    CHECK(summary(from_xml) == expected);
    CHECK(summary(from_yaml) == expected);
    const std::vector<std::string> names{"RED", "PINK", "ROSE", "BLUE", "PINK_ROSE", "BLUES"};
    CHECK(from_xml.names == names);
    CHECK(from_yaml.names == names);
    CHECK(from_xml.where == "c.xml");
    CHECK(from_yaml.where == "c.yaml");
    // Lines are each spelling's own.
    CHECK(from_xml.defs[0].line == 3);
    CHECK(from_xml.defs[0].members[2].line == 6);
    CHECK(from_xml.defs[6].line == 16);
    CHECK(from_yaml.defs[0].line == 3);
    CHECK(from_yaml.defs[2].members[0].line == 10);
}

TEST_CASE("the shipped example files read the same in XML and YAML", "[commfile][parse]") {
    for (const char* example : {"colors", "sites", "grid"}) {
        const std::string base = std::string(STRATA_NAMED_EXAMPLES) + "/" + example;
        INFO(base);
        const strata::base::Result<File> xml = load(base + ".xml");
        INFO(xml.error());
        REQUIRE(xml.ok());
        const strata::base::Result<File> yaml = load(base + ".yaml");
        INFO(yaml.error());
        REQUIRE(yaml.ok());
        CHECK(summary(*xml) == summary(*yaml));
        CHECK(xml->names == yaml->names);
        CHECK(xml->where == base + ".xml");
    }
    const std::string error = failure_of(load(std::string(STRATA_NAMED_EXAMPLES) + "/no-such-file.xml"));
    CHECK_THAT(error, Contains("no-such-file.xml"));
}

TEST_CASE("a file may be one comm alone", "[commfile][parse]") {
    const File f = parsed(R"(<?xml version="1.0"?>
<comm name="SOLO">
  <processor>a</processor>
  <processor>b</processor>
  <comm name="INNER"><processor>b</processor></comm>
</comm>
)",
                          "solo.xml");
    CHECK(summary(f) == std::vector<std::string>{"comm SOLO color 0 in -1: a b", "comm INNER color 0 in 0: b"});
    CHECK(f.defs[0].line == 2);
    CHECK(f.defs[1].line == 5);
    CHECK(f.names == std::vector<std::string>{"SOLO", "INNER"});
}

TEST_CASE("a processor may be named by its text or by a name attribute, not both", "[commfile][parse]") {
    const File f = parsed(R"(<communicators>
  <comm name="A">
    <processor name="a"/>
    <processor>b</processor>
    <processor key="2" name="c"></processor>
    <processor key="3">
      d
    </processor>
  </comm>
</communicators>
)",
                          "p.xml");
    CHECK(summary(f) == std::vector<std::string>{"comm A color 0 in -1: a b c@2 d@3"});
    CHECK(f.defs[0].members[3].line == 6);

    const std::string error = parse_error(R"(<communicators>
  <comm name="A">
    <processor>a</processor>
    <processor name="b">b</processor>
  </comm>
</communicators>
)",
                                          "p.xml");
    CHECK_THAT(error, StartsWith("p.xml:4: ") && Contains("both as text and as an attribute"));
}

TEST_CASE("colors number the definitions of a name in the order of the file", "[commfile][parse]") {
    const File f = parsed(R"(<communicators>
  <comm name="X"><processor>a</processor></comm>
  <comm name="Y">
    <processor>b</processor>
    <processor>c</processor>
    <comm name="X"><processor>b</processor></comm>
  </comm>
  <intercomm name="Z"><first>X</first><second color="2">X</second></intercomm>
  <comm name="X"><processor>c</processor></comm>
  <intercomm name="Z"><first color="2">X</first><second color="0">X</second></intercomm>
</communicators>
)",
                          "k.xml");
    CHECK(summary(f) == std::vector<std::string>{
                            "comm X color 0 in -1: a",
                            "comm Y color 0 in -1: b c",
                            "comm X color 1 in 1: b",
                            "comm X color 2 in -1: c",
                            "intercomm Z color 0 in -1: 0 3",
                            "intercomm Z color 1 in -1: 3 0",
                        });
    REQUIRE(f.named("X") != nullptr);
    CHECK(*f.named("X") == std::vector<int>{0, 2, 3});
    CHECK(*f.named("Z") == std::vector<int>{4, 5});
    CHECK(f.named("W") == nullptr);
    CHECK(f.at(7) == "k.xml:7: ");
}

TEST_CASE("File::names lists each name once: the comms in the order of the file, then the intercomms",
          "[commfile][parse]") {
    // The intercomm comes first in the file and names a comm defined after it.
    const File f = parsed(R"(<communicators>
  <intercomm name="AB"><first>A</first><second>B</second></intercomm>
  <comm name="B"><processor>b</processor></comm>
  <comm name="A">
    <processor>a</processor>
    <comm name="B"><processor>a</processor></comm>
    <comm name="C"><processor>a</processor></comm>
  </comm>
</communicators>
)",
                          "n.xml");
    CHECK(f.names == std::vector<std::string>{"B", "A", "C", "AB"});
    CHECK(summary(f) == std::vector<std::string>{
                            "comm B color 0 in -1: b",
                            "comm A color 0 in -1: a",
                            "comm B color 1 in 1: a",
                            "comm C color 0 in 1: a",
                            "intercomm AB color 0 in -1: 1 0",
                        });
}

TEST_CASE("member_is_pattern tells regular expressions from processor names", "[commfile][parse]") {
    for (const char* name : {"pd-01", "node1.example.org", "a_b", "", "x.y.z"}) {
        INFO(name);
        CHECK_FALSE(member_is_pattern(name));
    }
    for (const char* re : {"pd-.*", "a+", "b?", "n[12]", "n]", "(x)", "x)", "a{2}", "a}", "a|b", "^a", "a$", "a\\d"}) {
        INFO(re);
        CHECK(member_is_pattern(re));
    }
}

// ---------------------------------------------------------------------------
// What parse() refuses, with the file and line

TEST_CASE("malformed XML is an error at the line where it goes wrong", "[commfile][errors]") {
    const std::string error = parse_error(R"(<communicators>
  <comm name="A">
    <processor>a</processr>
  </comm>
</communicators>
)",
                                          "bad.xml");
    CHECK_THAT(error, StartsWith("bad.xml:3: malformed XML: ") && Contains("mismatch"));
}

TEST_CASE("malformed XML is reported by the parser's first error, not the ones that follow", "[commfile][errors]") {
    // libxml2's last error here is "Premature end of data" at line 5.
    const std::string unclosed = parse_error(R"(<communicators>
  <comm name="A">
    <processor>a</processor>
</communicators>
)",
                                             "bad.xml");
    CHECK_THAT(unclosed, StartsWith("bad.xml:4: malformed XML: ") &&
                             Contains("Opening and ending tag mismatch: comm line 2 and communicators"));
    const std::string quote = parse_error(R"(<communicators>
  <comm name="A>
    <processor>a</processor>
  </comm>
</communicators>
)",
                                          "bad.xml");
    CHECK_THAT(quote, StartsWith("bad.xml:3: malformed XML: ") && Contains("attributes"));
}

TEST_CASE("an XML file that starts with a UTF-8 byte order mark is XML", "[commfile][parse]") {
    const File f = parsed(
        "\xEF\xBB\xBF<?xml version=\"1.0\"?>\n"
        "<communicators><comm name=\"A\"><processor>a</processor></comm></communicators>\n",
        "bom.xml");
    CHECK(summary(f) == std::vector<std::string>{"comm A color 0 in -1: a"});
}

TEST_CASE("malformed YAML is an error at the line where it goes wrong", "[commfile][errors]") {
    const std::string error = parse_error(R"(comms:
  - name: A
    processors: [a, b]]
  - name: B
    processors: [c]
)",
                                          "bad.yaml");
    CHECK_THAT(error, StartsWith("bad.yaml:3: malformed YAML: "));
}

TEST_CASE("an unknown element is an error", "[commfile][errors]") {
    const std::string error = parse_error(R"(<communicators>
  <comm name="A">
    <processor>a</processor>
    <host>b</host>
  </comm>
</communicators>
)",
                                          "e.xml");
    CHECK_THAT(error, StartsWith("e.xml:4: ") &&
                          Contains("unknown element <host> in a comm (expected: name, processor, comm, intercomm)"));
}

TEST_CASE("an unknown attribute is an error", "[commfile][errors]") {
    const std::string error = parse_error(R"(<communicators>
  <comm name="A">
    <processor rank="1">a</processor>
  </comm>
</communicators>
)",
                                          "e.xml");
    CHECK_THAT(error,
               StartsWith("e.xml:3: ") && Contains("unknown attribute 'rank' in a processor (expected: name, key)"));
}

TEST_CASE("an unknown YAML key is an error", "[commfile][errors]") {
    const std::string error = parse_error(R"(comms:
  - name: A
    processors: [a]
    hosts: [b]
)",
                                          "e.yaml");
    CHECK_THAT(error, StartsWith("e.yaml:4: ") &&
                          Contains("unknown key 'hosts' in a comm (expected: name, processors, comms, intercomms)"));
}

TEST_CASE("a YAML key given twice is an error", "[commfile][errors]") {
    const std::string error = parse_error(R"(comms:
  - name: A
    processors: [a]
    name: B
)",
                                          "e.yaml");
    CHECK_THAT(error, StartsWith("e.yaml:4:5: ") && Contains("'name' is given twice (first at 2:5)"));
}

TEST_CASE("a processor name a sub-comm's parent lacks is an error", "[commfile][errors]") {
    const std::string error = parse_error(R"(<communicators>
  <comm name="P">
    <processor>a</processor>
    <processor>b[0-9]</processor>
    <comm name="C">
      <processor>b7</processor>
      <processor>z</processor>
    </comm>
  </comm>
</communicators>
)",
                                          "e.xml");
    // b7 passes: the parent's regular expression takes it.
    CHECK_THAT(error, StartsWith("e.xml:7: ") && Contains("processor 'z' is not in the parent comm 'P' (line 2)"));
}

TEST_CASE("a regular expression that does not compile is an error", "[commfile][errors]") {
    const std::string error = parse_error(R"(comms:
  - name: A
    processors:
      - a
      - "node[0-9"
)",
                                          "e.yaml");
    CHECK_THAT(error, StartsWith("e.yaml:5: ") && Contains("'node[0-9' is not a usable regular expression: '[' is not closed"));
}

TEST_CASE("intercomm sides with different parents are an error", "[commfile][errors]") {
    const std::string error = parse_error(R"(<communicators>
  <comm name="A">
    <processor>a</processor>
    <processor>b</processor>
    <comm name="B"><processor>b</processor></comm>
  </comm>
  <comm name="C"><processor>c</processor></comm>
  <intercomm name="X">
    <first>B</first>
    <second>C</second>
  </intercomm>
</communicators>
)",
                                          "e.xml");
    CHECK_THAT(error, StartsWith("e.xml:8: ") &&
                          Contains("the sides of intercomm 'X' have different parents: 'B' is in 'A' (line 2), 'C' is "
                                   "at the top level"));
}

TEST_CASE("intercomm sides that share a processor name are an error", "[commfile][errors]") {
    const std::string error = parse_error(R"(<communicators>
  <comm name="A"><processor>a</processor><processor>b</processor></comm>
  <comm name="B"><processor>c</processor><processor>b</processor></comm>
  <intercomm name="X"><first>A</first><second>B</second></intercomm>
</communicators>
)",
                                          "e.xml");
    CHECK_THAT(error, StartsWith("e.xml:4: ") &&
                          Contains("the sides of intercomm 'X' overlap: processor 'b' is in both 'A' and 'B'"));
}

TEST_CASE("a side's color out of range is an error", "[commfile][errors]") {
    const std::string error = parse_error(R"(comms:
  - {name: A, processors: [a]}
  - {name: B, processors: [b]}
  - {name: B, processors: [c]}
intercomms:
  - name: X
    first: A
    second: {name: B, color: 2}
)",
                                          "e.yaml");
    CHECK_THAT(error, StartsWith("e.yaml:8: ") &&
                          Contains("color 2 is out of range: 2 comm(s) are named 'B' (colors 0 to 1)"));
}

TEST_CASE("a side's color must be a number from 0", "[commfile][errors]") {
    for (const char* color : {"-1", "one", "1x", "99999999999"}) {
        const std::string error = parse_error(std::string(R"(comms:
  - {name: A, processors: [a]}
  - {name: B, processors: [b]}
intercomms:
  - name: X
    first: A
    second: {name: B, color: ")") + color + "\"}\n",
                                              "e.yaml");
        CHECK_THAT(error, StartsWith("e.yaml:7: ") &&
                              Contains("the color of a second must be a number from 0, not '" + std::string(color) + "'"));
    }
}

TEST_CASE("a key given twice in one comm is an error", "[commfile][errors]") {
    const std::string error = parse_error(R"(<communicators>
  <comm name="A">
    <processor key="1">a</processor>
    <processor>b</processor>
    <processor key="1">c</processor>
  </comm>
</communicators>
)",
                                          "e.xml");
    CHECK_THAT(error, StartsWith("e.xml:5: ") && Contains("key 1 is given twice in comm 'A' (first at line 3)"));
}

TEST_CASE("a key must be a number from 0", "[commfile][errors]") {
    const std::string xml = parse_error(R"(<communicators>
  <comm name="A">
    <processor key="one">a</processor>
  </comm>
</communicators>
)",
                                        "e.xml");
    CHECK_THAT(xml, StartsWith("e.xml:3: ") && Contains("the key of a processor must be a number from 0, not 'one'"));
    const std::string negative = parse_error(R"(comms:
  - name: A
    processors:
      - a
      - {name: b,
         key: -1}
)",
                                             "e.yaml");
    CHECK_THAT(negative, StartsWith("e.yaml:6: ") && Contains("must be a number from 0, not '-1'"));
    const std::string trailing = parse_error(R"(<comm name="A"><processor key="1x">a</processor></comm>)", "e.xml");
    CHECK_THAT(trailing, StartsWith("e.xml:1: ") && Contains("not '1x'"));
    // Past an int: refused at its line, never thrown.
    const std::string huge =
        parse_error(R"(<comm name="A"><processor key="99999999999">a</processor></comm>)", "e.xml");
    CHECK_THAT(huge, StartsWith("e.xml:1: ") && Contains("must be a number from 0, not '99999999999'"));
    for (const char* key : {"+1", " 1"}) {
        const std::string signed_key =
            parse_error(std::string(R"(<comm name="A"><processor key=")") + key + R"(">a</processor></comm>)", "e.xml");
        CHECK_THAT(signed_key, StartsWith("e.xml:1: ") && Contains("must be a number from 0, not '" + std::string(key) + "'"));
    }
}

TEST_CASE("a comm without processors is an error", "[commfile][errors]") {
    const std::string error = parse_error(R"(<communicators>
  <comm name="A"><processor>a</processor></comm>
  <comm name="EMPTY">
    <comm name="B"><processor>a</processor></comm>
  </comm>
</communicators>
)",
                                          "e.xml");
    CHECK_THAT(error, StartsWith("e.xml:3: ") && Contains("comm 'EMPTY' has no processor"));
}

TEST_CASE("an intercomm without a first side is an error", "[commfile][errors]") {
    const std::string error = parse_error(R"(<communicators>
  <comm name="A"><processor>a</processor></comm>
  <comm name="B"><processor>b</processor></comm>
  <intercomm name="X">
    <second>B</second>
  </intercomm>
</communicators>
)",
                                          "e.xml");
    CHECK_THAT(error, StartsWith("e.xml:4: ") && Contains("intercomm 'X' needs a <first>"));
}

TEST_CASE("an intercomm with two second sides is an error", "[commfile][errors]") {
    const std::string error = parse_error(R"(<communicators>
  <comm name="A"><processor>a</processor></comm>
  <comm name="B"><processor>b</processor></comm>
  <intercomm name="X">
    <first>A</first>
    <second>B</second>
    <second>B</second>
  </intercomm>
</communicators>
)",
                                          "e.xml");
    CHECK_THAT(error, StartsWith("e.xml:7: ") && Contains("intercomm 'X' has a second <second> (first at line 6)"));
}

TEST_CASE("an intercomm side naming no comm is an error", "[commfile][errors]") {
    const std::string error = parse_error(R"(<communicators>
  <comm name="A"><processor>a</processor></comm>
  <intercomm name="X">
    <first>NOPE</first>
    <second>A</second>
  </intercomm>
  <intercomm name="Y"><first>A</first><second>X</second></intercomm>
</communicators>
)",
                                          "e.xml");
    CHECK_THAT(error, StartsWith("e.xml:4: ") && Contains("no comm is named 'NOPE'"));
    // An intercomm is not a comm a side may name.
    const std::string inter = parse_error(R"(<communicators>
  <comm name="A"><processor>a</processor></comm>
  <comm name="B"><processor>b</processor></comm>
  <intercomm name="X"><first>A</first><second>B</second></intercomm>
  <intercomm name="Y"><first>A</first><second>X</second></intercomm>
</communicators>
)",
                                          "e.xml");
    CHECK_THAT(inter, StartsWith("e.xml:5: ") && Contains("no comm is named 'X'"));
}

TEST_CASE("a name for both a comm and an intercomm is an error", "[commfile][errors]") {
    const std::string error = parse_error(R"(<communicators>
  <comm name="A"><processor>a</processor></comm>
  <comm name="B"><processor>b</processor></comm>
  <intercomm name="A"><first>A</first><second>B</second></intercomm>
</communicators>
)",
                                          "e.xml");
    CHECK_THAT(error, StartsWith("e.xml:4: ") && Contains("'A' names both an intercomm and the comm at line 2"));
}

TEST_CASE("text where no name is written is an error", "[commfile][errors]") {
    const std::string error = parse_error(R"(<communicators>
  <comm name="A">
    stray
    <processor>a</processor>
  </comm>
</communicators>
)",
                                          "e.xml");
    CHECK_THAT(error, StartsWith("e.xml:2: ") && Contains("unexpected text 'stray' in a comm"));
}

TEST_CASE("an empty name is an error", "[commfile][errors]") {
    const std::string comm = parse_error(R"(<communicators>
  <comm name="">
    <processor>a</processor>
  </comm>
</communicators>
)",
                                         "e.xml");
    CHECK_THAT(comm, StartsWith("e.xml:2: ") && Contains("the name of a comm is empty"));
    const std::string processor = parse_error(R"(<communicators>
  <comm name="A">
    <processor>a</processor>
    <processor>  </processor>
  </comm>
</communicators>
)",
                                              "e.xml");
    CHECK_THAT(processor, StartsWith("e.xml:4: ") && Contains("a processor needs a name"));
    const std::string yaml = parse_error(R"(comms:
  - name: A
    processors: [a, ""]
)",
                                         "e.yaml");
    CHECK_THAT(yaml, StartsWith("e.yaml:3: ") && Contains("the name of a processor is empty"));
}

// ---------------------------------------------------------------------------
// resolve(): the groups of world ranks for one job's processor names

TEST_CASE("a comm's ranks follow the order of its processors", "[commfile][resolve]") {
    const File f = parsed(R"(<communicators>
  <comm name="A">
    <processor>c</processor>
    <processor>a</processor>
    <processor>d</processor>
  </comm>
</communicators>
)",
                          "r.xml");
    const std::vector<Resolved> r = resolve(f, {"a", "b", "c", "d"});
    REQUIRE(r.size() == 1);
    CHECK(group_of(r, f, "A") == ranks({2, 0, 3}));
    CHECK(r[0].second.empty());
}

TEST_CASE("a key fixes the rank of its processor's processes", "[commfile][resolve]") {
    const File f = parsed(R"(comms:
  - name: ONE
    processors: [a, b, {name: c, key: 0}, d]
  - name: SPREAD
    processors: [a, {name: b, key: 3}, c, {name: d, key: 1}]
  - name: MANY
    processors: [a, {name: m, key: 1}, c]
)",
                          "r.yaml");
    // The unkeyed fill the free ranks in their order; a keyed name's
    // processes take consecutive ranks from its key.
    const std::vector<Resolved> r = resolve(f, {"a", "b", "c", "d", "m", "m"});
    CHECK(group_of(r, f, "ONE") == ranks({2, 0, 1, 3}));
    CHECK(group_of(r, f, "SPREAD") == ranks({0, 3, 2, 1}));
    CHECK(group_of(r, f, "MANY") == ranks({0, 4, 5, 2}));
}

TEST_CASE("the processes of one processor name take consecutive ranks in their parent's order", "[commfile][resolve]") {
    const File f = parsed(R"(<communicators>
  <comm name="TOP">
    <processor>b</processor>
    <processor>a</processor>
    <comm name="SUB">
      <processor>a</processor>
      <processor>b</processor>
    </comm>
  </comm>
</communicators>
)",
                          "r.xml");
    const std::vector<Resolved> r = resolve(f, {"a", "b", "a", "c", "b", "a"});
    CHECK(group_of(r, f, "TOP") == ranks({1, 4, 0, 2, 5}));
    CHECK(group_of(r, f, "SUB") == ranks({0, 2, 5, 1, 4}));
}

TEST_CASE("a regular expression's matches come in alphabetical order of their names", "[commfile][resolve]") {
    const File f = parsed(R"(comms:
  - name: N
    processors: ["n[0-9]+"]
  - name: MIXED
    processors: [x, "n1.*", n2]
)",
                          "r.yaml");
    // Alphabetical, not numeric: n10 sorts before n2.
    const std::vector<Resolved> r = resolve(f, {"n3", "n1", "x", "n2", "n10", "n1", "xn1"});
    CHECK(group_of(r, f, "N") == ranks({1, 5, 4, 3, 0}));
    CHECK(group_of(r, f, "MIXED") == ranks({2, 1, 5, 4, 3}));
}

TEST_CASE("a nested regular expression matches among its parent's processes only", "[commfile][resolve]") {
    const File f = parsed(R"(<communicators>
  <comm name="P">
    <processor>q1</processor>
    <processor>p2</processor>
    <comm name="PS"><processor>p.*</processor></comm>
    <comm name="NONE"><processor>p[13]</processor></comm>
  </comm>
</communicators>
)",
                          "r.xml");
    const std::vector<Resolved> r = resolve(f, {"p1", "p2", "q1", "q2", "p3", "p2"});
    CHECK(group_of(r, f, "P") == ranks({2, 1, 5}));
    CHECK(group_of(r, f, "PS") == ranks({1, 5}));
    // p1 and p3 are in the job, outside P.
    const Resolved& none = of(r, f, "NONE");
    CHECK(none.group.empty());
    CHECK_THAT(none.error, StartsWith("r.xml:6: ") && Contains("'p[13]' matches no processor name of the job's "
                                                               "processes of the parent comm 'P'"));
}

TEST_CASE("resolve: a processor name no process has", "[commfile][resolve]") {
    const File f = parsed(R"(<communicators>
  <comm name="OK"><processor>a</processor></comm>
  <comm name="A">
    <processor>a</processor>
    <processor>ghost</processor>
  </comm>
</communicators>
)",
                          "r.xml");
    const std::vector<Resolved> r = resolve(f, {"a", "b"});
    CHECK(group_of(r, f, "OK") == ranks({0}));
    const Resolved& a = of(r, f, "A");
    CHECK(a.group.empty());
    CHECK_THAT(a.error, StartsWith("r.xml:5: ") && Contains("no process of the job has the processor name 'ghost'"));
}

TEST_CASE("resolve: a processor name in the job but not in the parent", "[commfile][resolve]") {
    // parse() lets n1 into SUB because MID's regular expression takes the
    // name; MID holds no n1 process, since TOP has none.
    const File f = parsed(R"(<communicators>
  <comm name="TOP">
    <processor>n2</processor>
    <processor>x</processor>
    <comm name="MID">
      <processor>n[12]</processor>
      <comm name="SUB">
        <processor>n1</processor>
      </comm>
    </comm>
  </comm>
</communicators>
)",
                          "r.xml");
    const std::vector<Resolved> r = resolve(f, {"n1", "n2", "x"});
    CHECK(group_of(r, f, "TOP") == ranks({1, 2}));
    CHECK(group_of(r, f, "MID") == ranks({1}));
    const Resolved& sub = of(r, f, "SUB");
    CHECK(sub.group.empty());
    CHECK_THAT(sub.error, StartsWith("r.xml:8: ") && Contains("processor 'n1' is not in the parent comm 'MID'"));
}

TEST_CASE("resolve: a regular expression matching nothing", "[commfile][resolve]") {
    const File f = parsed(R"(comms:
  - name: A
    processors:
      - a
      - "zz.*"
)",
                          "r.yaml");
    const std::vector<Resolved> r = resolve(f, {"a", "zz"});
    CHECK(group_of(r, f, "A") == ranks({0, 1}));
    const std::vector<Resolved> none = resolve(f, {"a", "z"});
    const Resolved& a = of(none, f, "A");
    CHECK(a.group.empty());
    CHECK_THAT(a.error,
               StartsWith("r.yaml:5: ") && Contains("'zz.*' matches no processor name of the job's processes"));
    CHECK_THAT(a.error, !Contains("parent"));
}

TEST_CASE("resolve: a process selected twice in one comm", "[commfile][resolve]") {
    const File f = parsed(R"(<communicators>
  <comm name="A">
    <processor>b</processor>
    <processor>a</processor>
    <processor>a|c</processor>
  </comm>
</communicators>
)",
                          "r.xml");
    const std::vector<Resolved> r = resolve(f, {"c", "b", "a"});
    CHECK(r[0].group.empty());
    CHECK_THAT(r[0].error,
               StartsWith("r.xml:5: ") && Contains("processor 'a' is selected twice in comm 'A' (also at line 4)"));
}

TEST_CASE("resolve: a key beyond the comm's size", "[commfile][resolve]") {
    const File f = parsed(R"(<communicators>
  <comm name="A">
    <processor>a</processor>
    <processor key="2">b</processor>
  </comm>
</communicators>
)",
                          "r.xml");
    CHECK(group_of(resolve(f, {"a", "x", "a", "b"}), f, "A") == ranks({0, 2, 3}));
    const std::vector<Resolved> r = resolve(f, {"a", "b"});
    CHECK(r[0].group.empty());
    CHECK_THAT(r[0].error, StartsWith("r.xml:4: ") &&
                               Contains("key 2 of processor 'b' puts a process at rank 2, beyond comm 'A' of size 2"));
    // The first of b's processes fits, the second does not.
    const std::vector<Resolved> many = resolve(f, {"b", "a", "b"});
    CHECK(many[0].group.empty());
    CHECK_THAT(many[0].error,
               StartsWith("r.xml:4: ") &&
                   Contains("key 2 of processor 'b' puts a process at rank 3, beyond comm 'A' of size 3"));
}

TEST_CASE("resolve: two keys on one rank", "[commfile][resolve]") {
    const File f = parsed(R"(<communicators>
  <comm name="A">
    <processor key="0">a</processor>
    <processor>c</processor>
    <processor key="1">b</processor>
  </comm>
</communicators>
)",
                          "r.xml");
    CHECK(group_of(resolve(f, {"a", "b", "c"}), f, "A") == ranks({0, 1, 2}));
    // Two a processes take ranks 0 and 1.
    const std::vector<Resolved> r = resolve(f, {"a", "b", "c", "a"});
    CHECK(r[0].group.empty());
    CHECK_THAT(r[0].error, StartsWith("r.xml:5: ") && Contains("key 1 of processor 'b' puts a process at rank 1, which "
                                                               "processor 'a' (line 3) takes too"));
}

TEST_CASE("resolve: intercomm sides that overlap through regular expressions", "[commfile][resolve]") {
    const File f = parsed(R"(comms:
  - {name: A, processors: ["n[12]"]}
  - {name: B, processors: ["n[23]"]}
intercomms:
  - name: X
    first: A
    second: B
)",
                          "r.yaml");
    const std::vector<Resolved> apart = resolve(f, {"n1", "n3"});
    CHECK(of(apart, f, "X").error.empty());
    CHECK(of(apart, f, "X").group == ranks({0}));
    CHECK(of(apart, f, "X").second == ranks({1}));
    const std::vector<Resolved> r = resolve(f, {"n3", "n2", "n1"});
    CHECK(group_of(r, f, "A") == ranks({2, 1}));
    CHECK(group_of(r, f, "B") == ranks({1, 0}));
    const Resolved& x = of(r, f, "X");
    CHECK(x.group.empty());
    CHECK(x.second.empty());
    CHECK_THAT(x.error, StartsWith("r.yaml:5: ") &&
                            Contains("the sides of intercomm 'X' overlap: processor 'n2' is in both 'A' and 'B'"));
}

TEST_CASE("resolve: an error in a comm is its sub-comms' and intercomms' error too", "[commfile][resolve]") {
    const File f = parsed(R"(<communicators>
  <comm name="P">
    <processor>a</processor>
    <processor>b</processor>
    <processor>ghost</processor>
    <comm name="C"><processor>a</processor>
      <comm name="D"><processor>a</processor></comm>
    </comm>
    <comm name="E"><processor>b</processor></comm>
    <intercomm name="CE"><first>C</first><second>E</second></intercomm>
  </comm>
  <comm name="OK"><processor>a</processor></comm>
  <comm name="OK2"><processor>b</processor></comm>
  <intercomm name="FINE"><first>OK</first><second>OK2</second></intercomm>
</communicators>
)",
                          "r.xml");
    const std::vector<Resolved> r = resolve(f, {"a", "b"});
    const std::string why = of(r, f, "P").error;
    CHECK_THAT(why, StartsWith("r.xml:5: ") && Contains("'ghost'"));
    for (const char* name : {"C", "D", "E", "CE"}) {
        INFO(name);
        CHECK(of(r, f, name).error == why);
        CHECK(of(r, f, name).group.empty());
    }
    CHECK(group_of(r, f, "FINE") == ranks({0}));
    CHECK(of(r, f, "FINE").second == ranks({1}));
}

TEST_CASE("resolve: an intercomm's group is its first side, second its second side", "[commfile][resolve]") {
    const File f = parsed(R"(<communicators>
  <comm name="W">
    <processor>p4-.*</processor>
    <processor>pd-.*</processor>
    <comm name="P4"><processor>p4-0[12]</processor></comm>
    <comm name="PD"><processor key="0">pd-02</processor><processor>pd-01</processor></comm>
    <intercomm name="BOTH"><first>PD</first><second>P4</second></intercomm>
  </comm>
</communicators>
)",
                          "r.xml");
    const std::vector<Resolved> r = resolve(f, {"pd-01", "p4-02", "pd-02", "p4-01", "x"});
    CHECK(group_of(r, f, "W") == ranks({3, 1, 0, 2}));
    CHECK(group_of(r, f, "P4") == ranks({3, 1}));
    CHECK(group_of(r, f, "PD") == ranks({2, 0}));
    const Resolved& both = of(r, f, "BOTH");
    CHECK(both.error.empty());
    CHECK(both.group == ranks({2, 0}));
    CHECK(both.second == ranks({3, 1}));
    CHECK(f.defs[static_cast<std::size_t>(def(f, "BOTH"))].parent == def(f, "W"));
}

TEST_CASE("resolve: the shipped example files", "[commfile][resolve]") {
    const std::vector<std::string> hosts{"p4-01", "p4-02", "p4-03", "p4-04", "pd-01", "pd-02", "pd-03", "pd-04"};
    for (const char* ext : {".xml", ".yaml"}) {
        const std::string dir = std::string(STRATA_NAMED_EXAMPLES) + "/";
        INFO(ext);
        const strata::base::Result<File> colors = load(dir + "colors" + ext);
        const strata::base::Result<File> sites = load(dir + "sites" + ext);
        const strata::base::Result<File> grid = load(dir + "grid" + ext);
        INFO(colors.error() << sites.error() << grid.error());
        REQUIRE((colors && sites && grid));

        const std::vector<Resolved> c = resolve(*colors, hosts);
        CHECK(group_of(c, *colors, "RED") == ranks({4, 0, 1, 5}));
        CHECK(group_of(c, *colors, "PINK") == ranks({5, 0, 1}));
        CHECK(group_of(c, *colors, "BLACK") == ranks({2, 3, 6, 7}));

        const std::vector<Resolved> s = resolve(*sites, hosts);
        CHECK(group_of(s, *sites, "P4_PD") == ranks({0, 1, 2, 3}));
        CHECK(of(s, *sites, "P4_PD").second == ranks({4, 5, 6, 7}));

        const std::vector<Resolved> g = resolve(*grid, hosts);
        CHECK(group_of(g, *grid, "HORIZONTAL", 0) == ranks({0, 1, 2, 3}));
        CHECK(group_of(g, *grid, "HORIZONTAL", 1) == ranks({4, 5, 6, 7}));
        for (int col = 0; col < 4; ++col) CHECK(group_of(g, *grid, "VERTICAL", col) == ranks({col, col + 4}));
        CHECK(group_of(g, *grid, "EDGES") == ranks({0, 4}));
        CHECK(of(g, *grid, "EDGES").second == ranks({3, 7}));
    }
}

// ---------------------------------------------------------------------------
// generate(): the file mpirun -gencomm writes

namespace {

File generated(const std::vector<Place>& places) {
    const strata::base::Result<std::string> text = generate(places);
    INFO(text.error());
    REQUIRE(text.ok());
    INFO(*text);
    return parsed(*text, "gencomm");
}

std::vector<std::string> names_of(const std::vector<Place>& places) {
    std::vector<std::string> out;
    for (const Place& p : places) out.push_back(p.processor_name);
    return out;
}

}  // namespace

TEST_CASE("generate: a comm per site, a comm per machine inside it, an intercomm per two sites",
          "[commfile][generate]") {
    const std::vector<Place> places{
        {"A", "m1", "a1"}, {"A", "m1", "a1"}, {"B", "m3", "b3"}, {"A", "m2", "a2"},
        {"C", "m4", "c4"}, {"A", "m1", "a1x"}, {"B", "m3", "b3"}, {"A", "m2", "a2"},
    };
    const File f = generated(places);
    CHECK(f.names == std::vector<std::string>{"A", "m1", "m2", "B", "m3", "C", "m4", "A_B", "A_C", "B_C"});
    CHECK(summary(f) == std::vector<std::string>{
                            "comm A color 0 in -1: a1 a2 a1x",
                            "comm m1 color 0 in 0: a1 a1x",
                            "comm m2 color 0 in 0: a2",
                            "comm B color 0 in -1: b3",
                            "comm m3 color 0 in 3: b3",
                            "comm C color 0 in -1: c4",
                            "comm m4 color 0 in 5: c4",
                            "intercomm A_B color 0 in -1: 0 3",
                            "intercomm A_C color 0 in -1: 0 5",
                            "intercomm B_C color 0 in -1: 3 5",
                        });
    const std::vector<Resolved> r = resolve(f, names_of(places));
    // A processor name's processes stay together, in the order names first appear.
    CHECK(group_of(r, f, "A") == ranks({0, 1, 3, 7, 5}));
    CHECK(group_of(r, f, "m1") == ranks({0, 1, 5}));
    CHECK(group_of(r, f, "m2") == ranks({3, 7}));
    CHECK(group_of(r, f, "B") == ranks({2, 6}));
    CHECK(group_of(r, f, "m3") == ranks({2, 6}));
    CHECK(group_of(r, f, "C") == ranks({4}));
    CHECK(group_of(r, f, "m4") == ranks({4}));
    CHECK(group_of(r, f, "A_B") == ranks({0, 1, 3, 7, 5}));
    CHECK(of(r, f, "A_B").second == ranks({2, 6}));
    CHECK(group_of(r, f, "A_C") == ranks({0, 1, 3, 7, 5}));
    CHECK(of(r, f, "A_C").second == ranks({4}));
    CHECK(group_of(r, f, "B_C") == ranks({2, 6}));
    CHECK(of(r, f, "B_C").second == ranks({4}));
}

TEST_CASE("generate: an empty job and a single site", "[commfile][generate]") {
    CHECK(generated({}).defs.empty());
    const File one = generated({{"S", "m", "h"}, {"S", "m", "h"}});
    CHECK(summary(one) == std::vector<std::string>{"comm S color 0 in -1: h", "comm m color 0 in 0: h"});
    CHECK(group_of(resolve(one, {"h", "h"}), one, "m") == ranks({0, 1}));
}

TEST_CASE("generate: a machine label that is taken is qualified by its site", "[commfile][generate]") {
    // Equal to its own site's label.
    const File own = generated({{"A", "A", "x"}, {"B", "m", "y"}});
    CHECK(own.names == std::vector<std::string>{"A", "A_A", "B", "m", "A_B"});
    CHECK(own.defs[static_cast<std::size_t>(def(own, "A_A"))].parent == def(own, "A"));

    // Equal to another site's label.
    const File other = generated({{"A", "C", "x"}, {"C", "m", "y"}});
    CHECK(other.names == std::vector<std::string>{"A", "A_C", "C", "m", "A_C_2"});
    CHECK(summary(other).back() == "intercomm A_C_2 color 0 in -1: 0 2");

    // Used by machines of two sites.
    const File shared = generated({{"A", "m", "x"}, {"B", "m", "y"}});
    CHECK(shared.names == std::vector<std::string>{"A", "A_m", "B", "B_m", "A_B"});
    const std::vector<Resolved> r = resolve(shared, {"x", "y"});
    CHECK(group_of(r, shared, "A_m") == ranks({0}));
    CHECK(group_of(r, shared, "B_m") == ranks({1}));
}

TEST_CASE("generate: processor names that look like regular expressions match exactly themselves",
          "[commfile][generate]") {
    // Site T's names are what S's would match if written unescaped.
    const std::vector<Place> places{
        {"S", "s", "a+b"}, {"T", "t", "aab"}, {"S", "s", "h[1]"}, {"T", "t", "h1"},
        {"S", "s", "x.y*"}, {"T", "t", "xzy"}, {"S", "s", "(p|q)"}, {"T", "t", "p"},
        {"T", "t", "c.d"}, {"S", "s", "c-d"}, {"T", "t", "<&\">"},
    };
    const strata::base::Result<std::string> text = generate(places);
    REQUIRE(text.ok());
    CHECK_THAT(*text, Contains("<processor>a\\+b</processor>") && Contains("<processor>h\\[1\\]</processor>") &&
                          Contains("<processor>x\\.y\\*</processor>") && Contains("<processor>c.d</processor>") &&
                          Contains("<processor>&lt;&amp;&quot;&gt;</processor>"));
    const File f = generated(places);
    const std::vector<Resolved> r = resolve(f, names_of(places));
    CHECK(group_of(r, f, "S") == ranks({0, 2, 4, 6, 9}));
    CHECK(group_of(r, f, "T") == ranks({1, 3, 5, 7, 8, 10}));
    CHECK(group_of(r, f, "s") == ranks({0, 2, 4, 6, 9}));
    CHECK(group_of(r, f, "t") == ranks({1, 3, 5, 7, 8, 10}));
    CHECK(group_of(r, f, "S_T") == ranks({0, 2, 4, 6, 9}));
    CHECK(of(r, f, "S_T").second == ranks({1, 3, 5, 7, 8, 10}));
}

TEST_CASE("generate: a processor name on two machines is an error", "[commfile][generate]") {
    std::string error = failure_of(generate({{"A", "m1", "h"}, {"A", "m1", "h"}, {"A", "m2", "h"}}));
    CHECK_THAT(error, Contains("processor name 'h' is on machine 'm1' of site 'A' and on machine 'm2' of site 'A'"));
    error.clear();
    error = failure_of(generate({{"A", "m", "h"}, {"B", "m", "h"}}));
    CHECK_THAT(error, Contains("processor name 'h' is on machine 'm' of site 'A' and on machine 'm' of site 'B'"));
}

TEST_CASE("generate: names made from long labels are cut to fit, and stay apart", "[commfile][generate]") {
    const std::string a(140, 'a');
    const std::string b(70, 'b');
    // Two sites whose labels agree in their first 127 characters, and an
    // intercomm name of 141 characters.
    const File f = generated({{a + "1", "m1", "x"}, {a + "2", "m2", "y"}, {b, "m3", "z"}});
    for (const Definition& d : f.defs) CHECK(d.name.size() <= 127);
    REQUIRE(f.names.size() == 9);
    CHECK(f.names[0] == a.substr(0, 127));
    CHECK(f.names[2] == a.substr(0, 125) + "_2");
    const std::vector<Resolved> r = resolve(f, {"x", "y", "z"});
    CHECK(r[static_cast<std::size_t>(def(f, f.names[2]))].group == ranks({1}));
}

TEST_CASE("generate: processor names with spaces around them still match", "[commfile][generate]") {
    const std::vector<Place> places{{"A", "m", " x"}, {"A", "m", "y "}, {"B", "n", "z"}};
    const File f = generated(places);
    const std::vector<Resolved> r = resolve(f, names_of(places));
    CHECK(r[static_cast<std::size_t>(def(f, "A"))].error.empty());
    CHECK(group_of(r, f, "A") == ranks({0, 1}));
}

TEST_CASE("generate: labels XML cannot carry are an error", "[commfile][generate]") {
    for (const std::string& bad : {std::string(), std::string("a\tb"), std::string("a\x01"), std::string("\xff"),
                                   std::string("\xc0\x80"), std::string("\xed\xa0\x80"), std::string("\xe2\x82")}) {
        const std::string error = failure_of(generate({{"A", "m", bad}}));
        CHECK_THAT(error, Contains("cannot name a communicator"));
    }
    // Other UTF-8 is fine.
    const File f = generated({{"Zürich", "m", "knoten-ü"}, {"東京", "n", "节点"}});
    CHECK(f.names.front() == "Zürich");
    CHECK(group_of(resolve(f, {"knoten-ü", "节点"}), f, "東京") == ranks({1}));
}

TEST_CASE("a processor longer than any processor name, escaped, is an error", "[commfile][errors]") {
    const std::string long_name(511, 'p');
    const std::string error = parse_error(
        "<communicators>\n<comm name='A'><processor>" + long_name + "</processor></comm>\n</communicators>\n",
        "long.xml");
    CHECK_THAT(error, StartsWith("long.xml:2: ") && Contains("longer than 510 characters"));
    const std::string fits(510, 'p');
    CHECK(parsed("<communicators><comm name='A'><processor>" + fits + "</processor></comm></communicators>", "ok.xml")
              .defs.size() == 1);
}

TEST_CASE("generate: the longest processor name full of regular expression characters reads back",
          "[commfile][generate]") {
    // Found by fuzzing: escaped, such a name doubles.
    const std::string name = "1" + std::string(254, '^');
    const File f = generated({{"A", "m", name}, {"B", "n", "b"}});
    CHECK(group_of(resolve(f, {name, "b"}), f, "A") == ranks({0}));
    const std::string error = failure_of(generate({{"A", "m", std::string(256, 'x')}}));
    CHECK_THAT(error, Contains("longer than MPI_MAX_PROCESSOR_NAME allows"));
}

// ---------------------------------------------------------------------------
// The MetaMPICH paper's files, character for character as printed: top-level
// elements with no root around them.

namespace {

const char* const kPaperColors = R"(<comm name="MPI_COMM_RED">
  <processor>pd-01</processor>
  <processor>pd-02</processor>
  <comm name="MPI_COMM_PINK">
    <processor>pd-02</processor>
  </comm>
</comm>
<comm name="MPI_COMM_RED">
  <processor>pd-03</processor>
</comm>
<comm name="MPI_COMM_BLACK">
  <processor>pd-04</processor>
</comm>
)";

const char* const kPaperInter = R"(<intercomm name="MPI_COMM_INTER">
  <first color="1">MPI_COMM_RED</first>
  <second>MPI_COMM_BLACK</second>
</intercomm>
)";

const char* const kPaperSites = R"(<comm name="MPI_COMM_P4">
  <processor>p4-01</processor>
  <processor>p4-02</processor>
  <processor>p4-03</processor>
  <processor>p4-04</processor>
</comm>
<comm name="MPI_COMM_PD">
  <processor>pd-01</processor>
  <processor>pd-02</processor>
  <processor>pd-03</processor>
  <processor>pd-04</processor>
</comm>
<intercomm name="MPI_COMM_INTER">
  <first>MPI_COMM_P4</first>
  <second>MPI_COMM_PD</second>
</intercomm>
)";

const std::vector<std::string> kPaperHosts = {"p4-01", "p4-02", "p4-03", "p4-04", "pd-01", "pd-02", "pd-03", "pd-04"};

}  // namespace

TEST_CASE("the paper's files with no root element read as if wrapped in one", "[commfile][parse][paper]") {
    const File colors = parsed(kPaperColors, "colors.xml");
    CHECK(summary(colors) == std::vector<std::string>{"comm MPI_COMM_RED color 0 in -1: pd-01 pd-02",
                                                      "comm MPI_COMM_PINK color 0 in 0: pd-02",
                                                      "comm MPI_COMM_RED color 1 in -1: pd-03",
                                                      "comm MPI_COMM_BLACK color 0 in -1: pd-04"});
    CHECK(colors.defs[1].line == 4);  // lines are the file's own
    std::vector<Resolved> r = resolve(colors, kPaperHosts);
    CHECK(group_of(r, colors, "MPI_COMM_RED") == ranks({4, 5}));
    CHECK(group_of(r, colors, "MPI_COMM_PINK") == ranks({5}));
    CHECK(group_of(r, colors, "MPI_COMM_RED", 1) == ranks({6}));

    // The intercomm fragment after the first file: "an interlinking domain
    // between the processors pd-03 and pd-04".
    const File inter = parsed(std::string(kPaperColors) + kPaperInter, "inter.xml");
    r = resolve(inter, kPaperHosts);
    const Resolved& i = of(r, inter, "MPI_COMM_INTER");
    CHECK(i.error.empty());
    CHECK(i.group == ranks({6}));
    CHECK(i.second == ranks({7}));

    const File sites = parsed(kPaperSites, "sites.xml");
    r = resolve(sites, kPaperHosts);
    CHECK(group_of(r, sites, "MPI_COMM_P4") == ranks({0, 1, 2, 3}));
    const Resolved& s = of(r, sites, "MPI_COMM_INTER");
    CHECK(s.group == ranks({0, 1, 2, 3}));
    CHECK(s.second == ranks({4, 5, 6, 7}));

    // With an XML declaration and a comment before the first element too.
    const File declared = parsed(std::string("<?xml version=\"1.0\"?>\n<!-- the paper's -->\n") + kPaperSites, "d.xml");
    CHECK(declared.defs.size() == 3);
    CHECK(declared.defs[0].line == 3);
}

TEST_CASE("a file with no root element still gets the first error and its line", "[commfile][errors][paper]") {
    // Unclosed <comm> before the second top-level element.
    CHECK_THAT(parse_error("<comm name=\"A\">\n  <processor>a</processor>\n<comm name=\"B\">\n"
                           "  <processor>b</processor>\n</comm>\n",
                           "open.xml"),
               StartsWith("open.xml:") && Contains("malformed XML"));
    // Well-formed pieces, one of them wrong for a communicator file.
    CHECK_THAT(parse_error("<comm name=\"A\"><processor>a</processor></comm>\n<comm name=\"B\">\n  <procesor>b</procesor>\n"
                           "</comm>\n",
                           "typo.xml"),
               StartsWith("typo.xml:3: unknown element <procesor> in a comm"));
    // Text between the elements is text in no comm.
    CHECK_THAT(parse_error("<comm name=\"A\"><processor>a</processor></comm>\nstray\n", "stray.xml"),
               StartsWith("stray.xml:1: unexpected text 'stray' in a communicators"));
}
