#include <catch2/catch.hpp>

#include "base/fields.hpp"

#include <cctype>
#include <string>
#include <vector>

using strata::base::Entry;
using strata::base::Error;
using strata::base::Field;
using strata::base::Locator;
using strata::base::Map;
using strata::base::Position;
using strata::base::Status;
using strata::base::Table;

namespace {

// A source of the simplest kind: values are their text, places are worded
// "f:LINE:COLUMN: what".
class Places final : public Locator {
public:
    Error at(const Position& where, const std::string& what) const override {
        // Piece by piece: GCC 12 at -O3 warns (-Wrestrict, wrongly) on ":" + a temporary string.
        std::string place = "f";
        if (where.line > 0) {
            place += ':';
            place += where.text();
        }
        return Error{place + ": " + what};
    }
};
const Places kPlaces;

Map<std::string> map_of(std::vector<Entry<std::string>> entries, Position position = {1, 1}) {
    return Map<std::string>{&kPlaces, position, std::move(entries)};
}

struct Out {
    std::string host;
    int port = 0;
    std::vector<std::string> read;  // the keys, in the order their readers ran
};

Status host_read(const Entry<std::string>& e, Out& out) {
    out.read.push_back(e.key);
    if (e.value.empty()) return kPlaces.at(e.position, "'" + e.key + "' is empty");
    out.host = e.value;
    return {};
}

Status port_read(const Entry<std::string>& e, Out& out) {
    out.read.push_back(e.key);
    out.port = std::stoi(e.value);
    return {};
}

Status mode_read(const Entry<std::string>& e, Out& out) {
    out.read.push_back(e.key);
    return {};
}

const Field<Out, std::string> kFields[] = {
    {"host", host_read, "no 'host'; name one"},
    {"port", port_read},
    {"mode", mode_read, nullptr, "fast or safe"},
};
const Table<Out, std::string> kTable{kFields};

}  // namespace

TEST_CASE("fields: each entry goes to its field's reader, in the order of the file", "[fields]") {
    Out out;
    REQUIRE(fields_read(kTable, map_of({{"port", {2, 1}, "80"}, {"host", {1, 1}, "a"}}), out).ok());
    CHECK(out.host == "a");
    CHECK(out.port == 80);
    CHECK(out.read == std::vector<std::string>{"port", "host"});
}

TEST_CASE("fields: a key given twice is refused where it is given the second time", "[fields]") {
    Out out;
    const Status s =
        fields_read(kTable, map_of({{"host", {1, 1}, "a"}, {"port", {2, 1}, "1"}, {"host", {3, 5}, "b"}}), out);
    CHECK(s.error() == "f:3:5: 'host' is given twice (first at 1:1)");
    CHECK(out.host == "a");  // the second one is not read
}

TEST_CASE("fields: an unknown key is refused with the names the table has", "[fields]") {
    Out out;
    CHECK(fields_read(kTable, map_of({{"hots", {2, 3}, "a"}}), out).error() ==
          "f:2:3: unknown key 'hots'; expected host, port or mode (fast or safe)");
    Table<Out, std::string> settings{kFields, "setting", " in 'server'"};
    CHECK(fields_read(settings, map_of({{"hots", {2, 3}, "a"}}), out).error() ==
          "f:2:3: unknown setting 'hots' in 'server'; expected host, port or mode (fast or safe)");
    CHECK(fields_expected(Table<Out, std::string>{std::span(kFields, 1)}) == "host");
    CHECK(fields_expected(Table<Out, std::string>{std::span(kFields, 2)}) == "host or port");
}

TEST_CASE("fields: a required field not given is reported at the map, after every entry is read", "[fields]") {
    Out out;
    CHECK(fields_read(kTable, map_of({{"port", {4, 3}, "1"}}, {4, 1}), out).error() == "f:4:1: no 'host'; name one");
    CHECK(out.port == 1);
    // A map without a place: the file as a whole.
    CHECK(fields_read(kTable, map_of({}, {}), out).error() == "f: no 'host'; name one");
}

TEST_CASE("fields: a reader's failure is the result, and later entries are not read", "[fields]") {
    Out out;
    CHECK(
        fields_read(kTable, map_of({{"mode", {1, 1}, ""}, {"host", {2, 7}, ""}, {"port", {3, 1}, "9"}}), out).error() ==
        "f:2:7: 'host' is empty");
    CHECK(out.read == std::vector<std::string>{"mode", "host"});
    CHECK(out.port == 0);
}

TEST_CASE("fields: keys may compare folded, and messages name them as written", "[fields]") {
    Table<Out, std::string> folded{kFields};
    folded.fold = [](const std::string& key) {
        std::string out;
        for (char c : key)
            if (c != '_') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        return out;
    };
    Out out;
    REQUIRE(fields_read(folded, map_of({{"HOST", {1, 1}, "a"}, {"Po_rt", {1, 9}, "7"}}), out).ok());
    CHECK(out.host == "a");
    CHECK(out.port == 7);
    CHECK(fields_read(folded, map_of({{"host", {1, 1}, "a"}, {"H_OST", {2, 2}, "b"}}), out).error() ==
          "f:2:2: 'H_OST' is given twice (first at 1:1)");
    CHECK(fields_read(folded, map_of({{"Hots", {1, 1}, "a"}}), out).error() ==
          "f:1:1: unknown key 'Hots'; expected host, port or mode (fast or safe)");
}

TEST_CASE("fields: a table may word unknown keys itself", "[fields]") {
    Table<Out, std::string> own{kFields};
    own.unknown = [](const Entry<std::string>& e, Out& out) -> Status {
        out.read.push_back("?" + e.key);
        if (e.key == "bad") return Error{"no '" + e.key + "' here"};
        return {};
    };
    Out out;
    REQUIRE(fields_read(own, map_of({{"extra", {1, 1}, ""}, {"host", {2, 1}, "h"}}), out).ok());
    CHECK(out.read == std::vector<std::string>{"?extra", "host"});
    CHECK(fields_read(own, map_of({{"bad", {1, 1}, ""}}), out).error() == "no 'bad' here");
    // Unknown keys given twice are still refused.
    CHECK(
        fields_read(own, map_of({{"extra", {1, 1}, ""}, {"extra", {2, 1}, ""}, {"host", {3, 1}, "h"}}), out).error() ==
        "f:2:1: 'extra' is given twice (first at 1:1)");
}
