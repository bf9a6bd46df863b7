#include "commfile/pattern.hpp"

#include <string>
#include <utility>

namespace strata::commfile {

namespace {

using Set = std::bitset<256>;

// The parsed pattern, a tree in one vector.
struct Node {
    enum class Kind : std::uint8_t { empty, set, assertion, concat, alt, repeat };
    Kind kind = Kind::empty;
    int set = 0;                // set: index into the pattern's sets
    int assertion = 0;          // assertion: an Op, as an int
    std::vector<int> kids;      // concat, alt: the parts; repeat: the one repeated
    int min = 0, max = 0;       // repeat: max < 0 is unbounded
};

bool is_word(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

Set set_of(bool (*pred)(unsigned char)) {
    Set s;
    for (int c = 0; c < 256; ++c) s[static_cast<std::size_t>(c)] = pred(static_cast<unsigned char>(c));
    return s;
}

Set digits() {
    return set_of([](unsigned char c) { return c >= '0' && c <= '9'; });
}
Set words() { return set_of(is_word); }
Set spaces() {
    return set_of([](unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r'); });
}

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

}  // namespace

// Parses the text into Nodes (recursion only per nesting of groups, which is
// bounded), then emits the program (recursion only per depth of the tree).
class PatternCompiler {
public:
    explicit PatternCompiler(std::string_view text) : t_(text) {}

    base::Result<Pattern> run() {
        auto root = alternation(0);
        if (!root) return root.failure();
        if (at_ < t_.size()) return fail("')' closes no group");  // alternation stops only at ')' or the end
        if (base::Status s = emit(*root); !s) return s.failure();
        if (base::Status s = push({Pattern::Op::match}); !s) return s.failure();
        return std::move(p_);
    }

private:
    using Op = Pattern::Op;
    using Kind = Node::Kind;

    // `what` is wrong at character `at` (from 0; at_ when not given).
    base::Error fail(const std::string& what, std::size_t at = std::string_view::npos) const {
        return base::Error{what + " (at character " + std::to_string((at == std::string_view::npos ? at_ : at) + 1) + ")"};
    }

    int node(Node n) {
        nodes_.push_back(std::move(n));
        return static_cast<int>(nodes_.size() - 1);
    }
    int set_node(const Set& s) {
        p_.sets_.push_back(s);
        Node n;
        n.kind = Kind::set;
        n.set = static_cast<int>(p_.sets_.size() - 1);
        return node(std::move(n));
    }
    bool more() const { return at_ < t_.size(); }
    char peek() const { return t_[at_]; }

    base::Result<int> alternation(int depth) {
        if (depth > Pattern::max_depth) {
            return fail("groups are nested more than " + std::to_string(Pattern::max_depth) + " deep");
        }
        Node alt;
        alt.kind = Kind::alt;
        for (;;) {
            auto part = concatenation(depth);
            if (!part) return part.failure();
            alt.kids.push_back(*part);
            if (!more() || peek() != '|') break;
            ++at_;
        }
        if (alt.kids.size() == 1) return alt.kids[0];
        return node(std::move(alt));
    }

    base::Result<int> concatenation(int depth) {
        Node cat;
        cat.kind = Kind::concat;
        while (more() && peek() != '|' && peek() != ')') {
            auto part = repetition(depth);
            if (!part) return part.failure();
            cat.kids.push_back(*part);
        }
        if (cat.kids.size() == 1) return cat.kids[0];
        if (cat.kids.empty()) return node(Node{});
        return node(std::move(cat));
    }

    // A quantifier at at_, if one is there: {min, max}, max < 0 unbounded.
    base::Result<std::pair<int, int>> quantifier(bool& found) {
        found = true;
        const char c = peek();
        if (c == '*') return std::pair{0, -1};
        if (c == '+') return std::pair{1, -1};
        if (c == '?') return std::pair{0, 1};
        if (c != '{') {
            found = false;
            return std::pair{0, 0};
        }
        std::size_t i = at_ + 1;
        auto number = [&](int& out) {
            const std::size_t from = i;
            long v = 0;
            while (i < t_.size() && t_[i] >= '0' && t_[i] <= '9') {
                if (v <= Pattern::max_count) v = v * 10 + (t_[i] - '0');
                ++i;
            }
            out = static_cast<int>(v > Pattern::max_count ? Pattern::max_count + 1 : v);
            return i > from;
        };
        int lo = 0, hi = 0;
        bool ok = number(lo);
        if (ok && i < t_.size() && t_[i] == ',') {
            ++i;
            if (!number(hi)) hi = -1;
        } else {
            hi = lo;
        }
        ok = ok && i < t_.size() && t_[i] == '}';
        if (!ok) return fail("'{' starts no count like {2}, {2,} or {1,3}; write \\{ for the character");
        if (lo > Pattern::max_count || hi > Pattern::max_count) {
            return fail("a count above " + std::to_string(Pattern::max_count));
        }
        if (hi >= 0 && hi < lo) return fail("the count {" + std::to_string(lo) + "," + std::to_string(hi) + "} is out of order");
        at_ = i;  // on the '}'
        return std::pair{lo, hi};
    }

    base::Result<int> repetition(int depth) {
        const bool assertion = more() && (peek() == '^' || peek() == '$' ||
                                          (peek() == '\\' && at_ + 1 < t_.size() &&
                                           (t_[at_ + 1] == 'b' || t_[at_ + 1] == 'B')));
        auto atom_r = atom(depth);
        if (!atom_r) return atom_r.failure();
        int a = *atom_r;
        bool repeated = false;
        while (more()) {
            bool found = false;
            auto q = quantifier(found);
            if (!q) return q.failure();
            if (!found) break;
            if (repeated || assertion) return fail("nothing to repeat before '" + std::string(1, peek()) + "'");
            repeated = true;
            ++at_;
            if (more() && peek() == '?') ++at_;  // lazy: the same whole matches
            Node r;
            r.kind = Kind::repeat;
            r.kids = {a};
            r.min = q->first;
            r.max = q->second;
            a = node(std::move(r));
        }
        return a;
    }

    base::Result<int> atom(int depth) {
        const char c = peek();
        switch (c) {
        case '(': {
            const std::size_t open = at_++;
            if (more() && peek() == '?') {
                if (at_ + 1 < t_.size() && t_[at_ + 1] == ':') {
                    at_ += 2;
                } else {
                    return fail("lookahead and lookbehind are not supported");
                }
            }
            auto inner = alternation(depth + 1);
            if (!inner) return inner.failure();
            if (!more()) return fail("'(' is not closed", open);
            ++at_;
            return *inner;
        }
        case '[':
            return bracket();
        case '.': {
            ++at_;
            Set s;
            s.set();
            s['\n'] = false;
            s['\r'] = false;
            return set_node(s);
        }
        case '^':
        case '$': {
            ++at_;
            Node n;
            n.kind = Kind::assertion;
            n.assertion = static_cast<int>(c == '^' ? Op::line_begin : Op::line_end);
            return node(std::move(n));
        }
        case '*':
        case '+':
        case '?':
        case '{':
            return fail("nothing to repeat before '" + std::string(1, c) + "'");
        case '\\': {
            if (at_ + 1 < t_.size() && (t_[at_ + 1] == 'b' || t_[at_ + 1] == 'B')) {
                Node n;
                n.kind = Kind::assertion;
                n.assertion = static_cast<int>(t_[at_ + 1] == 'b' ? Op::boundary : Op::not_boundary);
                at_ += 2;
                return node(std::move(n));
            }
            Set s;
            if (base::Status e = escape(s, false); !e) return e.failure();
            return set_node(s);
        }
        default: {
            ++at_;
            Set s;
            s[static_cast<unsigned char>(c)] = true;
            return set_node(s);
        }
        }
    }

    // The escape at at_ (on the '\'), as a set; in a bracket, \b is a backspace.
    base::Status escape(Set& s, bool in_bracket) {
        ++at_;
        if (!more()) return fail("the pattern ends in '\\'");
        const char c = peek();
        ++at_;
        auto one = [&](unsigned v) {
            s[v] = true;
            return base::Status{};
        };
        switch (c) {
        case 'd': s = digits(); return {};
        case 'D': s = ~digits(); return {};
        case 'w': s = words(); return {};
        case 'W': s = ~words(); return {};
        case 's': s = spaces(); return {};
        case 'S': s = ~spaces(); return {};
        case 't': return one('\t');
        case 'n': return one('\n');
        case 'r': return one('\r');
        case 'f': return one('\f');
        case 'v': return one('\v');
        case '0': return one(0);
        case 'b':
            if (in_bracket) return one('\b');
            break;
        case 'c':
            if (more() && ((peek() >= 'a' && peek() <= 'z') || (peek() >= 'A' && peek() <= 'Z'))) {
                const unsigned v = static_cast<unsigned>(peek()) % 32;
                ++at_;
                return one(v);
            }
            return fail("'\\c' must be followed by a letter");
        case 'x':
        case 'u': {
            const std::size_t digits_n = c == 'x' ? 2 : 4;
            unsigned v = 0;
            for (std::size_t k = 0; k < digits_n; ++k) {
                const int h = more() ? hex_value(peek()) : -1;
                if (h < 0) return fail(std::string("'\\") + c + "' needs " + std::to_string(digits_n) + " hex digits");
                v = v * 16 + static_cast<unsigned>(h);
                ++at_;
            }
            if (v > 0xFF) return fail("'\\u' above 00FF: processor names are matched byte by byte");
            return one(v);
        }
        default:
            break;
        }
        if (c >= '1' && c <= '9') return fail("backreferences are not supported");
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_') {
            return fail(std::string("unknown escape '\\") + c + "'");
        }
        return one(static_cast<unsigned char>(c));
    }

    // [...] at at_.
    base::Result<int> bracket() {
        const std::size_t open = at_++;
        bool negate = false;
        if (more() && peek() == '^') {
            negate = true;
            ++at_;
        }
        Set s;
        // One item: a single character (code >= 0) or a class escape (its set, code -1).
        auto item = [&](Set& cls) -> base::Result<int> {
            if (peek() != '\\') return static_cast<unsigned char>(t_[at_++]);
            Set e;
            if (base::Status st = escape(e, true); !st) return st.failure();
            if (e.count() == 1) {
                for (int v = 0; v < 256; ++v) {
                    if (e[static_cast<std::size_t>(v)]) return v;
                }
            }
            cls = e;
            return -1;
        };
        while (more() && peek() != ']') {
            Set cls;
            auto lo = item(cls);
            if (!lo) return lo.failure();
            if (at_ + 1 < t_.size() && peek() == '-' && t_[at_ + 1] != ']') {
                ++at_;
                Set cls_hi;
                auto hi = item(cls_hi);
                if (!hi) return hi.failure();
                if (*lo < 0 || *hi < 0) return fail("a range in [...] cannot start or end at a class like \\d");
                if (*hi < *lo) return fail("the range in [...] is out of order");
                for (int v = *lo; v <= *hi; ++v) s[static_cast<std::size_t>(v)] = true;
            } else if (*lo < 0) {
                s |= cls;
            } else {
                s[static_cast<std::size_t>(*lo)] = true;
            }
        }
        if (!more()) return fail("'[' is not closed", open);
        ++at_;
        return set_node(negate ? ~s : s);
    }

    base::Status push(Pattern::Inst i) {
        if (p_.prog_.size() >= Pattern::max_program) {
            return base::Error{"the pattern is too large: more than " + std::to_string(Pattern::max_program) +
                               " steps once its counted repetitions are written out"};
        }
        p_.prog_.push_back(i);
        return {};
    }
    int here() const { return static_cast<int>(p_.prog_.size()); }

    base::Status emit(int id) {
        const Node& n = nodes_[static_cast<std::size_t>(id)];
        switch (n.kind) {
        case Kind::empty: return {};
        case Kind::set: return push({Op::set, n.set, 0});
        case Kind::assertion: return push({static_cast<Op>(n.assertion), 0, 0});
        case Kind::concat:
            for (int k : n.kids) {
                if (base::Status s = emit(k); !s) return s;
            }
            return {};
        case Kind::alt: return emit_alternation(n);
        case Kind::repeat: return emit_repetition(n);
        }
        return {};
    }

    // split L1, next; L1: a; jump end; next: split L2, next'; ... last
    base::Status emit_alternation(const Node& n) {
        std::vector<int> jumps;
        for (std::size_t k = 0; k + 1 < n.kids.size(); ++k) {
            const int split = here();
            if (base::Status s = push({Op::split, split + 1, 0}); !s) return s;
            if (base::Status s = emit(n.kids[k]); !s) return s;
            jumps.push_back(here());
            if (base::Status s = push({Op::jump, 0, 0}); !s) return s;
            p_.prog_[static_cast<std::size_t>(split)].y = here();
        }
        if (base::Status s = emit(n.kids.back()); !s) return s;
        for (int j : jumps) p_.prog_[static_cast<std::size_t>(j)].x = here();
        return {};
    }

    // The kid min times, then: unbounded with min > 0, L: kid; split L, next;
    // unbounded from 0, L: split L+1, end; kid; jump L; bounded, max - min
    // times "split next, end; kid", every split's other way to the end.
    base::Status emit_repetition(const Node& n) {
        const int kid = n.kids[0];
        const int copies = n.max < 0 ? std::max(n.min - 1, 0) : n.min;
        for (int k = 0; k < copies; ++k) {
            if (base::Status s = emit(kid); !s) return s;
        }
        if (n.max < 0 && n.min > 0) {
            const int loop = here();
            if (base::Status s = emit(kid); !s) return s;
            return push({Op::split, loop, here() + 1});
        }
        std::vector<int> splits;
        const int optional = n.max < 0 ? 1 : n.max - n.min;
        for (int k = 0; k < optional; ++k) {
            splits.push_back(here());
            if (base::Status s = push({Op::split, here() + 1, 0}); !s) return s;
            if (base::Status s = emit(kid); !s) return s;
        }
        if (n.max < 0) {
            if (base::Status s = push({Op::jump, splits.front(), 0}); !s) return s;
        }
        for (int sp : splits) p_.prog_[static_cast<std::size_t>(sp)].y = here();
        return {};
    }

    std::string_view t_;
    std::size_t at_ = 0;
    std::vector<Node> nodes_;
    Pattern p_;
};

base::Result<Pattern> Pattern::compile(std::string_view text) { return PatternCompiler(text).run(); }

bool Pattern::match(std::string_view name, std::size_t* steps) const {
    const std::size_t n = name.size();
    std::vector<int> cur, next, stack;
    std::vector<std::size_t> seen(prog_.size(), 0);  // the position + 1 a state was last added at
    std::size_t visited = 0;
    // Adds the states reached from `pc` without reading, at position `pos`.
    auto add = [&](std::vector<int>& list, int start, std::size_t pos) {
        // Whether a word character stands before and after `pos` (for \b, \B).
        const bool before = pos > 0 && is_word(static_cast<unsigned char>(name[pos - 1]));
        const bool after = pos < n && is_word(static_cast<unsigned char>(name[pos]));
        stack.push_back(start);
        while (!stack.empty()) {
            const int pc = stack.back();
            stack.pop_back();
            std::size_t& mark = seen[static_cast<std::size_t>(pc)];
            if (mark == pos + 1) continue;
            mark = pos + 1;
            ++visited;
            const Inst& i = prog_[static_cast<std::size_t>(pc)];
            switch (i.op) {
            case Op::set:
            case Op::match: list.push_back(pc); break;
            case Op::jump: stack.push_back(i.x); break;
            case Op::split:
                stack.push_back(i.y);
                stack.push_back(i.x);
                break;
            case Op::line_begin:
                if (pos == 0) stack.push_back(pc + 1);
                break;
            case Op::line_end:
                if (pos == n) stack.push_back(pc + 1);
                break;
            case Op::boundary:
                if (before != after) stack.push_back(pc + 1);
                break;
            case Op::not_boundary:
                if (before == after) stack.push_back(pc + 1);
                break;
            }
        }
    };
    add(cur, 0, 0);
    // After the loop, `cur` holds the states at position n, or nothing when
    // the name stopped matching before its end.
    for (std::size_t pos = 0; pos < n && !cur.empty(); ++pos) {
        const auto c = static_cast<unsigned char>(name[pos]);
        next.clear();
        for (int pc : cur) {
            const Inst& i = prog_[static_cast<std::size_t>(pc)];
            if (i.op == Op::set && sets_[static_cast<std::size_t>(i.x)][c]) add(next, pc + 1, pos + 1);
        }
        cur.swap(next);
    }
    bool matched = false;
    for (int pc : cur) matched = matched || prog_[static_cast<std::size_t>(pc)].op == Op::match;
    if (steps != nullptr) *steps = visited;
    return matched;
}

}  // namespace strata::commfile
