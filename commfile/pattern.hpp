// Processor-name patterns of communicator files: regular expressions in the
// ECMAScript syntax, less what cannot be matched without backtracking
// (backreferences, lookahead and lookbehind), matched against whole names.
//
// A pattern compiles to a Thompson automaton that match() runs breadth-first
// over the name: every state is visited at most once per character, so a
// match takes time proportional to the name's length times the program's
// size, with memory proportional to the program, and nothing recurses per
// character. Counted repetitions are expanded when compiling, so the
// program's size is bounded (max_program) and a pattern whose expansion is
// larger is refused rather than run.
//
// Syntax: literals; `.` (any byte but \n and \r); `[...]` and `[^...]` with
// ranges and the escapes below; `\d \D \w \W \s \S`; `\t \n \r \f \v \0`,
// `\xHH`, `\uHHHH` (up to 00FF), `\cX`, and `\` before punctuation for the
// character itself; `^ $ \b \B`; groups `(...)` and `(?:...)`; `|`;
// `* + ? {n} {n,} {n,m}`, each optionally followed by `?` (lazy and greedy
// match the same whole names).
#pragma once

#include "base/result.hpp"

#include <bitset>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace strata::commfile {

class Pattern {
public:
    // The largest compiled program, in instructions.
    static constexpr std::size_t max_program = 20000;
    // The largest count of a {n,m} repetition.
    static constexpr int max_count = 1000;
    // The deepest nesting of groups.
    static constexpr int max_depth = 100;

    // The pattern `text`, or what is wrong with it.
    static base::Result<Pattern> compile(std::string_view text);

    // Whether the whole of `name` matches. `steps`, when given, receives the
    // number of automaton states visited: at most (name.size() + 1) * size().
    bool match(std::string_view name, std::size_t* steps = nullptr) const;

    // The compiled program's size, in instructions.
    std::size_t size() const { return prog_.size(); }

private:
    enum class Op : std::uint8_t { set, split, jump, line_begin, line_end, boundary, not_boundary, match };
    struct Inst {
        Op op = Op::match;
        int x = 0;  // set: index into sets_; split, jump: the (first) next instruction
        int y = 0;  // split: the other next instruction
    };
    friend class PatternCompiler;

    std::vector<Inst> prog_;
    std::vector<std::bitset<256>> sets_;
};

}  // namespace strata::commfile
