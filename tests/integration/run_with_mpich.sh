#!/usr/bin/env bash
# Validate the conformance tests of one area (pt2pt, comm, ...) against the
# system MPICH.
#
# Usage: run_with_mpich.sh AREA [test-name ...]
#
# 1. Checks that every program compiles against Strata's own mpi.h (syntax
#    only, C99, warnings as errors), so that the tests use nothing Strata does
#    not declare.
# 2. Compiles every program with mpicc.mpich into a temporary directory.
# 3. Runs each with mpiexec.mpich at the process counts listed in ranks.txt
#    (the same list meson.build reads), failing loudly on any failure.
#
# Environment: PT2PT_RUN_TIMEOUT (seconds per run, default 300),
#              PT2PT_CFLAGS (extra compiler flags, e.g. sanitizers),
#              KEEP_TMP=1 keeps the build directory.
set -u -o pipefail

top=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$top/../.." && pwd)
area=${1:-}
if [ -z "$area" ] || [ ! -f "$top/$area/ranks.txt" ]; then
    echo "usage: run_with_mpich.sh AREA [test-name ...]   (AREA: a folder of $top with a ranks.txt)" >&2
    exit 2
fi
shift
here=$top/$area
strata_inc="$root/mpi/include"
run_timeout=${PT2PT_RUN_TIMEOUT:-300}
cflags=(-std=c99 -O2 -g -Wall -Wextra -Wpedantic -Werror -D_GNU_SOURCE -I"$here" -I"$top/pt2pt")
# shellcheck disable=SC2206 # word splitting of the extra flags is intended
extra_cflags=(${PT2PT_CFLAGS:-})

for tool in mpicc.mpich mpiexec.mpich; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "run_with_mpich: $tool not found (apt-get install mpich)" >&2
        exit 2
    fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/$area-mpich.XXXXXX")
cleanup() {
    if [ "${KEEP_TMP:-0}" = 1 ]; then
        echo "run_with_mpich: build directory kept: $tmp"
    else
        rm -rf "$tmp"
    fi
}
trap cleanup EXIT

# Read ranks.txt: "name [NAME=VALUE ...] n1 n2 ...", '#' starts a comment
# line. The NAME=VALUE words set Strata knobs, meaningless to MPICH: they are
# skipped, and a program listed on several lines runs once per distinct count.
names=()
declare -A counts
while read -r name rest; do
    case "$name" in '' | '#'*) continue ;; esac
    if [ -z "${counts[$name]+x}" ]; then
        names+=("$name")
        counts[$name]=""
    fi
    for w in $rest; do
        case "$w" in *=*) continue ;; esac
        case " ${counts[$name]} " in *" $w "*) ;; *) counts[$name]="${counts[$name]:+${counts[$name]} }$w" ;; esac
    done
done <"$here/ranks.txt"

if [ $# -gt 0 ]; then
    selected=()
    for want in "$@"; do
        want=${want%.c}
        if [ -z "${counts[$want]+x}" ]; then
            echo "run_with_mpich: unknown test '$want' (not in ranks.txt)" >&2
            exit 2
        fi
        selected+=("$want")
    done
    names=("${selected[@]}")
fi

failures=()
passed=0

# 1. Compile against Strata's header (syntax only).
if [ -f "$strata_inc/mpi.h" ]; then
    for name in "${names[@]}"; do
        if ! gcc "${cflags[@]}" -fsyntax-only -I"$strata_inc" "$here/$name.c" 2>"$tmp/$name.strata.log"; then
            echo "FAIL compile-against-strata-mpi.h $name:" >&2
            cat "$tmp/$name.strata.log" >&2
            failures+=("$name (Strata mpi.h)")
        fi
    done
else
    echo "run_with_mpich: $strata_inc/mpi.h not found; skipping the Strata header check" >&2
fi

# 2. Compile with MPICH.
for name in "${names[@]}"; do
    # MPICH's MPI_STATUSES_IGNORE is the address 1, which GCC 12 reports as an
    # out-of-bounds array argument; Strata's header avoids that, MPICH's not.
    if ! mpicc.mpich "${cflags[@]}" -Wno-stringop-overflow "${extra_cflags[@]}" -o "$tmp/$name" "$here/$name.c" 2>"$tmp/$name.build.log"; then
        echo "FAIL build $name:" >&2
        cat "$tmp/$name.build.log" >&2
        failures+=("$name (build)")
    fi
done

# 3. Run.
total_start=$(date +%s.%N)
for name in "${names[@]}"; do
    [ -x "$tmp/$name" ] || continue
    for n in ${counts[$name]}; do
        log="$tmp/$name-np$n.log"
        start=$(date +%s.%N)
        timeout --kill-after=10 "$run_timeout" mpiexec.mpich -np "$n" "$tmp/$name" >"$log" 2>&1
        rc=$?
        end=$(date +%s.%N)
        secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')
        if [ $rc -eq 0 ] && grep -q "^$name: ok" "$log"; then
            printf 'PASS %-28s np=%-2s %7ss\n' "$name" "$n" "$secs"
            passed=$((passed + 1))
        else
            printf 'FAIL %-28s np=%-2s %7ss (exit %d)\n' "$name" "$n" "$secs" "$rc"
            sed 's/^/    | /' "$log" | head -60
            failures+=("$name -np $n")
        fi
    done
done
total_end=$(date +%s.%N)
total=$(awk -v a="$total_start" -v b="$total_end" 'BEGIN { printf "%.1f", b - a }')

echo "run_with_mpich: total run time ${total}s"
if [ ${#failures[@]} -gt 0 ]; then
    echo "run_with_mpich: FAILURES:" >&2
    for f in "${failures[@]}"; do
        echo "    $f" >&2
    done
fi
echo "$area: ${passed} passed, ${#failures[@]} failed"
[ ${#failures[@]} -eq 0 ]
