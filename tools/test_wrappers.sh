#!/bin/sh
# Test of the build-tree compiler wrappers.
# Usage: test_wrappers.sh MPICC MPICXX INCDIR LIBDIR [MPIF77 MPIFORT FINCDIR]
#
# Checks what -show / -compile-info / -link-info print, that -c -E -S -M do
# not add link flags, that arguments with spaces and quotes pass through,
# that STRATA_CC / -cc= choose the compiler, and that tiny C99 and C++
# programs calling MPI_Init / MPI_Comm_rank / MPI_Comm_size / MPI_Finalize
# compile with strict warnings, link, and run as singletons (no mpirun, no
# LD_LIBRARY_PATH: the rpath must be enough). With the Fortran wrappers
# (Strata built with Fortran), the same for mpif77 and mpifort, FINCDIR being
# where mpif.h is, and fixed- and free-form programs that include it.
set -u

if [ $# -ne 4 ] && [ $# -ne 7 ]; then
    echo "usage: $0 MPICC MPICXX INCDIR LIBDIR [MPIF77 MPIFORT FINCDIR]" >&2
    exit 2
fi
# The checks run in a scratch directory: make the wrapper paths absolute.
case $1 in /*) mpicc=$1 ;; *) mpicc=$(pwd)/$1 ;; esac
case $2 in /*) mpicxx=$2 ;; *) mpicxx=$(pwd)/$2 ;; esac
incdir=$3
libdir=$4
mpif77=
mpifort=
if [ $# -eq 7 ]; then
    case $5 in /*) mpif77=$5 ;; *) mpif77=$(pwd)/$5 ;; esac
    case $6 in /*) mpifort=$6 ;; *) mpifort=$(pwd)/$6 ;; esac
    fincdir=$7
fi

passed=0
failed=0
pass() { passed=$((passed + 1)); echo "ok - $1"; }
fail() { failed=$((failed + 1)); echo "not ok - $1"; }

# check NAME COMMAND...: the command must succeed.
check() {
    name=$1
    shift
    if "$@" >"$work/out" 2>&1; then
        pass "$name"
    else
        fail "$name"
        sed 's/^/    /' "$work/out"
    fi
}

# contains NAME TEXT WORD: TEXT must contain WORD as a substring.
contains() {
    case $2 in
        *"$3"*) pass "$1" ;;
        *) fail "$1"; echo "    expected '$3' in: $2" ;;
    esac
}

lacks() {
    case $2 in
        *"$3"*) fail "$1"; echo "    did not expect '$3' in: $2" ;;
        *) pass "$1" ;;
    esac
}

work=$(mktemp -d "${TMPDIR:-/tmp}/strata-wrappers.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT INT TERM

cat >"$work/hello.c" <<'EOF'
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank = -1, size = -1;
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS)
        return 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
#ifdef GREETING
    printf("%s\n", GREETING);
#endif
    printf("rank %d of %d\n", rank, size);
    MPI_Finalize();
    return (rank == 0 && size == 1) ? 0 : 1;
}
EOF

cat >"$work/hello.cpp" <<'EOF'
#include <mpi.h>
#include <iostream>
#include <string>

int main(int argc, char **argv)
{
    int rank = -1, size = -1;
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS)
        return 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    std::cout << std::string("rank ") << rank << " of " << size << '\n';
    MPI_Finalize();
    return (rank == 0 && size == 1) ? 0 : 1;
}
EOF

# --- what the wrappers print -------------------------------------------------
out=$("$mpicc" -show hello.c -o hello)
contains "mpicc -show has the include dir" "$out" "-I$incdir"
contains "mpicc -show has -L" "$out" "-L$libdir"
contains "mpicc -show has the rpath" "$out" "-Wl,-rpath,$libdir"
contains "mpicc -show has -lstrata" "$out" "-lstrata"
contains "mpicc -show keeps the user's arguments" "$out" "hello.c -o hello"
lacks "mpicc -show drops -show" "$out" "-show"

out=$("$mpicxx" -show hello.cpp)
contains "mpicxx -show has the include dir" "$out" "-I$incdir"
contains "mpicxx -show has -lstrata" "$out" "-lstrata"

for flag in -c -E -S -M -MM -fsyntax-only; do
    out=$("$mpicc" -show "$flag" hello.c)
    contains "mpicc -show $flag has the include dir" "$out" "-I$incdir"
    lacks "mpicc -show $flag has no -lstrata" "$out" "-lstrata"
    lacks "mpicc -show $flag has no -L" "$out" "-L$libdir"
done
out=$("$mpicc" -show -MD -c hello.c)
lacks "-MD -c does not link" "$out" "-lstrata"
out=$("$mpicc" -show -MMD hello.c)
contains "-MMD alone still links" "$out" "-lstrata"

out=$("$mpicc" -compile-info)
contains "-compile-info has the include dir" "$out" "-I$incdir"
lacks "-compile-info has no -lstrata" "$out" "-lstrata"
out=$("$mpicc" -link-info -c)
contains "-link-info has -lstrata" "$out" "-lstrata"

out=$(STRATA_CC=my-cc "$mpicc" -show x.c)
contains "STRATA_CC chooses the C compiler" "$out" "my-cc "
out=$(STRATA_CXX=my-cxx "$mpicxx" -show x.cpp)
contains "STRATA_CXX chooses the C++ compiler" "$out" "my-cxx "
out=$(STRATA_CC=my-cc "$mpicc" -cc=other-cc -show x.c)
contains "-cc= wins over STRATA_CC" "$out" "other-cc "
out=$("$mpicc" -show '-DGREETING="hello world"' "it's.c")
contains "-show quotes words with spaces" "$out" "'-DGREETING=\"hello world\"'"
contains "-show quotes single quotes" "$out" "'it'\\''s.c'"

out=$("$mpicc" -help)
contains "-help prints usage" "$out" "Usage: mpicc"

# --- compile, link, run as singletons ----------------------------------------
cd "$work" || exit 2
# Run with no launcher variables and no library path: a singleton, found by rpath.
run() { env -u STRATA_WIREUP -u STRATA_RANK -u STRATA_SIZE -u STRATA_JOB_KEY \
            -u STRATA_SUBJOB -u LD_LIBRARY_PATH "$@"; }

check "C99 strict compile (-c)" "$mpicc" -std=c99 -Wall -Wextra -Wpedantic -Werror -c hello.c -o hello.o
check "link with mpicc" "$mpicc" hello.o -o hello_c
check "C program runs as a singleton" run ./hello_c
check "compile and link in one step" "$mpicc" -O1 hello.c -o hello_one
check "one-step program runs" run ./hello_one
check "argument with spaces reaches the compiler" \
    "$mpicc" '-DGREETING="hello world"' hello.c -o hello_greet
if run ./hello_greet 2>&1 | grep -q '^hello world$'; then
    pass "program built with -DGREETING prints it"
else
    fail "program built with -DGREETING prints it"
fi
check "C++ compile (-c) with warnings as errors" "$mpicxx" -Wall -Wextra -Werror -c hello.cpp -o hellocxx.o
check "link with mpicxx" "$mpicxx" hellocxx.o -o hello_cxx
check "C++ program runs as a singleton" run ./hello_cxx
check "mpicxx compiles and links in one step" "$mpicxx" hello.cpp -o hello_cxx1
check "one-step C++ program runs" run ./hello_cxx1
if command -v readelf >/dev/null 2>&1; then
    if readelf -d hello_c | grep -E 'R(UN)?PATH' | grep -qF "$libdir"; then
        pass "executable carries the library's rpath"
    else
        fail "executable carries the library's rpath"
    fi
fi
# The transparent mode of named communicators: the unmodified program, whose
# MPI_Comm_rank(MPI_COMM_WORLD, ...) still compiles and answers as MPI's.
check "mpicc -include mpi_named.h compiles an unmodified program" "$mpicc" -include mpi_named.h hello.c -o hello_named
check "the program under mpi_named.h runs" run ./hello_named
check "mpicxx -include mpi_named.h compiles an unmodified program" "$mpicxx" -include mpi_named.h hello.cpp -o hello_named_cxx
check "the C++ program under mpi_named.h runs" run ./hello_named_cxx
check "-E preprocesses without linking" "$mpicc" -E hello.c -o hello.i
if grep -q 'MPI_Init' hello.i; then pass "-E output includes mpi.h"; else fail "-E output includes mpi.h"; fi

# --- Fortran -----------------------------------------------------------------
if [ -n "$mpif77" ]; then
    cat >"$work/hello.f" <<'EOF'
      PROGRAM HELLO
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER RANK, SIZE, IERR
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, SIZE, IERR)
      PRINT '(A, I0, A, I0)', 'rank ', RANK, ' of ', SIZE
      CALL MPI_FINALIZE(IERR)
      IF (RANK .NE. 0 .OR. SIZE .NE. 1) STOP 1
      END
EOF
    cat >"$work/hello.f90" <<'EOF'
program hello
  implicit none
  include 'mpif.h'
  integer :: rank, size, ierr
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  print '(A, I0, A, I0)', 'rank ', rank, ' of ', size
  call MPI_Finalize(ierr)
  if (rank /= 0 .or. size /= 1) stop 1
end program hello
EOF
    for w in "$mpif77" "$mpifort"; do
        name=$(basename "$w")
        out=$("$w" -show hello.f -o hello)
        contains "$name -show has mpif.h's dir" "$out" "-I$fincdir"
        contains "$name -show has -lstrata" "$out" "-lstrata"
        contains "$name -show has the rpath" "$out" "-Wl,-rpath,$libdir"
        contains "$name -show keeps the user's arguments" "$out" "hello.f -o hello"
        out=$("$w" -show -c hello.f)
        lacks "$name -show -c has no -lstrata" "$out" "-lstrata"
        out=$(STRATA_FC=my-fc "$w" -show x.f)
        contains "STRATA_FC chooses $name's compiler" "$out" "my-fc "
        out=$("$w" -fc=other-fc -show x.f)
        contains "-fc= chooses $name's compiler" "$out" "other-fc "
        out=$("$w" -help)
        contains "$name -help prints usage" "$out" "Usage: $name"
    done
    check "fixed form with mpif.h compiles (-c)" "$mpif77" -Wall -Werror -c hello.f -o hellof.o
    check "link with mpif77" "$mpif77" hellof.o -o hello_f
    check "Fortran 77 program runs as a singleton" run ./hello_f
    check "free form with mpif.h compiles and links" "$mpifort" -std=f2008 -Wall -Werror hello.f90 -o hello_f90
    check "free-form program runs as a singleton" run ./hello_f90
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
