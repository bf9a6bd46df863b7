// What the Fortran 77 entry points convert between a Fortran caller and the C
// library: the kinds of fortran/routines.txt. The generated bindings.cpp and
// the hand-written special.cpp are the only users.
//
// Conventions (gfortran's, shared by the other Unix compilers on x86-64):
// every argument comes by reference; a default INTEGER is a C int (MPI_Fint),
// so handles and INTEGER arrays pass straight through; LOGICAL is a 4-byte
// integer, .TRUE. 1 and .FALSE. 0, which is what the C library writes and
// reads; a CHARACTER*(*) argument brings its length as a hidden size_t after
// all the others.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "mpi.h"
#include "mpi/f2c.hpp"

#define STRATAF_EXPORT __attribute__((visibility("default")))

namespace strata::fortran {

// The variables of mpif.h whose addresses mean something: the common block
// /STRATAF/ in the order mpif.h declares it. Every program unit that includes
// mpif.h defines the block, and the program's definition is the one the whole
// process uses (the library's own, in special.cpp, only fills the symbol for
// programs that never include mpif.h). It exists in the three spellings of
// the compilers' conventions for common blocks.
struct Commons {
    MPI_Fint bottom;
    MPI_Fint in_place;
    MPI_Fint status_ignore[mpi::kFortranStatusSize];
    MPI_Fint statuses_ignore[mpi::kFortranStatusSize];
};

}  // namespace strata::fortran

extern "C" {
extern STRATAF_EXPORT strata::fortran::Commons strataf_;  // gfortran, flang, ifort, g77
extern STRATAF_EXPORT strata::fortran::Commons strataf;   // -fno-underscoring, xlf
extern STRATAF_EXPORT strata::fortran::Commons STRATAF;   // upper-case compilers
}

namespace strata::fortran {

// Fortran's MPI_BOTTOM as C sees it: the address of the program's MPI_BOTTOM
// variable. MPI_ADDRESS and MPI_GET_ADDRESS count from it, so a buffer at
// MPI_BOTTOM plus a displacement they gave is the location they were given.
inline void* origin() { return &strataf_.bottom; }

template <class Member>
inline bool is_common(const void* p, Member Commons::*m) {
    return p == &(strataf_.*m) || p == &(strataf.*m) || p == &(STRATAF.*m);
}

// A choice buffer: MPI_IN_PLACE becomes C's, MPI_BOTTOM of any spelling the origin.
inline void* buffer(void* p) {
    if (is_common(p, &Commons::in_place)) return MPI_IN_PLACE;
    if (is_common(p, &Commons::bottom)) return origin();
    return p;
}

class StatusOut {
public:
    explicit StatusOut(MPI_Fint* f) : f_(is_common(f, &Commons::status_ignore) ? nullptr : f) {}
    StatusOut(const StatusOut&) = delete;
    StatusOut& operator=(const StatusOut&) = delete;
    ~StatusOut() {
        if (f_ != nullptr) mpi::status_c2f(&c_, f_);
    }
    MPI_Status* c() { return f_ != nullptr ? &c_ : MPI_STATUS_IGNORE; }

private:
    MPI_Fint* f_;
    MPI_Status c_{};
};

class StatusIn {
public:
    explicit StatusIn(const MPI_Fint* f) { mpi::status_f2c(f, &c_); }
    const MPI_Status* c() const { return &c_; }

private:
    MPI_Status c_{};
};

// An array of `size` statuses, of which `*copied` are copied back (all of
// them, or as many as the call completed; none for MPI_UNDEFINED).
class StatusesOut {
public:
    StatusesOut(MPI_Fint* f, MPI_Fint size, const MPI_Fint* copied);
    StatusesOut(const StatusesOut&) = delete;
    StatusesOut& operator=(const StatusesOut&) = delete;
    ~StatusesOut();
    MPI_Status* c() { return f_ != nullptr ? data_ : MPI_STATUSES_IGNORE; }

private:
    MPI_Fint* f_;
    const MPI_Fint* copied_;
    MPI_Fint size_;
    std::array<MPI_Status, 16> small_{};
    std::vector<MPI_Status> large_;
    MPI_Status* data_;
};

// An index C counts from 0 (or MPI_UNDEFINED); Fortran from 1.
class IndexOut {
public:
    explicit IndexOut(MPI_Fint* f) : f_(f) { *f_ = MPI_UNDEFINED; }
    IndexOut(const IndexOut&) = delete;
    IndexOut& operator=(const IndexOut&) = delete;
    ~IndexOut() {
        if (*f_ >= 0) ++*f_;
    }
    MPI_Fint* c() { return f_; }

private:
    MPI_Fint* f_;
};

class IndicesOut {
public:
    IndicesOut(MPI_Fint* f, MPI_Fint* count) : f_(f), count_(count) { *count_ = MPI_UNDEFINED; }
    IndicesOut(const IndicesOut&) = delete;
    IndicesOut& operator=(const IndicesOut&) = delete;
    ~IndicesOut() {
        for (MPI_Fint i = 0; i < *count_; ++i) ++f_[i];
    }

private:
    MPI_Fint* f_;
    MPI_Fint* count_;
};

// Which blanks of a CHARACTER argument are not part of its value: trailing
// ones (names), or leading and trailing (info keys and values, MPI-2 4.10).
enum class Blanks { trailing, both };

class StringIn {
public:
    StringIn(const char* f, std::size_t len, Blanks strip = Blanks::trailing);
    const char* c() const { return s_.c_str(); }

private:
    std::string s_;
};

// Writes `c` into a CHARACTER*(len), cut or padded with blanks.
void string_to_fortran(const char* c, char* f, std::size_t len);

template <int Max>
class StringOut {
public:
    StringOut(char* f, std::size_t len) : f_(f), len_(len) {}
    StringOut(const StringOut&) = delete;
    StringOut& operator=(const StringOut&) = delete;
    ~StringOut() { string_to_fortran(c_.data(), f_, len_); }
    char* c() { return c_.data(); }

private:
    char* f_;
    std::size_t len_;
    std::array<char, Max> c_{};
};

// A string out that the call gives only when it has one (MPI_INFO_GET's
// VALUE): C is offered *avail characters, at most Max - 1 (the NUL takes the
// last byte), and the Fortran variable is written only when the call
// succeeded and set *flag; otherwise it keeps what it held.
template <int Max>
class StringOutIf {
public:
    StringOutIf(char* f, std::size_t len, const MPI_Fint* avail, const MPI_Fint* flag, const MPI_Fint* ierr)
        : f_(f), len_(len), avail_(avail), flag_(flag), ierr_(ierr) {}
    StringOutIf(const StringOutIf&) = delete;
    StringOutIf& operator=(const StringOutIf&) = delete;
    ~StringOutIf() {
        if (*ierr_ == MPI_SUCCESS && *flag_ != 0) string_to_fortran(c_.data(), f_, len_);
    }
    int available() const { return *avail_ < Max - 1 ? *avail_ : Max - 1; }
    char* c() { return c_.data(); }

private:
    char* f_;
    std::size_t len_;
    const MPI_Fint* avail_;
    const MPI_Fint* flag_;
    const MPI_Fint* ierr_;
    std::array<char, Max> c_{};
};

// Stores `value` in `*f` if a default INTEGER holds it; the error otherwise.
int aint_to_fortran(MPI_Aint value, MPI_Fint* f, const char* fn);

// An MPI-1 address or extent returned in a default INTEGER: a value that does
// not fit is MPI_ERR_ARG through MPI_COMM_WORLD's handler, never cut.
class AintOut {
public:
    AintOut(MPI_Fint* f, MPI_Fint* ierr, const char* fn) : f_(f), ierr_(ierr), fn_(fn) {}
    AintOut(const AintOut&) = delete;
    AintOut& operator=(const AintOut&) = delete;
    ~AintOut() {
        if (*ierr_ == MPI_SUCCESS) *ierr_ = aint_to_fortran(c_, f_, fn_);
    }
    MPI_Aint* c() { return &c_; }

private:
    MPI_Fint* f_;
    MPI_Fint* ierr_;
    const char* fn_;
    MPI_Aint c_ = 0;
};

class AintsIn {
public:
    AintsIn(const MPI_Fint* f, MPI_Fint n);
    const MPI_Aint* c() const { return c_.data(); }

private:
    std::vector<MPI_Aint> c_;
};

}  // namespace strata::fortran
