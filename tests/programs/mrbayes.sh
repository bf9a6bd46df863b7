#!/usr/bin/env bash
# Real program: MrBayes 3.2.7a (Bayesian phylogenetics; Debian source package
# "mrbayes"), unmodified, configured --with-mpi and built once with Strata's
# mpicc and once with MPICH's. The same seeded analysis (the primates data set
# of its examples, GTR+I+G, 2 runs of 4 chains, chains spread over the ranks)
# runs on 2 and 4 ranks with each; every output file (sampled parameters and
# trees, the summaries, the convergence statistics) must equal MPICH's but for
# the run ID line, and the run must end normally with its summary written.
#
# Why bit-exact comparison is sound here: MrBayes is built without BEAGLE, so
# it uses no BLAS and no threads (pthreads come only with BEAGLE), and with
# SSE/AVX off; each chain's likelihoods are computed by one process, with the
# same compiler and compile flags in both builds. The MPI reductions over
# doubles in this analysis (ReassembleMoveInfo, ReassembleTuningParams: move
# counts, acceptance rates, tuning parameters) add one process's value to
# exact zeros from all the others (MrBayes zeroes a chain's move state where
# the chain does not live), so their result does not depend on the MPI
# library's reduction order. The other double reductions belong to stepping-stone sampling, which
# this analysis does not use. Chains swap by point-to-point messages only.
#
# usage: mrbayes.sh STRATA_MPICC STRATA_MPIRUN WORKDIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
strata_cc=$(realpath "$1")
strata_run=$(realpath "$2")
work=$(mkdir -p "$3" && cd "$3" && pwd)
src=$("$here/fetch-source.sh" mrbayes "$work/sources")
# configure's release flags but -O1 for -O3: the same flags for both builds
# (what the bit-exact comparison needs), in half the compile time.
cflags="-O1 -DNDEBUG -std=c99 -pedantic -Wall"

build() {
    local name=$1 cc=$2 tree=$work/mrbayes-$1
    rm -rf "$tree"
    cp -r "$src" "$tree"
    (cd "$tree" && ./configure --with-mpi --without-beagle --without-readline --disable-sse --disable-avx \
        "MPICC=$cc" && make -j"$(nproc)" "CFLAGS=$cflags") > "$work/build-$name.log" 2>&1 || {
        echo "mrbayes.sh: the build with $name's mpicc failed:" >&2
        tail -20 "$work/build-$name.log" >&2
        exit 1
    }
    echo "$tree/src/mb"
}
strata_bin=$(build strata "$strata_cc")
mpich_bin=$(build mpich "$(command -v mpicc.mpich)")

outputs="out.run1.p out.run1.t out.run2.p out.run2.t out.pstat out.lstat out.mcmc out.con.tre out.parts"
fail=0
for np in 2 4; do
    for impl in strata mpich; do
        dir=$work/run-$impl-$np
        rm -rf "$dir"
        mkdir -p "$dir"
        cp "$src/examples/primates.nex" "$dir/"
        cat > "$dir/run.nex" <<'NEX'
begin mrbayes;
  set autoclose=yes nowarn=yes seed=12345 swapseed=54321;
  execute primates.nex;
  lset nst=6 rates=invgamma;
  mcmc ngen=4000 samplefreq=100 printfreq=1000 nchains=4 nruns=2 filename=out;
  sump;
  sumt;
end;
NEX
        if [ "$impl" = strata ]; then
            launch=("$strata_run" -np "$np" "$strata_bin")
        else
            launch=(mpiexec.mpich -np "$np" "$mpich_bin")
        fi
        (cd "$dir" && timeout 600 "${launch[@]}" run.nex) > "$dir/log" 2>&1 || {
            echo "mrbayes.sh: the analysis on $np ranks failed with $impl:" >&2
            tail -10 "$dir/log" >&2
            fail=1
            continue
        }
        grep -q "Tasks completed, exiting program" "$dir/log" || {
            echo "mrbayes.sh: $impl on $np ranks did not finish its tasks" >&2
            fail=1
        }
    done
    before=$fail
    for f in $outputs; do
        s=$work/run-strata-$np/$f
        m=$work/run-mpich-$np/$f
        if [ ! -s "$s" ]; then
            echo "mrbayes.sh: $np ranks: Strata's run wrote no $f" >&2
            fail=1
        elif ! diff <(grep -v '^\[ID:' "$s") <(grep -v '^\[ID:' "$m") > /dev/null; then
            echo "mrbayes.sh: $np ranks: $f differs from MPICH's" >&2
            fail=1
        fi
    done
    if [ "$fail" = "$before" ]; then
        echo "mrbayes.sh: $np ranks: $(grep -c . "$work/run-strata-$np/out.run1.p") lines of samples per run," \
            "every output equal to MPICH's"
    fi
done
exit $fail
