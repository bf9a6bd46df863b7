// The processor-name matcher of communicator files: ECMAScript syntax less
// backreferences and lookaround, matched in time linear in the name.
#include "commfile/pattern.hpp"

#include <catch2/catch.hpp>
#include "tests/unit/result_check.hpp"

#include <cstdint>
#include <random>
#include <regex>
#include <string>
#include <tuple>
#include <vector>

using strata::commfile::Pattern;
using strata::test::failure_of;
using Catch::Contains;

namespace {

Pattern compiled(const std::string& text) {
    auto p = Pattern::compile(text);
    INFO(text << ": " << (p ? std::string() : p.failure().text));
    REQUIRE(p.ok());
    return std::move(*p);
}

bool matches(const std::string& pattern, const std::string& name) { return compiled(pattern).match(name); }

}  // namespace

TEST_CASE("pattern: the syntax processor names use", "[commfile][pattern]") {
    const std::vector<std::tuple<std::string, std::string, bool>> cases = {
        {"p4-0[12]", "p4-01", true},
        {"p4-0[12]", "p4-03", false},
        {"p4-0[12]", "p4-012", false},  // whole names only
        {"p4-.*", "p4-", true},
        {"p4-.*", "p4-anything", true},
        {"p4-.*", "pd-01", false},
        {"node[0-9]+", "node17", true},
        {"node[0-9]+", "node", false},
        {"node\\d{2}", "node07", true},
        {"node\\d{2}", "node7", false},
        {"node\\d{2,}", "node007", true},
        {"node\\d{1,2}", "node007", false},
        {"(a|bc)*d", "abcad", true},
        {"(a|bc)*d", "abd", false},
        {"(?:ab)?c", "abc", true},
        {"(?:ab)?c", "c", true},
        {"(?:ab)?c", "ac", false},
        {"[^a-c]x", "dx", true},
        {"[^a-c]x", "bx", false},
        {"[-a]x", "-x", true},
        {"[a-]x", "-x", true},
        {"[\\d_]+", "1_2", true},
        {"[\\]]", "]", true},
        {"\\w+\\.example\\.org", "c1.example.org", true},
        {"\\w+\\.example\\.org", "c1xexample.org", false},
        {"a\\sb", "a b", true},
        {"\\S+", "a b", false},
        {"\\x41\\u0042", "AB", true},
        {"a.b", "a\nb", false},
        {"^p4$", "p4", true},
        {"a^b", "ab", false},
        {"\\bnode\\b", "node", true},
        {"a\\Bb", "ab", true},
        {"a\\bb", "ab", false},
        {"x*", "", true},
        {"x+", "", false},
        {"a|", "", true},
        {"()", "", true},
        {"a+?b", "aab", true},
        {"a{2}?", "aa", true},
        {"[]", "", false},
        {"[]a", "a", false},
        {"[^]", "\n", true},
        {"(a*)*b", "aaab", true},
        {"(a*)*b", "aaa", false},
        {"(|a)+", "aaa", true},
        {"\\{\\}", "{}", true},
        {"a}", "a}", true},
    };
    for (const auto& [pattern, name, want] : cases) {
        INFO(pattern << " against '" << name << "'");
        CHECK(matches(pattern, name) == want);
    }
}

TEST_CASE("pattern: what cannot be matched without backtracking, or is malformed, is refused", "[commfile][pattern]") {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"(a)\\1", "backreferences are not supported"},
        {"a(?=b)", "lookahead and lookbehind are not supported"},
        {"a(?!b)", "lookahead and lookbehind are not supported"},
        {"a(?<=b)", "lookahead and lookbehind are not supported"},
        {"node[0-9", "'[' is not closed"},
        {"(ab", "'(' is not closed"},
        {"ab)", "')' closes no group"},
        {"*a", "nothing to repeat before '*'"},
        {"a**", "nothing to repeat before '*'"},
        {"^*", "nothing to repeat before '*'"},
        {"a{x}", "'{' starts no count"},
        {"a{2", "'{' starts no count"},
        {"a{3,2}", "out of order"},
        {"a{1001}", "a count above 1000"},
        {"a{99999999999999999999}", "a count above 1000"},
        {"[z-a]", "out of order"},
        {"[\\d-z]", "cannot start or end at a class"},
        {"\\q", "unknown escape '\\q'"},
        {"\\x4", "needs 2 hex digits"},
        {"\\u0100", "above 00FF"},
        {"\\c1", "must be followed by a letter"},
        {"a\\", "ends in '\\'"},
        {"(a{1000}){1000}", "the pattern is too large"},
        {std::string(101, '(') + std::string(101, ')'), "nested more than 100 deep"},
    };
    for (const auto& [pattern, why] : cases) {
        INFO(pattern);
        CHECK_THAT(failure_of(Pattern::compile(pattern)), Contains(why));
    }
    // Where it went wrong is named.
    CHECK_THAT(failure_of(Pattern::compile("ab[")), Contains("'[' is not closed (at character 3)"));
    CHECK_THAT(failure_of(Pattern::compile("a(b|c")), Contains("'(' is not closed (at character 2)"));
    CHECK_THAT(failure_of(Pattern::compile("ab{3,1}")), Contains("(at character 3)"));
}

TEST_CASE("pattern: a match visits each state at most once per character", "[commfile][pattern]") {
    // The case that hung std::regex: 40 stars after "p4" and a 40-character
    // name that does not match. ECMAScript has no "4**"; the patterns that
    // mean it are a run of "4*" and of "(4*)*".
    CHECK_THAT(failure_of(Pattern::compile("p4" + std::string(40, '*') + "-0[12]")), Contains("nothing to repeat"));
    std::string runs = "p4", groups = "p4";
    for (int i = 0; i < 40; ++i) {
        runs += "4*";
        groups += "(4*)*";
    }
    const std::string name = "p" + std::string(38, '4') + "x";
    for (const std::string& text : {runs + "-0[12]", groups + "-0[12]"}) {
        INFO(text);
        const Pattern p = compiled(text);
        std::size_t steps = 0;
        CHECK_FALSE(p.match(name, &steps));
        CHECK(steps <= (name.size() + 1) * p.size());
        const std::string good = "p" + std::string(50, '4') + "-01";
        CHECK(p.match(good, &steps));
        CHECK(steps <= (good.size() + 1) * p.size());
    }

    // A long name reads character by character without recursion.
    const Pattern nested = compiled("(a*)*b");
    const std::string long_name(200000, 'a');
    std::size_t steps = 0;
    CHECK_FALSE(nested.match(long_name, &steps));
    CHECK(steps <= (long_name.size() + 1) * nested.size());
    CHECK(nested.match(long_name + "b"));
}

namespace {

// A random pattern of the common syntax over the letters a, b and '-'.
std::string random_pattern(std::mt19937& rng, int depth) {
    auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
    std::string out;
    const int parts = 1 + pick(3);
    for (int i = 0; i < parts; ++i) {
        std::string atom;
        switch (depth > 1 ? pick(4) : pick(7)) {
        case 0: atom = "a"; break;
        case 1: atom = "b"; break;
        case 2: atom = "."; break;
        case 3: atom = pick(2) ? "[ab]" : "[^a]"; break;
        case 4: atom = "(" + random_pattern(rng, depth + 1) + ")"; break;
        case 5: atom = "(?:" + random_pattern(rng, depth + 1) + "|" + random_pattern(rng, depth + 1) + ")"; break;
        default: atom = "\\-"; break;
        }
        // std::regex backtracks, and loops on a starred group that matches
        // nothing: groups get at most a '?' or a count of 2.
        static const char* const quantifiers[] = {"", "", "?", "{2}", "*", "+", "{0,2}", "{1,}", "*?"};
        out += atom + quantifiers[pick(atom[0] == '(' ? 4 : 9)];
    }
    if (pick(5) == 0) out += "|" + random_pattern(rng, depth + 1);
    return out;
}

}  // namespace

TEST_CASE("pattern: agrees with std::regex on the syntax both accept", "[commfile][pattern]") {
    std::mt19937 rng(20261205);
    const char letters[] = {'a', 'b', '-'};
    int compared = 0;
    for (int i = 0; i < 400; ++i) {
        const std::string text = random_pattern(rng, 0);
        const std::regex reference(text, std::regex::ECMAScript);
        const Pattern ours = compiled(text);
        for (int j = 0; j < 25; ++j) {
            std::string name;
            const int length = static_cast<int>(rng() % 7);
            for (int k = 0; k < length; ++k) name += letters[rng() % 3];
            INFO(text << " against '" << name << "'");
            CHECK(ours.match(name) == std::regex_match(name, reference));
            ++compared;
        }
    }
    CHECK(compared == 10000);
}
