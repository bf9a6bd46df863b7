// Typemaps: bounds by the MPI-1 rules (worked out by hand here), and packing,
// unpacking and element counting checked against a naive model that lists
// every basic element of the type map, for every chunk size, including
// chunks that cut through blocks and through elements.
#include <catch2/catch.hpp>

#include <cstddef>
#include <algorithm>
#include <cstring>
#include <vector>

#include "mpi/datatypes/typemap.hpp"

using namespace strata::mpi;

namespace {

struct Elem {
    MPI_Aint disp;
    MPI_Aint size;
};

// A type under test: the typemap and, independently, its list of basic elements.
struct T {
    TypemapPtr map;
    std::vector<Elem> elems;
};

T basic(MPI_Datatype h, MPI_Aint size) { return T{typemap_basic(h, size, size), {{0, size}}}; }
T t_int() { return basic(MPI_INT, 4); }
T t_double() { return basic(MPI_DOUBLE, 8); }
T t_char() { return basic(MPI_CHAR, 1); }
T t_short() { return basic(MPI_SHORT, 2); }
T marker(bool upper) { return T{typemap_marker(upper), {}}; }

// One block of the naive model: `count` copies of `old` from byte `disp`.
void naive_add(std::vector<Elem>& out, const T& old, MPI_Aint count, MPI_Aint disp) {
    for (MPI_Aint k = 0; k < count; ++k) {
        for (const Elem& e : old.elems) out.push_back({e.disp + disp + k * old.map->extent(), e.size});
    }
}

T build(const std::vector<std::pair<const T*, std::pair<MPI_Aint, MPI_Aint>>>& blocks, bool pad) {
    std::vector<Block> b;
    T t;
    for (const auto& [type, cd] : blocks) {
        b.push_back(Block{type->map, cd.first, cd.second});
        naive_add(t.elems, *type, cd.first, cd.second);
    }
    t.map = typemap_build(b, pad);
    return t;
}

T contiguous(int count, const T& old) { return build({{&old, {count, 0}}}, false); }

T vector(int count, int bl, MPI_Aint stride, const T& old, bool bytes = false) {
    std::vector<std::pair<const T*, std::pair<MPI_Aint, MPI_Aint>>> blocks;
    const MPI_Aint step = bytes ? stride : stride * old.map->extent();
    for (int i = 0; i < count; ++i) blocks.push_back({&old, {bl, i * step}});
    return build(blocks, false);
}

T indexed(const std::vector<int>& bl, const std::vector<MPI_Aint>& disp, const T& old, bool bytes = false) {
    std::vector<std::pair<const T*, std::pair<MPI_Aint, MPI_Aint>>> blocks;
    for (std::size_t i = 0; i < bl.size(); ++i) {
        blocks.push_back({&old, {bl[i], bytes ? disp[i] : disp[i] * old.map->extent()}});
    }
    return build(blocks, false);
}

T structure(const std::vector<int>& bl, const std::vector<MPI_Aint>& disp, const std::vector<const T*>& types) {
    std::vector<std::pair<const T*, std::pair<MPI_Aint, MPI_Aint>>> blocks;
    for (std::size_t i = 0; i < bl.size(); ++i) blocks.push_back({types[i], {bl[i], disp[i]}});
    return build(blocks, true);
}

// Memory to lay (count, t) out in, with the origin in the middle for negative displacements.
struct Arena {
    std::vector<unsigned char> bytes = std::vector<unsigned char>(1 << 18);
    unsigned char* origin() { return bytes.data() + (1 << 17); }
};

std::vector<unsigned char> reference_pack(const T& t, Arena& a, int count) {
    std::vector<unsigned char> out;
    for (int e = 0; e < count; ++e) {
        for (const Elem& x : t.elems) {
            const unsigned char* p = a.origin() + e * t.map->extent() + x.disp;
            out.insert(out.end(), p, p + x.size);
        }
    }
    return out;
}

MPI_Aint reference_elements(const T& t, int count, MPI_Aint bytes) {
    MPI_Aint n = 0;
    for (int e = 0; e < count; ++e) {
        for (const Elem& x : t.elems) {
            if (bytes == 0) return n;
            if (bytes < x.size) return -1;
            bytes -= x.size;
            ++n;
        }
    }
    return n;
}

// Packs and unpacks (count, t) in chunks of every size in `chunks`, checking
// the stream and the memory against the naive model; also counts elements of
// every prefix.
void check_layout(const T& t, int count) {
    INFO("count " << count << ", size " << t.map->size << ", extent " << t.map->extent());
    MPI_Aint want_size = 0;
    for (const Elem& e : t.elems) want_size += e.size;
    REQUIRE(t.map->size == want_size);
    REQUIRE(t.map->elements == static_cast<MPI_Aint>(t.elems.size()));
    for (const Elem& e : t.elems) {  // the layout must fit in the arena
        REQUIRE(e.disp + std::min<MPI_Aint>(0, (count - 1) * t.map->extent()) >= -(1 << 17));
        REQUIRE(e.disp + e.size + std::max<MPI_Aint>(0, (count - 1) * t.map->extent()) <= (1 << 17));
    }
    Arena a;
    for (std::size_t i = 0; i < a.bytes.size(); ++i) a.bytes[i] = static_cast<unsigned char>(i * 7 + i / 251);
    const std::vector<unsigned char> want = reference_pack(t, a, count);
    const std::size_t total = want.size();
    for (std::size_t chunk : {std::size_t{1}, std::size_t{3}, std::size_t{5}, std::size_t{7}, std::size_t{13},
                              std::size_t{64}, total}) {
        if (chunk == 0) continue;
        INFO("chunk " << chunk);
        std::vector<unsigned char> got(total, 0xEE);
        for (std::size_t at = 0; at < total; at += chunk) {
            typemap_pack(*t.map, a.origin(), at, std::min(chunk, total - at), got.data() + at);
        }
        REQUIRE(got == want);

        // Unpack into a blank arena: exactly the type map's bytes change.
        Arena b;
        Arena expect;
        std::memset(b.bytes.data(), 0x11, b.bytes.size());
        std::memset(expect.bytes.data(), 0x11, expect.bytes.size());
        std::size_t at = 0;
        for (int e = 0; e < count; ++e) {
            for (const Elem& x : t.elems) {
                std::memcpy(expect.origin() + e * t.map->extent() + x.disp, want.data() + at, static_cast<std::size_t>(x.size));
                at += static_cast<std::size_t>(x.size);
            }
        }
        for (std::size_t off = 0; off < total; off += chunk) {
            typemap_unpack(*t.map, b.origin(), off, std::min(chunk, total - off), want.data() + off);
        }
        REQUIRE(b.bytes == expect.bytes);
    }
    for (MPI_Aint bytes = 0; bytes <= static_cast<MPI_Aint>(total); ++bytes) {
        INFO("prefix of " << bytes << " bytes");
        REQUIRE(typemap_elements(*t.map, bytes) == reference_elements(t, count, bytes));
    }
}

void check_layouts(const T& t) {
    check_layout(t, 1);
    check_layout(t, 3);
}

}  // namespace

TEST_CASE("basic types and their bounds") {
    T i = t_int();
    CHECK(i.map->size == 4);
    CHECK(i.map->extent() == 4);
    CHECK(i.map->contiguous());
    CHECK(i.map->basic == MPI_INT);
    check_layouts(i);
}

TEST_CASE("a vector of a basic type is one strided run and packs exactly") {
    T v = vector(5, 2, 3, t_int());
    REQUIRE(v.map->runs.size() == 1);
    CHECK(v.map->runs[0].count == 5);
    CHECK(v.map->runs[0].len == 8);
    CHECK(v.map->runs[0].stride == 12);
    CHECK(v.map->size == 40);
    CHECK(v.map->extent() == (4 * 3 + 2) * 4);
    CHECK_FALSE(v.map->contiguous());
    CHECK(v.map->basic == MPI_INT);
    check_layouts(v);

    T dense = vector(4, 3, 3, t_double());  // stride == blocklength: one block
    CHECK(dense.map->contiguous());
    CHECK(dense.map->runs.size() == 1);
    check_layouts(dense);
}

TEST_CASE("negative strides and displacements keep typemap order") {
    T v = vector(4, 1, -2, t_double());
    CHECK(v.map->lb == -48);
    CHECK(v.map->ub == 8);
    CHECK(v.map->extent() == 56);
    CHECK(v.map->true_lb == -48);
    check_layouts(v);

    T h = vector(3, 2, -20, t_short(), true);  // hvector, stride in bytes
    CHECK(h.map->lb == -40);
    CHECK(h.map->ub == 4);
    check_layouts(h);

    T x = indexed({2, 0, 3, 1}, {5, -3, 0, -8}, t_int());
    CHECK(x.map->size == 24);
    CHECK(x.map->lb == -32);  // the zero-length block at -3 does not count
    CHECK(x.map->ub == 28);
    check_layouts(x);

    T hx = indexed({1, 2, 1}, {-7, 3, 40}, t_char(), true);
    CHECK(hx.map->lb == -7);
    CHECK(hx.map->ub == 41);
    check_layouts(hx);
}

TEST_CASE("struct: alignment padding, mixed basic type, zero-count blocks") {
    T d = t_double();
    T c = t_char();
    T i = t_int();
    T s = structure({1, 1}, {0, 8}, {&d, &c});
    CHECK(s.map->size == 9);
    CHECK(s.map->extent() == 16);  // rounded up to the double's alignment
    CHECK(s.map->basic == MPI_DATATYPE_NULL);
    check_layouts(s);

    T z = structure({2, 0, 1}, {4, 100, 12}, {&i, &d, &i});
    CHECK(z.map->size == 12);
    CHECK(z.map->lb == 4);
    CHECK(z.map->ub == 16);
    CHECK(z.map->basic == MPI_INT);  // the empty double block does not mix the type
    check_layouts(z);

    T empty = vector(0, 3, 2, i);
    CHECK(empty.map->size == 0);
    CHECK(empty.map->extent() == 0);
    CHECK(typemap_elements(*empty.map, 0) == 0);
}

TEST_CASE("LB and UB markers override the natural bounds and are sticky") {
    T i = t_int();
    T lb = marker(false);
    T ub = marker(true);
    T m = structure({1, 1, 1}, {-4, 0, 20}, {&lb, &i, &ub});
    CHECK(m.map->lb == -4);
    CHECK(m.map->ub == 20);
    CHECK(m.map->extent() == 24);
    CHECK(m.map->true_lb == 0);
    CHECK(m.map->true_ub == 4);
    CHECK(m.map->size == 4);
    CHECK(m.map->lb_marked);
    CHECK(m.map->ub_marked);
    check_layouts(m);

    // Through contiguous: copies an extent apart, markers of every copy.
    T c = contiguous(3, m);
    CHECK(c.map->lb == -4);
    CHECK(c.map->ub == 68);
    CHECK(c.map->extent() == 72);
    check_layouts(c);

    // An explicit UB smaller than the data: the data sticks out, the bound stays.
    T small = structure({3, 1}, {0, 4}, {&i, &ub});
    CHECK(small.map->ub == 4);
    CHECK(small.map->lb == 0);
    CHECK(small.map->extent() == 4);
    CHECK(small.map->true_ub == 12);
    check_layouts(small);

    // Only the marked bound of a struct comes from markers; natural ones from
    // unmarked members do not lower a marked lb.
    T d = t_double();
    T mixed = structure({1, 1}, {-100, 8}, {&d, &m});
    CHECK(mixed.map->lb == 4);     // m's LB marker, shifted by 8
    CHECK(mixed.map->ub == 28);    // m's UB marker, shifted by 8
    CHECK(mixed.map->size == 12);
    check_layouts(mixed);

    // MPI-1: the padding belongs to a natural ub, so an LB marker alone keeps it.
    T ch = t_char();
    T only_lb = structure({1, 1, 1}, {2, 0, 8}, {&lb, &d, &ch});
    CHECK(only_lb.map->lb == 2);
    CHECK(only_lb.map->ub == 10);  // 9, rounded so that the extent is a multiple of 8
    check_layouts(only_lb);
    T only_ub = structure({1, 1}, {0, 11}, {&d, &ub});
    CHECK(only_ub.map->extent() == 11);  // an explicit UB is never padded
    check_layouts(only_ub);
}

TEST_CASE("pair types have the C struct layouts") {
    struct DI {
        double d;
        int i;
    };
    struct SI {
        short s;
        int i;
    };
    TypemapPtr di = typemap_pair(MPI_DOUBLE_INT, t_double().map, t_int().map, offsetof(DI, i), sizeof(DI), alignof(DI));
    CHECK(di->size == 12);
    CHECK(di->extent() == 16);
    CHECK(di->elements == 2);
    CHECK(di->basic == MPI_DOUBLE_INT);
    CHECK_FALSE(di->contiguous());
    T tdi{di, {{0, 8}, {8, 4}}};
    check_layouts(tdi);
    CHECK(typemap_elements(*di, 8) == 1);
    CHECK(typemap_elements(*di, 10) == -1);
    CHECK(typemap_elements(*di, 20) == 3);

    TypemapPtr si = typemap_pair(MPI_SHORT_INT, t_short().map, t_int().map, offsetof(SI, i), sizeof(SI), alignof(SI));
    CHECK(si->size == 6);
    CHECK(si->extent() == 8);
    T tsi{si, {{0, 2}, {4, 4}}};
    check_layouts(tsi);

    // A vector of pairs keeps the pair as its basic type (what MINLOC dispatches on).
    T v = vector(3, 2, 3, tdi);
    CHECK(v.map->basic == MPI_DOUBLE_INT);
    check_layouts(v);
}

TEST_CASE("nesting: vector of struct of indexed, hvector of vector") {
    T i = t_int();
    T d = t_double();
    T c = t_char();
    T x = indexed({1, 2, 0, 1}, {3, -2, 7, 0}, i);
    T s = structure({1, 2, 1}, {0, 16, 40}, {&c, &x, &d});
    T v = vector(3, 2, -3, s);
    check_layouts(x);
    check_layouts(s);
    check_layouts(v);
    CHECK(v.map->elements == 2 * 3 * (1 + 2 * 4 + 1));

    // Rows of a matrix as a vector, several rows by hvector: the blocks tile
    // into few runs, not one per element.
    T row = vector(8, 1, 2, d);
    T rows = vector(16, 1, 8 * 2 * 8, row, true);
    CHECK(rows.map->runs.size() == 1);
    check_layouts(rows);
    T m = contiguous(4, vector(2, 3, 5, structure({1, 1}, {0, 4}, {&i, &c})));
    check_layouts(m);
}

TEST_CASE("chunked packing of a large strided buffer, chunks cutting blocks") {
    T i = t_int();
    T v = vector(1000, 3, 7, i);  // 12-byte blocks, 28 bytes apart
    std::vector<int> buf(7000 + 8);
    for (std::size_t k = 0; k < buf.size(); ++k) buf[k] = static_cast<int>(k);
    const std::size_t total = 1000 * 12;
    for (std::size_t chunk : {std::size_t{5}, std::size_t{4096}, std::size_t{1000}}) {
        std::vector<int> packed(total / 4, -1);
        for (std::size_t at = 0; at < total; at += chunk) {
            typemap_pack(*v.map, buf.data(), at, std::min(chunk, total - at),
                         reinterpret_cast<unsigned char*>(packed.data()) + at);
        }
        for (std::size_t b = 0; b < 1000; ++b) {
            for (std::size_t j = 0; j < 3; ++j) REQUIRE(packed[b * 3 + j] == static_cast<int>(b * 7 + j));
        }
    }
}

TEST_CASE("rows of equal blocks stay one run: vectors of vectors, contiguous of vectors") {
    T i = t_int();
    T d = t_double();
    T pair = vector(2, 1, 2, i);  // two ints with a gap, extent 12
    T many = contiguous(1000, pair);
    CHECK(many.map->runs.size() == 1);
    CHECK(many.map->runs[0].outer_count == 1000);
    check_layouts(many);

    T sub = vector(5, 1, 3, vector(4, 2, 3, i));  // a 2-D sub-array: 5 rows of 4 blocks
    CHECK(sub.map->runs.size() == 1);
    check_layouts(sub);

    // Rows that continue each other collapse into one row.
    T rows = vector(3, 1, 1, vector(4, 1, 2, d));  // extent 7 doubles: rows 56 bytes apart
    CHECK(rows.map->runs.size() == 1);
    check_layouts(rows);

    // Irregular rows cannot merge: one run each, still exact.
    T irregular = indexed({1, 1, 1, 2}, {0, 5, 7, 20}, pair);
    CHECK(irregular.map->runs.size() >= 3);
    check_layouts(irregular);

    // Negative row strides and rows within rows.
    T down = vector(4, 2, -5, pair);
    check_layouts(down);
    T nest = vector(3, 1, 2, structure({2, 1}, {0, 40}, {&down, &d}));
    check_layouts(nest);
}
