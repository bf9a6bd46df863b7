#include "mpi/hetero/convert.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include "base/little_endian.hpp"

namespace strata::mpi {

namespace {

// What a basic datatype is made of, for conversion.
enum class Kind : std::uint8_t { bytes, sint, uint, real, long_double };

struct Basic {
    Kind kind = Kind::bytes;
    int scalar = -1;         // Representation::Scalar whose size it has, or -1: `fixed` bytes
    std::uint8_t fixed = 1;  // its size when it is the same on every machine (per unit)
    std::uint8_t units = 1;  // 2 for the complex types (two reals)
};

constexpr Basic integer(Kind k, Representation::Scalar s) { return Basic{k, s, 0, 1}; }
constexpr Basic sized(Kind k, std::uint8_t bytes, std::uint8_t units = 1) { return Basic{k, -1, bytes, units}; }

Basic basic_of(MPI_Datatype h) {
    using R = Representation;
    switch (h) {
        case MPI_SHORT: return integer(Kind::sint, R::kShort);
        case MPI_INT:
        case MPI_INTEGER:
        case MPI_LOGICAL: return integer(Kind::sint, R::kInt);
        case MPI_LONG: return integer(Kind::sint, R::kLong);
        case MPI_LONG_LONG_INT: return integer(Kind::sint, R::kLongLong);
        case MPI_INTEGER2: return sized(Kind::sint, 2);
        case MPI_INTEGER4: return sized(Kind::sint, 4);
        case MPI_INTEGER8: return sized(Kind::sint, 8);
        case MPI_UNSIGNED_SHORT: return integer(Kind::uint, R::kShort);
        case MPI_UNSIGNED: return integer(Kind::uint, R::kInt);
        case MPI_UNSIGNED_LONG: return integer(Kind::uint, R::kLong);
        case MPI_UNSIGNED_LONG_LONG: return integer(Kind::uint, R::kLongLong);
        case MPI_WCHAR: return integer(Kind::uint, R::kWchar);
        case MPI_FLOAT:
        case MPI_REAL:
        case MPI_REAL4: return sized(Kind::real, 4);
        case MPI_DOUBLE:
        case MPI_DOUBLE_PRECISION:
        case MPI_REAL8: return sized(Kind::real, 8);
        case MPI_COMPLEX: return sized(Kind::real, 4, 2);
        case MPI_DOUBLE_COMPLEX: return sized(Kind::real, 8, 2);
        case MPI_LONG_DOUBLE: return integer(Kind::long_double, R::kLongDouble);
        default: return sized(Kind::bytes, 1);  // the character types, MPI_BYTE, MPI_PACKED
    }
}

std::size_t unit_size(const Basic& b, const Representation& rep) {
    return b.scalar >= 0 ? rep.sizes[static_cast<std::size_t>(b.scalar)] : b.fixed;
}

std::size_t basic_size(const Basic& b, const Representation& rep) { return unit_size(b, rep) * b.units; }

// ---- integers -------------------------------------------------------------

std::byte lowest_byte(std::uint64_t v) { return static_cast<std::byte>(v & 0xFF); }

// The unsigned integer (std::uint64_t, or u128 below) of the `n` bytes at `p` in the given byte order, and back.
template <class U>
U load(const std::byte* p, std::size_t n, bool big) {
    U v{};
    for (std::size_t i = 0; i < n; ++i) v = (v << 8) | U{std::to_integer<std::uint64_t>(p[big ? i : n - 1 - i])};
    return v;
}

template <class U>
void store(std::byte* p, std::size_t n, bool big, U v) {
    for (std::size_t i = 0; i < n; ++i) {
        p[big ? n - 1 - i : i] = lowest_byte(v);
        v = v >> 8;
    }
}

// `v`, read from `from` bytes of a signed type, into `to` bytes: false when it does not fit.
bool signed_narrow(std::uint64_t& v, std::size_t from, std::size_t to) {
    if (from < 8 && ((v >> (8 * from - 1)) & 1) != 0) v |= ~std::uint64_t{0} << (8 * from);  // sign extension
    if (to >= 8) return true;
    const auto x = static_cast<std::int64_t>(v);
    const std::int64_t top = std::int64_t{1} << (8 * to - 1);
    if (x >= -top && x < top) return true;
    v = static_cast<std::uint64_t>(x < 0 ? -top : top - 1);
    return false;
}

bool unsigned_narrow(std::uint64_t& v, std::size_t to) {
    if (to >= 8 || v < (std::uint64_t{1} << (8 * to))) return true;
    v = (std::uint64_t{1} << (8 * to)) - 1;
    return false;
}

template <class U>
void swap_all(const std::byte* in, std::byte* out, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
        U v;
        std::memcpy(&v, in + i * sizeof(U), sizeof(U));
        v = base::byte_swap(v);
        std::memcpy(out + i * sizeof(U), &v, sizeof(U));
    }
}

// `n` values of `size` bytes (2, 4 or 8) in the other byte order.
void swap_values(const std::byte* in, std::byte* out, std::size_t n, std::size_t size) {
    switch (size) {
        case 2: swap_all<std::uint16_t>(in, out, n); break;
        case 4: swap_all<std::uint32_t>(in, out, n); break;
        case 8: swap_all<std::uint64_t>(in, out, n); break;
        default:
            for (std::size_t i = 0; i < n; ++i) std::reverse_copy(in + i * size, in + (i + 1) * size, out + i * size);
    }
}

bool integers(bool is_signed, const std::byte* in, std::size_t fs, bool fbig, std::byte* out, std::size_t ts, bool tbig,
              std::size_t n) {
    if (fs == ts) {
        if (fbig == tbig) {
            std::memcpy(out, in, n * fs);
        } else {
            swap_values(in, out, n, fs);
        }
        return true;
    }
    bool fits = true;
    for (std::size_t i = 0; i < n; ++i) {
        auto v = load<std::uint64_t>(in + i * fs, fs, fbig);
        fits &= is_signed ? signed_narrow(v, fs, ts) : unsigned_narrow(v, ts);
        store(out + i * ts, ts, tbig, v);
    }
    return fits;
}

// ---- long double ------------------------------------------------------------

// An unsigned 128-bit integer, as much of one as the formats need (a
// compiler's __int128 is missing on 32-bit targets and not ISO C++).
struct u128 {
    std::uint64_t hi = 0;
    std::uint64_t lo = 0;
    constexpr u128() = default;
    constexpr u128(std::uint64_t v) : lo(v) {}  // NOLINT(google-explicit-constructor): it is an integer
    constexpr u128(std::uint64_t h, std::uint64_t l) : hi(h), lo(l) {}
    constexpr bool operator==(const u128&) const = default;
    constexpr auto operator<=>(const u128&) const = default;  // hi first: the numeric order
    u128& operator++() {
        if (++lo == 0) ++hi;
        return *this;
    }
};

constexpr u128 operator<<(u128 a, int n) {
    if (n == 0) return a;
    if (n >= 128) return {};
    if (n >= 64) return {a.lo << (n - 64), 0};
    return {(a.hi << n) | (a.lo >> (64 - n)), a.lo << n};
}
constexpr u128 operator>>(u128 a, int n) {
    if (n == 0) return a;
    if (n >= 128) return {};
    if (n >= 64) return {0, a.hi >> (n - 64)};
    return {a.hi >> n, (a.lo >> n) | (a.hi << (64 - n))};
}
constexpr u128 operator&(u128 a, u128 b) { return {a.hi & b.hi, a.lo & b.lo}; }
constexpr u128 operator|(u128 a, u128 b) { return {a.hi | b.hi, a.lo | b.lo}; }
constexpr u128& operator>>=(u128& a, int n) { return a = a >> n; }
constexpr u128& operator|=(u128& a, u128 b) { return a = a | b; }

// A floating-point format: `digits` significant bits (the leading one
// included), its exponent field's width and bias, whether the leading bit is
// stored (x87), and the bytes its value takes.
struct Format {
    int digits;
    int exp_bits;
    int bias;
    bool explicit_one;
    std::size_t bytes;
    int frac_bits() const { return explicit_one ? digits : digits - 1; }
    int total_bits() const { return 1 + exp_bits + frac_bits(); }
    int exp_max() const { return (1 << exp_bits) - 1; }
};

constexpr Format kDouble{53, 11, 1023, false, 8};
constexpr Format kX87{64, 15, 16383, true, 10};
constexpr Format kQuad{113, 15, 16383, false, 16};

const Format* format_of(LongDoubleFormat f) {
    switch (f) {
        case LongDoubleFormat::ieee_double: return &kDouble;
        case LongDoubleFormat::x87_extended: return &kX87;
        case LongDoubleFormat::ieee_quad: return &kQuad;
        default: return nullptr;
    }
}

// The number whose `n` low bits are set.
u128 low_bits(int n) {
    const auto ones = [](int k) { return k >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << k) - 1; };
    if (n >= 64) return {ones(n - 64), ~std::uint64_t{0}};
    return {0, ones(n)};
}

std::byte lowest_byte(u128 v) { return static_cast<std::byte>(v.lo & 0xFF); }

int leading_zeros(u128 v) {
    if (v.hi != 0) return __builtin_clzll(v.hi);
    return 64 + __builtin_clzll(v.lo);
}

// A value between formats: m * 2^(exp - 127), the top bit of m set when finite.
struct Wide {
    enum Cls : std::uint8_t { zero, finite, inf, nan } cls = zero;
    bool neg = false;
    int exp = 0;
    u128 m = 0;
};

Wide decode(const Format& f, u128 bits) {
    Wide w;
    w.neg = ((bits >> (f.total_bits() - 1)) & 1) != 0;
    const int e = static_cast<int>((bits >> f.frac_bits()).lo & static_cast<std::uint64_t>(f.exp_max()));
    u128 sig = bits & low_bits(f.frac_bits());
    if (e == f.exp_max()) {
        w.cls = (sig & low_bits(f.digits - 1)) == 0 ? Wide::inf : Wide::nan;
        return w;
    }
    if (!f.explicit_one && e != 0) sig |= u128{1} << (f.digits - 1);
    if (sig == 0) return w;
    const int shift = leading_zeros(sig);
    w.cls = Wide::finite;
    w.m = sig << shift;
    w.exp = (e == 0 ? 1 : e) - f.bias - (f.digits - 1) - shift + 127;
    return w;
}

// m rounded to nearest (ties to even) after dropping its `shift` low bits.
u128 round_shift(u128 m, int shift) {
    if (shift > 128) return 0;
    if (shift == 128) return m > (u128{1} << 127) ? u128{1} : u128{};
    u128 keep = m >> shift;
    const u128 rem = m & low_bits(shift);
    const u128 half = u128{1} << (shift - 1);
    if (rem > half || (rem == half && (keep.lo & 1) != 0)) ++keep;
    return keep;
}

// The bits of `w` in format `f`; false when a finite value is beyond its range (written as infinity).
bool encode(const Format& f, const Wide& w, u128& bits) {
    const u128 sign = w.neg ? u128{1} << (f.total_bits() - 1) : u128{};
    const auto exp_field = [&](int e) { return u128{static_cast<std::uint64_t>(e)} << f.frac_bits(); };
    const u128 one = f.explicit_one ? u128{1} << (f.digits - 1) : u128{};
    const u128 infinity = sign | exp_field(f.exp_max()) | one;
    switch (w.cls) {
        case Wide::zero: bits = sign; return true;
        case Wide::inf: bits = infinity; return true;
        case Wide::nan: bits = infinity | (u128{1} << (f.digits - 2)); return true;
        case Wide::finite: break;
    }
    const int emin = 1 - f.bias;
    int shift = 128 - f.digits;
    int e = w.exp;
    if (e < emin) shift += emin - e;
    u128 keep = round_shift(w.m, shift);
    if (e >= emin && keep == (u128{1} << f.digits)) {  // rounding carried into a new digit
        keep >>= 1;
        ++e;
    }
    int field = e + f.bias;
    // A subnormal, or one that rounded up to the least normal.
    if (e < emin) field = keep >= (u128{1} << (f.digits - 1)) ? 1 : 0;
    if (field >= f.exp_max()) {
        bits = infinity;
        return false;
    }
    bits = sign | exp_field(field) | (keep & low_bits(f.frac_bits()));
    return true;
}

bool long_doubles(const std::byte* in, const Representation& from, std::byte* out, const Representation& to,
                  std::size_t n) {
    const std::size_t fs = from.sizes[Representation::kLongDouble];
    const std::size_t ts = to.sizes[Representation::kLongDouble];
    const Format* ff = format_of(from.long_double);
    const Format* tf = format_of(to.long_double);
    if (ff == nullptr || tf == nullptr) {
        // The same format on both sides that is not read (convertible()): IBM
        // double-double, two doubles each in the machine's byte order.
        return integers(false, in, 8, from.big_endian, out, 8, to.big_endian, n * (fs / 8));
    }
    bool fits = true;
    for (std::size_t i = 0; i < n; ++i) {
        const Wide w = decode(*ff, load<u128>(in + i * fs, ff->bytes, from.big_endian));
        u128 bits = 0;
        fits &= encode(*tf, w, bits);
        std::byte* o = out + i * ts;
        std::memset(o, 0, ts);
        store(o, tf->bytes, to.big_endian, bits);
    }
    return fits;
}

// ---- the walk -------------------------------------------------------------

struct Walk {
    const Representation& from;
    const Representation& to;
    const std::byte* in;
    std::size_t left;  // input bytes not yet consumed
    std::byte* out;
    Converted done;
    bool stop = false;  // the input ended inside an element
};

bool basics(const Basic& b, const std::byte* in, const Representation& from, std::byte* out, const Representation& to,
            std::size_t n) {
    const std::size_t fs = unit_size(b, from);
    const std::size_t ts = unit_size(b, to);
    switch (b.kind) {
        case Kind::bytes: std::memcpy(out, in, n); return true;
        case Kind::sint:
        case Kind::uint:
            return integers(b.kind == Kind::sint, in, fs, from.big_endian, out, ts, to.big_endian, n * b.units);
        case Kind::real: return integers(false, in, fs, from.big_endian, out, ts, to.big_endian, n * b.units);
        case Kind::long_double: return long_doubles(in, from, out, to, n);
    }
    return true;
}

void leaf(Walk& w, MPI_Datatype handle, MPI_Aint count) {
    const Basic b = basic_of(handle);
    const std::size_t fs = basic_size(b, w.from);
    const std::size_t ts = basic_size(b, w.to);
    std::size_t n = static_cast<std::size_t>(count);
    if (w.left / fs < n) {
        n = w.left / fs;
        w.stop = true;
    }
    if (n == 0) return;
    if (w.out != nullptr) {  // not convert_size()
        w.done.fits &= basics(b, w.in, w.from, w.out, w.to, n);
        w.in += n * fs;
        w.out += n * ts;
    }
    w.left -= n * fs;
    w.done.in += n * fs;
    w.done.out += n * ts;
}

void walk(Walk& w, const Typemap& t, MPI_Aint count) {
    if (t.parts.empty()) {
        if (t.size > 0) leaf(w, t.basic, count);
        return;
    }
    if (t.parts.size() == 1) {  // count elements of one part are count * its count of that part
        walk(w, *t.parts[0].type, count * t.parts[0].count);
        return;
    }
    for (MPI_Aint i = 0; i < count && !w.stop; ++i) {
        for (const Typemap::Part& p : t.parts) {
            walk(w, *p.type, p.count);
            if (w.stop) return;
        }
    }
}

std::string scalar_refusal(const char* what, int bytes) {
    std::string why = what;
    why += " of ";
    why += std::to_string(bytes);
    why += " bytes cannot be converted";
    return why;
}

base::Status one_convertible(const Representation& r) {
    for (const auto s : {Representation::kShort, Representation::kInt, Representation::kLong, Representation::kLongLong,
                         Representation::kWchar}) {
        if (r.sizes[s] > 8) return base::Error{scalar_refusal("an integer type", r.sizes[s])};
    }
    const Format* f = format_of(r.long_double);
    if (f != nullptr && r.sizes[Representation::kLongDouble] < f->bytes)
        return base::Error{scalar_refusal("a long double", r.sizes[Representation::kLongDouble])};
    return {};
}

}  // namespace

bool basic_is_bytes(MPI_Datatype handle) { return basic_of(handle).kind == Kind::bytes; }

MPI_Aint form_size(const Typemap& t, const Representation& rep) {
    if (t.parts.empty()) return t.size == 0 ? 0 : static_cast<MPI_Aint>(basic_size(basic_of(t.basic), rep));
    MPI_Aint n = 0;
    for (const Typemap::Part& p : t.parts) n += p.count * form_size(*p.type, rep);
    return n;
}

base::Status convertible(const Representation& theirs, const Representation& mine) {
    if (base::Status s = one_convertible(theirs); !s) return s;
    if (base::Status s = one_convertible(mine); !s) return s;
    const bool readable = format_of(theirs.long_double) != nullptr && format_of(mine.long_double) != nullptr;
    const bool same = theirs.long_double == mine.long_double &&
                      theirs.sizes[Representation::kLongDouble] == mine.sizes[Representation::kLongDouble];
    if (!readable && !(same && theirs.long_double == LongDoubleFormat::ibm_double_double)) {
        return base::Error{"long double in the " + format_name(theirs.long_double) + " format cannot be converted to " +
                           format_name(mine.long_double)};
    }
    return {};
}

Converted convert(const Typemap& t, MPI_Aint count, const std::byte* in, std::size_t in_bytes,
                  const Representation& from, std::byte* out, const Representation& to) {
    Walk w{from, to, in, in_bytes, out, {}};
    walk(w, t, count);
    return w.done;
}

Converted convert_size(const Typemap& t, std::size_t in_bytes, const Representation& from, const Representation& to) {
    const auto size = static_cast<std::size_t>(form_size(t, from));
    if (size == 0) return {};
    Walk w{from, to, nullptr, in_bytes, nullptr, {}};
    walk(w, t, static_cast<MPI_Aint>(in_bytes / size + 1));
    return w.done;
}

}  // namespace strata::mpi
