// The conversions between Fortran callers and the C library (fortran/convert.hpp).
#include <catch2/catch.hpp>

#include <cstring>
#include <string>

#include "fortran/convert.hpp"

using namespace strata;

namespace {

std::string padded(const char* f, std::size_t len) { return std::string(f, len); }

}  // namespace

TEST_CASE("CHARACTER in: trailing blanks are not part of the value", "[fortran]") {
    const char f[] = "WORLD   ";
    CHECK(std::string(fortran::StringIn(f, 8).c()) == "WORLD");
    CHECK(std::string(fortran::StringIn(f, 3).c()) == "WOR");
    CHECK(std::string(fortran::StringIn("  a b  ", 7).c()) == "  a b");
    CHECK(std::string(fortran::StringIn("    ", 4).c()).empty());
    CHECK(std::string(fortran::StringIn("", 0).c()).empty());
}

TEST_CASE("CHARACTER out: cut to the Fortran length or padded with blanks", "[fortran]") {
    char f[8];
    fortran::string_to_fortran("abc", f, sizeof f);
    CHECK(padded(f, sizeof f) == "abc     ");
    fortran::string_to_fortran("abcdefghij", f, sizeof f);
    CHECK(padded(f, sizeof f) == "abcdefgh");
    {
        fortran::StringOut<16> out(f, sizeof f);
        std::strcpy(out.c(), "name");
    }
    CHECK(padded(f, sizeof f) == "name    ");
}

TEST_CASE("CHARACTER in of an info key or value: leading blanks go too", "[fortran]") {
    using fortran::Blanks;
    CHECK(std::string(fortran::StringIn("  a b  ", 7, Blanks::both).c()) == "a b");
    CHECK(std::string(fortran::StringIn("key", 3, Blanks::both).c()) == "key");
    CHECK(std::string(fortran::StringIn("    ", 4, Blanks::both).c()).empty());
    CHECK(std::string(fortran::StringIn("", 0, Blanks::both).c()).empty());
}

TEST_CASE("CHARACTER out of MPI_INFO_GET: VALUELEN bounds it, FLAG and IERROR say whether", "[fortran]") {
    char f[8];
    MPI_Fint avail = 100;
    MPI_Fint flag = 1;
    MPI_Fint ierr = MPI_SUCCESS;
    std::memset(f, 'x', sizeof f);
    {
        fortran::StringOutIf<16> out(f, sizeof f, &avail, &flag, &ierr);
        CHECK(out.available() == 15);  // the NUL takes the last byte
        std::strcpy(out.c(), "value");
    }
    CHECK(padded(f, sizeof f) == "value   ");
    avail = 3;
    {
        fortran::StringOutIf<16> out(f, sizeof f, &avail, &flag, &ierr);
        CHECK(out.available() == 3);
    }
    // No value (FLAG .FALSE.) or an error: the variable keeps what it held.
    std::memset(f, 'x', sizeof f);
    flag = 0;
    {
        fortran::StringOutIf<16> out(f, sizeof f, &avail, &flag, &ierr);
        std::strcpy(out.c(), "other");
    }
    CHECK(padded(f, sizeof f) == "xxxxxxxx");
    flag = 1;
    ierr = MPI_ERR_ARG;
    {
        fortran::StringOutIf<16> out(f, sizeof f, &avail, &flag, &ierr);
        std::strcpy(out.c(), "other");
    }
    CHECK(padded(f, sizeof f) == "xxxxxxxx");
}

TEST_CASE("MPI_BOTTOM and MPI_IN_PLACE are known by address, in every spelling", "[fortran]") {
    int x = 0;
    CHECK(fortran::buffer(&x) == &x);
    CHECK(fortran::buffer(&strataf_.in_place) == MPI_IN_PLACE);
    CHECK(fortran::buffer(&STRATAF.in_place) == MPI_IN_PLACE);
    CHECK(fortran::buffer(&strataf.in_place) == MPI_IN_PLACE);
    CHECK(fortran::buffer(&strataf_.bottom) == fortran::origin());
    CHECK(fortran::buffer(&STRATAF.bottom) == fortran::origin());
    CHECK(fortran::buffer(&strataf.bottom) == fortran::origin());
}

TEST_CASE("A status goes out as MPI_STATUS_SIZE INTEGERs, or nowhere when ignored", "[fortran]") {
    MPI_Fint f[mpi::kFortranStatusSize] = {};
    {
        fortran::StatusOut s(f);
        s.c()->MPI_SOURCE = 3;
        s.c()->MPI_TAG = 42;
        s.c()->MPI_ERROR = MPI_ERR_TRUNCATE;
    }
    CHECK(f[0] == 3);  // STATUS(MPI_SOURCE)
    CHECK(f[1] == 42);
    CHECK(f[2] == MPI_ERR_TRUNCATE);
    fortran::StatusOut ignored(strataf_.status_ignore);
    CHECK(ignored.c() == MPI_STATUS_IGNORE);

    fortran::StatusIn in(f);
    CHECK(in.c()->MPI_TAG == 42);
}

TEST_CASE("A status array copies back as many as the call completed", "[fortran]") {
    constexpr int n = 20;  // more than the inline storage
    MPI_Fint f[n][mpi::kFortranStatusSize];
    for (auto& s : f) s[1] = -7;
    MPI_Fint completed = 5;
    {
        fortran::StatusesOut s(&f[0][0], n, &completed);
        for (int i = 0; i < n; ++i) s.c()[i].MPI_TAG = i;
    }
    CHECK(f[4][1] == 4);
    CHECK(f[5][1] == -7);  // beyond `completed`: untouched
    completed = MPI_UNDEFINED;
    {
        fortran::StatusesOut s(&f[0][0], n, &completed);
        s.c()[0].MPI_TAG = 99;
    }
    CHECK(f[0][1] == 0);
    MPI_Fint all = n;
    fortran::StatusesOut ignored(&strataf_.statuses_ignore[0], n, &all);
    CHECK(ignored.c() == MPI_STATUSES_IGNORE);
}

TEST_CASE("Indices count from 1 in Fortran; MPI_UNDEFINED stays", "[fortran]") {
    MPI_Fint index = 12345;
    {
        fortran::IndexOut i(&index);
        CHECK(index == MPI_UNDEFINED);  // if C never writes it
        *i.c() = 0;
    }
    CHECK(index == 1);
    {
        fortran::IndexOut i(&index);
    }
    CHECK(index == MPI_UNDEFINED);

    MPI_Fint indices[3] = {0, 2, 9};
    MPI_Fint outcount = 0;
    {
        fortran::IndicesOut i(indices, &outcount);
        outcount = 2;
    }
    CHECK(indices[0] == 1);
    CHECK(indices[1] == 3);
    CHECK(indices[2] == 9);
}

TEST_CASE("MPI-1 INTEGER addresses widen in and must fit out", "[fortran]") {
    const MPI_Fint in[3] = {-4, 0, 2147483647};
    fortran::AintsIn wide(in, 3);
    CHECK(wide.c()[0] == -4);
    CHECK(wide.c()[2] == 2147483647);
    fortran::AintsIn none(in, 0);
    CHECK(none.c() != nullptr);

    MPI_Fint out = 0;
    CHECK(fortran::aint_to_fortran(-2147483647 - 1, &out, "MPI_TYPE_EXTENT") == MPI_SUCCESS);
    CHECK(out == -2147483647 - 1);
}
