#!/usr/bin/env bash
# Real programs: MPICH's own MPI-2 client/server tests (Debian source package
# "mpich", test/mpi), unmodified, built with Strata's mpicc (mpif77) against
# MPICH's test harness library (util/mtest*.c, also unmodified) and run through
# Strata's mpirun. A test passes as MPICH's runtests judges it: exit status 0,
# " No Errors" printed, and nothing else on stdout or stderr ("Test Passed"
# and "FORTRAN STOP" lines excepted).
#
# What runs (ranks as in MPICH's testlists):
#   One job each (the processes pass the port name among themselves with
#   MPI_Send or MPI_Bcast, or publish it):
#     spawn/selfconacc 2             accept/connect over MPI_COMM_SELF, disconnect
#     spawn/namepub 2                publish, lookup, unpublish, then MPI_ERR_NAME
#     spawn/multiple_ports 3         two ports, accepted in the other order
#     spawn/multiple_ports2 4        three ports, likewise
#     spawn/pgroup_connect_test 4    a group built by accept/connect + merges
#     spawn/pgroup_intercomm_test 4  the same group by MPI_Intercomm_create (no
#                                    port, but in the same directory and cheap)
#     errors/spawn/badport 2         connect to "myhost:27": an error, no comm
#     errors/spawn/unpub 1           unpublish before publish: MPI_ERR_SERVICE
#     errors/spawn/lookup_name 1     20 lookups of an unpublished name
#     errors/spawn/connect_timeout_mismatch 2 and 5
#                                    one accept, two connects: one MPI_ERR_PORT
#     errors/spawn/connect_timeout_no_accept 2 and 5
#                                    no accept: a connect without info gives up
#                                    after the default limit, one with the info
#                                    key "timeout" after 5 s, both MPI_ERR_PORT.
#                                    MPICH's testlist sets its default to 20 s
#                                    (MPIR_CVAR_CH4_COMM_CONNECT_TIMEOUT); here
#                                    STRATA_CONNECT_TIMEOUT=5 keeps it short.
#     f77/spawn/namepubf 2           namepub in Fortran 77 (with Fortran only)
#     f77/spawn/connaccf 2           lookup before publish (MPI_ERR_NAME), then
#                                    publish/lookup/accept/connect (Fortran only)
#   Separate jobs:
#     manual/testconnect, as 2 and as 4 jobs of 1 process (separate mpiruns,
#     as MPICH's manual/manyconnect starts it): the first opens a port and
#     writes its name to a file; every other reads it and connects, and the
#     growing merged group accepts the next. Each job must print "All done."
#     and exit 0, the first having seen the group reach every job (a manual
#     test: it prints no " No Errors").
#
# Excluded, and why:
#   spawn/spawn1 spawn2 spawninfo1 spawnminfo1 spawnintra spawnargv
#     spawnmanyarg spawnmult2 spaiccreate spaiccreate2 taskmanager
#     concurrent_spawns spawn_rootargs disconnect disconnect2 disconnect3:
#     MPI_Comm_spawn(_multiple) and MPI_Comm_get_parent, not in Strata.
#   spawn/spaconacc spaconacc2 disconnect_reconnect disconnect_reconnect2
#     disconnect_reconnect3: connect/accept, but between a job and the
#     children it spawns (MPI_Comm_spawn, MPI_Comm_get_parent).
#   spawn/join, manual/singjoin: MPI_Comm_join, not in Strata.
#   manual/testconnectserial: meant for singleton processes started by hand;
#     its watchdog runs a stack printer at a path in its author's home
#     (/home/eellis/bin/pstack1) and asserts that it succeeded whenever a
#     process waits 5 s, and its rank 0 reads `size` uninitialized.
#   f77/spawn other tests: MPI_Comm_spawn. f90/spawn, f08/spawn: need the
#     Fortran modules mpi and mpi_f08; cxx/spawn: the C++ bindings; Strata
#     has neither.
#
# The harness: mpitest.h includes mpitestconf.h, which MPICH's configure
# writes; a minimal one is generated in WORKDIR (headers, no threads). MPICH's
# harness library needs two MPI-2 names Strata's mpi.h lacks, each in a helper
# that none of the tests above calls (checked below): MPI_UNIVERSE_SIZE
# (MTestSpawnPossible) and MPI_Type_get_envelope with MPI_COMBINER_NAMED
# (MTestIsBasicDtype, behind MTestCheckStatus). The generated header stands
# in for them only while mpi.h lacks them: MPI_UNIVERSE_SIZE as
# MPI_KEYVAL_INVALID (an error if ever queried), MPI_Type_get_envelope as an
# abort with a message. Fortran's mtest_f77.f likewise gets
# -DMPI_UNIVERSE_SIZE=MPI_KEYVAL_INVALID while mpif.h lacks it.
#
# Names are published in a name directory of the test's own
# (STRATA_NAME_DIR), so "MyTest" never meets a real service.
#
# usage: mpich-clientserver.sh STRATA_MPICC STRATA_MPIRUN WORKDIR [STRATA_MPIF77]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
strata_cc=$(realpath "$1")
strata_run=$(realpath "$2")
work=$(mkdir -p "$3" && cd "$3" && pwd)
strata_fc=
if [ -n "${4:-}" ] && [ "${4:-}" != none ]; then strata_fc=$(realpath "$4"); fi
src=$("$here/fetch-source.sh" mpich "$work/sources")
t=$src/test/mpi

build=$work/build
rm -rf "$build" "$work/run"
mkdir -p "$build" "$work/run"
export STRATA_NAME_DIR=$work/names
rm -rf "$STRATA_NAME_DIR"
mkdir -m 700 "$STRATA_NAME_DIR"

fail=0
say() { echo "mpich-clientserver.sh: $*"; }

# The tests that run (dir/name ranks...); the Fortran ones only with mpif77.
c_tests=(
    "spawn/selfconacc 2"
    "spawn/namepub 2"
    "spawn/multiple_ports 3"
    "spawn/multiple_ports2 4"
    "spawn/pgroup_connect_test 4"
    "spawn/pgroup_intercomm_test 4"
    "errors/spawn/badport 2"
    "errors/spawn/unpub 1"
    "errors/spawn/lookup_name 1"
    "errors/spawn/connect_timeout_mismatch 2 5"
    "errors/spawn/connect_timeout_no_accept 2 5"
)
f_tests=(
    "f77/spawn/namepubf 2"
    "f77/spawn/connaccf 2"
)

# source PATH: the source file of a test (connect_timeout_mismatch is
# connect_timeout.c built with -DTEST_MISMATCH, as MPICH's Makefile.am does).
source_of() {
    case $1 in
        errors/spawn/connect_timeout_*) echo "$t/errors/spawn/connect_timeout.c" ;;
        f77/*) echo "$t/$1.f" ;;
        *) echo "$t/$1.c" ;;
    esac
}

# The stand-ins below are sound only while no test calls those helpers.
for entry in "${c_tests[@]}" "${f_tests[@]}"; do
    path=${entry%% *}
    file=$(source_of "$path")
    [ -f "$file" ] || { say "$path: no $file in MPICH's tree"; exit 1; }
    if grep -qiE 'MTestSpawnPossible|MTestCheckStatus|MTestIsBasicDtype' "$file"; then
        say "$path calls an MTest helper that needs what Strata lacks; the stand-ins do not fit it"
        exit 1
    fi
done

cat > "$build/mpitestconf.h" <<'EOF'
/* Generated by tests/programs/mpich-clientserver.sh for Strata: what MPICH's
 * configure would write, as far as these tests need it. */
#ifndef MPITESTCONF_H_INCLUDED
#define MPITESTCONF_H_INCLUDED
#define HAVE_STDARG_H 1
#define HAVE_STDLIB_H 1
#define HAVE_STRING_H 1
#define HAVE_UNISTD_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_SYS_RESOURCE_H 1
#define HAVE_GETRUSAGE 1
#define HAVE_USLEEP 1
#define THREAD_PACKAGE_NAME THREAD_PACKAGE_NONE
#include <mpi.h>
/* MPI-2 names Strata lacks, used only by MTest helpers these tests never
 * call; standing in only while mpi.h lacks them, failing if ever reached. */
#ifndef MPI_UNIVERSE_SIZE
#define MPI_UNIVERSE_SIZE MPI_KEYVAL_INVALID
#endif
#ifndef MPI_COMBINER_NAMED
#define MPI_COMBINER_NAMED 1
#define MPI_Type_get_envelope(type, ni, na, nt, combiner) \
    (fprintf(stderr, "MPI_Type_get_envelope is not in Strata\n"), abort(), *(combiner) = 0)
#endif
#endif
EOF

# compile LOG CMD...: runs a compiler command; on failure shows its end.
compile() {
    local log=$1
    shift
    "$@" > "$log" 2>&1 || {
        say "compiling failed: $*"
        tail -20 "$log" >&2
        exit 1
    }
}

for f in mtest mtest_common mtest_single; do
    compile "$build/$f.log" "$strata_cc" -I"$build" -I"$t/include" -c "$t/util/$f.c" -o "$build/$f.o"
done
ar rcs "$build/libmtest.a" "$build/mtest.o" "$build/mtest_common.o" "$build/mtest_single.o"

if [ -n "$strata_fc" ]; then
    fflags=()
    printf '      program probe\n      implicit none\n      include %s\n      integer i\n      i = MPI_UNIVERSE_SIZE\n      end\n' \
        "'mpif.h'" > "$build/probe.f"
    if ! "$strata_fc" -c "$build/probe.f" -o "$build/probe.o" > "$build/probe.log" 2>&1; then
        fflags=(-cpp -DMPI_UNIVERSE_SIZE=MPI_KEYVAL_INVALID)
    fi
    compile "$build/mtest_f77.log" "$strata_fc" "${fflags[@]}" -c "$t/util/mtest_f77.f" -o "$build/mtest_f77.o"
fi

# verdict NAME LOG RC: MPICH's runtests rule.
verdict() {
    local name=$1 log=$2 rc=$3
    if [ "$rc" -ne 0 ]; then
        say "$name: FAILED (exit status $rc):"
        tail -20 "$log" >&2
        fail=1
        return
    fi
    if ! grep -qE '^[[:space:]]*No [Ee]rrors[[:space:]]*$' "$log"; then
        say "$name: FAILED (no \" No Errors\"):"
        tail -20 "$log" >&2
        fail=1
        return
    fi
    if grep -vE '^[[:space:]]*(No [Ee]rrors|Test Passed)[[:space:]]*$' "$log" | grep -v 'FORTRAN STOP' | grep -q .; then
        say "$name: FAILED (unexpected output):"
        grep -vE '^[[:space:]]*(No [Ee]rrors|Test Passed)[[:space:]]*$' "$log" | tail -20 >&2
        fail=1
        return
    fi
    say "$name: No Errors"
}

# run NAME EXE NP: one job of NP ranks.
run() {
    local name=$1 exe=$2 np=$3 dir=$work/run/$1-$3 rc=0
    mkdir -p "$dir"
    local limit=180  # STRATA_CONNECT_TIMEOUT's default
    [ "$name" = errors/spawn/connect_timeout_no_accept ] && limit=5
    (cd "$dir" && STRATA_CONNECT_TIMEOUT=$limit timeout 180 "$strata_run" -np "$np" "$exe") > "$dir/out.log" 2>&1 || rc=$?
    verdict "$name on $np ranks" "$dir/out.log" "$rc"
}

for entry in "${c_tests[@]}"; do
    read -r path nps <<< "$entry"
    name=${path##*/}
    exe=$build/$name
    defines=()
    [ "$name" = connect_timeout_mismatch ] && defines=(-DTEST_MISMATCH)
    [ "$name" = connect_timeout_no_accept ] && defines=(-DTEST_NOACCEPT)
    compile "$build/$name.log" "$strata_cc" "${defines[@]}" -I"$build" -I"$t/include" "$(source_of "$path")" \
        "$build/libmtest.a" -o "$exe"
    for np in $nps; do run "$path" "$exe" "$np"; done
done

if [ -n "$strata_fc" ]; then
    for entry in "${f_tests[@]}"; do
        read -r path nps <<< "$entry"
        name=${path##*/}
        compile "$build/$name.log" "$strata_fc" "$(source_of "$path")" "$build/mtest_f77.o" -o "$build/$name"
        for np in $nps; do run "$path" "$build/$name" "$np"; done
    done
else
    say "no Fortran: f77/spawn/namepubf and connaccf skipped"
fi

# manual/testconnect as N separate jobs: the first must have written the
# port name (a whole line) before the others read it, which manyconnect
# arranges with a "sleep 1".
compile "$build/testconnect.log" "$strata_cc" "$t/manual/testconnect.c" -o "$build/testconnect"
for jobs in 2 4; do
    dir=$work/run/testconnect-$jobs
    mkdir -p "$dir"
    portfile=$dir/test-port
    rm -f "$portfile"
    pids=()
    (cd "$dir" && exec timeout 180 "$strata_run" -np 1 "$build/testconnect" "$portfile" "$jobs" 1) > "$dir/job1.log" 2>&1 &
    pids+=($!)
    for _ in $(seq 600); do
        [ -f "$portfile" ] && [ "$(tail -c 1 "$portfile" | od -An -c | tr -d ' ')" = '\n' ] && break
        sleep 0.1
    done
    for k in $(seq 2 "$jobs"); do
        (cd "$dir" && exec timeout 180 "$strata_run" -np 1 "$build/testconnect" "$portfile" "$jobs" "$k") \
            > "$dir/job$k.log" 2>&1 &
        pids+=($!)
    done
    ok=1
    for k in $(seq 1 "$jobs"); do
        rc=0
        wait "${pids[$((k - 1))]}" || rc=$?
        if [ "$rc" -ne 0 ] || ! grep -q "^\[$k\] All done\.$" "$dir/job$k.log" ||
            { [ "$k" = 1 ] && ! grep -q "^\[1\] Size of comm is $jobs$" "$dir/job1.log"; }; then
            say "manual/testconnect as $jobs jobs: job $k FAILED (exit status $rc):"
            tail -10 "$dir/job$k.log" >&2
            ok=0
        fi
    done
    if [ "$ok" = 1 ]; then
        say "manual/testconnect as $jobs jobs: every job done"
    else
        fail=1
    fi
done

if [ -n "$(ls -A "$STRATA_NAME_DIR")" ]; then
    say "names left published: $(ls -A "$STRATA_NAME_DIR")"
    fail=1
fi
exit $fail
