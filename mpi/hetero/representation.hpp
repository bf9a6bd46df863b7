// How this process lays out the basic datatypes in memory: byte order, the
// size of each C type whose size differs between machines, long double's
// format, and where the int lies in each pair type of MINLOC/MAXLOC.
//
// Every process publishes its representation in its business card
// (wireup::BusinessCard::representation, as bytes()); after the startup
// barrier each knows, per peer, whether the peer's representation equals its
// own (Runtime::foreign). Two processes whose representations are equal
// exchange messages as plain bytes; data between unlike ones is converted by
// the receiver (receiver makes right, docs/GRID.md "Heterogeneous data").
//
// What stays fixed and is not described: char is 1 byte, float and double are
// IEEE 754 binary32/binary64 (a build elsewhere fails a static_assert in
// representation.cpp), Fortran INTEGER, REAL and DOUBLE PRECISION are C's
// int, float and double.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "base/result.hpp"

namespace strata::mpi {

// long double, told by its significand's digits.
enum class LongDoubleFormat : std::uint8_t {
    ieee_double,        // 53 digits: long double is double
    x87_extended,       // 64 digits: Intel's 80-bit format, padded to 12 or 16 bytes
    ieee_quad,          // 113 digits: IEEE 754 binary128 (s390x, AArch64, RISC-V)
    ibm_double_double,  // 106 digits: a pair of doubles (POWER's default)
    other,
};

// "x87 extended", for messages.
std::string format_name(LongDoubleFormat f);

struct Representation {
    // The C types whose size is not the same everywhere.
    enum Scalar : std::uint8_t { kShort, kInt, kLong, kLongLong, kLongDouble, kWchar, kScalars };
    // The pair types of MPI_MINLOC/MPI_MAXLOC whose layout follows from the above and alignment.
    enum Pair : std::uint8_t { kFloatInt, kDoubleInt, kLongInt, kShortInt, kLongDoubleInt, kPairs };
    struct PairLayout {
        std::uint8_t size = 0;        // sizeof the struct {value; int}
        std::uint8_t int_offset = 0;  // offsetof its int
        bool operator==(const PairLayout&) const = default;
    };

    bool big_endian = false;
    std::array<std::uint8_t, kScalars> sizes{};
    LongDoubleFormat long_double = LongDoubleFormat::other;
    std::array<PairLayout, kPairs> pairs{};

    // This build on this machine.
    static const Representation& native();
    // What this process publishes: native(), or with the test setting
    // STRATA_REPRESENTATION_TEST=1 the same with the opposite byte order (=2:
    // also a 32-bit machine's long and long double), so that one machine can
    // run a job whose processes differ (the process then converts what it
    // sends into that form, mpi/hetero/foreign.hpp).
    static Representation published();
    // The form published in a business card: a fixed number of bytes.
    std::string bytes() const;
    // Reads bytes() back; refuses another length or a value no machine has.
    static base::Result<Representation> from_bytes(std::span<const char> bytes);
    // For people: "little-endian; short 2, int 4, long 8, long long 8,
    // long double 16 (x87 extended), wchar_t 4; pairs (size, int at): ..."
    std::string text() const;

    bool operator==(const Representation&) const = default;
};

// Why MPI_Init refuses a job: rank `rank` stores data as `theirs`, which
// this process (`mine`) cannot convert, for the reason `why`.
std::string unconvertible_refusal(const std::string& who, const Representation& theirs, const Representation& mine,
                                  const std::string& why);

}  // namespace strata::mpi
