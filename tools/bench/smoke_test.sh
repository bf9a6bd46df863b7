#!/bin/sh
# smoke_test.sh MPICC MPIRUN SRCDIR WORKDIR: builds the MPI benchmarks with
# Strata's mpicc, like any user program, runs each with tiny iteration counts
# through mpirun and checks that every line it prints is well formed and that
# every expected (test, size) line is there. Never judges a time.
set -eu
mpicc=$1 mpirun=$2 src=$3 work=$4
mkdir -p "$work"

fail() { echo "smoke_test: $*" >&2; exit 1; }

for prog in pingpong collectives; do
    "$mpicc" -O2 "$src/$prog.c" -o "$work/$prog" || fail "$prog.c did not build with $mpicc"
done

# check OUTPUT HEADER EXPECTED: the header line, then exactly the EXPECTED
# "test,size" pairs (space-separated), each with three non-negative numbers.
check() {
    out=$1 header=$2 expected=$3
    first=$(printf '%s\n' "$out" | head -1)
    [ "$first" = "$header" ] || fail "first line is '$first', expected '$header'"
    bad=$(printf '%s\n' "$out" | tail -n +2 |
          grep -Ev '^smoke,[a-z-]+,[0-9]+,[0-9]+\.[0-9]{3},[0-9]+\.[0-9]{3},[0-9]+\.[0-9]{2}$' || true)
    [ -z "$bad" ] || fail "malformed line(s): $bad"
    got=$(printf '%s\n' "$out" | tail -n +2 | cut -d, -f2,3 | paste -sd' ' -)
    [ "$got" = "$expected" ] || fail "lines for '$got', expected '$expected'"
}

pp_header=impl,test,size,oneway_us_min,oneway_us_median,mbps
coll_header=impl,test,size,us_min,us_median,mbps
quick="--quick --trials 1 --max-reps 20 --impl smoke"

# shellcheck disable=SC2086
out=$("$mpirun" -np 2 "$work/pingpong" $quick --recv all --sizes 0,8,4K) ||
    fail "pingpong --recv all failed"
check "$out" "$pp_header" "pingpong,0 pingpong,8 pingpong,4096 pingpong-pending,0 pingpong-pending,8 pingpong-pending,4096 pingpong-anysource,0 pingpong-anysource,8 pingpong-anysource,4096"

# The skip-poll sweep's layout: both ping-pong ranks keep a receive from rank 2 posted.
# shellcheck disable=SC2086
out=$("$mpirun" -np 3 "$work/pingpong" $quick --recv specified,pending --pending-from 2 --pending 1 \
      --sizes 0,8) || fail "pingpong --pending-from 2 failed"
check "$out" "$pp_header" "pingpong,0 pingpong,8 pingpong-pending,0 pingpong-pending,8"

# shellcheck disable=SC2086
out=$("$mpirun" -np 2 "$work/collectives" $quick --ops bcast,allreduce --sizes 8,4K) ||
    fail "collectives --ops bcast,allreduce failed"
check "$out" "$coll_header" "bcast,8 bcast,4096 allreduce,8 allreduce,4096"
echo "smoke_test: all benchmark programs ran and printed well-formed lines"
