#!/usr/bin/env bash
# Real program: the HPC Challenge benchmark suite 1.5.0 (HPL linear algebra,
# PTRANS, RandomAccess, FFT, STREAM, DGEMM, latency/bandwidth; Debian source
# package "hpcc"), unmodified, built once with Strata's mpicc and once with
# MPICH's against the reference BLAS. It runs its sample input (N=1000) on 4
# ranks (2x2 grid) and on 2 (1x2). HPCC's own verdicts must hold with Strata
# (HPL and PTRANS residual checks passed, RandomAccess without errors,
# Success=1), and every value that does not depend on timing (HPL's norms and
# residual, PTRANS's residual, RandomAccess's error counts, FFT's error) must
# equal MPICH's.
#
# usage: hpcc.sh STRATA_MPICC STRATA_MPIRUN WORKDIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
strata_cc=$(realpath "$1")
strata_run=$(realpath "$2")
work=$(mkdir -p "$3" && cd "$3" && pwd)
src=$("$here/fetch-source.sh" hpcc "$work/sources")

build() {
    local name=$1 cc=$2 tree=$work/hpcc-$1
    rm -rf "$tree" "$work/bin-$name"
    cp -r "$src" "$tree"
    mkdir -p "$work/bin-$name"
    ln -s "$cc" "$work/bin-$name/mpicc"
    # HPL's build settings for this machine: mpicc, the reference BLAS.
    cat > "$tree/hpl/Make.local" <<'MAKE'
SHELL        = /bin/sh
CD           = cd
CP           = cp
LN_S         = ln -s
MKDIR        = mkdir
RM           = /bin/rm -f
TOUCH        = touch
ARCH         = local
TOPdir       = ../../..
INCdir       = $(TOPdir)/include
BINdir       = $(TOPdir)/bin/$(ARCH)
LIBdir       = $(TOPdir)/lib/$(ARCH)
HPLlib       = $(LIBdir)/libhpl.a
LAlib        = -lblas
F2CDEFS      = -DAdd_ -DF77_INTEGER=int -DStringSunStyle
HPL_INCLUDES = -I$(INCdir) -I$(INCdir)/$(ARCH)
HPL_LIBS     = $(HPLlib) $(LAlib) -lm
HPL_DEFS     = $(F2CDEFS) $(HPL_INCLUDES)
CC           = mpicc
CCNOOPT      = $(HPL_DEFS)
CCFLAGS      = $(HPL_DEFS) -O2
LINKER       = mpicc
LINKFLAGS    = $(CCFLAGS)
ARCHIVER     = ar
ARFLAGS      = r
RANLIB       = echo
MAKE
    (cd "$tree" && PATH=$work/bin-$name:$PATH make arch=local) > "$work/build-$name.log" 2>&1 || {
        echo "hpcc.sh: the build with $name's mpicc failed:" >&2
        tail -20 "$work/build-$name.log" >&2
        exit 1
    }
    echo "$tree/hpcc"
}
strata_bin=$(build strata "$strata_cc")
mpich_bin=$(build mpich "$(command -v mpicc.mpich)")

keys="HPL_RnormI HPL_Anorm1 HPL_AnormI HPL_Xnorm1 HPL_XnormI HPL_BnormI PTRANS_residual
MPIRandomAccess_LCG_Errors MPIRandomAccess_Errors MPIFFT_maxErr"
fail=0
for grid in "4 2 2" "2 1 2"; do
    read -r np p q <<< "$grid"
    for impl in strata mpich; do
        dir=$work/run-$impl-$np
        rm -rf "$dir"
        mkdir -p "$dir"
        # The sample input, with the process grid set to p x q (lines 11, 12).
        sed -e "11s/^[0-9]*/$p/" -e "12s/^[0-9]*/$q/" "$src/_hpccinf.txt" > "$dir/hpccinf.txt"
        if [ "$impl" = strata ]; then
            launch=("$strata_run" -np "$np" "$strata_bin")
        else
            launch=(mpiexec.mpich -np "$np" "$mpich_bin")
        fi
        (cd "$dir" && timeout 600 "${launch[@]}") > "$dir/log" 2>&1 || {
            echo "hpcc.sh: the run on $np ranks failed with $impl:" >&2
            tail -10 "$dir/log" >&2
            fail=1
        }
    done
    out=$work/run-strata-$np/hpccoutf.txt
    ref=$work/run-mpich-$np/hpccoutf.txt
    [ -s "$out" ] && [ -s "$ref" ] || { echo "hpcc.sh: $np ranks: no hpccoutf.txt" >&2; fail=1; continue; }
    before=$fail
    grep -q "^Success=1" "$out" || { echo "hpcc.sh: $np ranks: HPCC reports Success=0 with Strata" >&2; fail=1; }
    if grep -q "[1-9][0-9]* tests completed and failed residual checks" "$out"; then
        echo "hpcc.sh: $np ranks: a residual check failed with Strata" >&2
        fail=1
    fi
    for k in $keys; do
        a=$(grep "^$k=" "$out" || true)
        b=$(grep "^$k=" "$ref" || true)
        if [ -z "$a" ] || [ "$a" != "$b" ]; then
            echo "hpcc.sh: $np ranks: ${a:-no $k} with Strata, ${b:-no $k} with MPICH" >&2
            fail=1
        fi
    done
    if [ "$fail" = "$before" ]; then
        echo "hpcc.sh: $np ranks ($p x $q): every check passed, $(echo $keys | wc -w) results equal to MPICH's" \
            "($(grep '^HPL_Tflops=' "$out"))"
    fi
done
exit $fail
