#!/bin/sh
# A Fortran program that calls a routine Strata does not have (MPI-2's
# MPI_WIN_FENCE) must fail to link, and the linker's message must name the
# routine, so the user learns what is missing before anything runs.
# usage: missing_routine.sh MPIF77
set -eu
mpif77=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/missing.f" <<'FORTRAN'
      PROGRAM MISSING
      INCLUDE 'mpif.h'
      INTEGER IERR
      CALL MPI_INIT(IERR)
      CALL MPI_WIN_FENCE(0, 0, IERR)
      CALL MPI_FINALIZE(IERR)
      END
FORTRAN
if "$mpif77" "$work/missing.f" -o "$work/missing" > "$work/log" 2>&1; then
    echo "missing_routine: a program calling MPI_WIN_FENCE linked" >&2
    exit 1
fi
if ! grep -q "undefined reference to .mpi_win_fence_" "$work/log"; then
    echo "missing_routine: the link failed without naming mpi_win_fence_:" >&2
    cat "$work/log" >&2
    exit 1
fi
echo "the link failed naming mpi_win_fence_"
