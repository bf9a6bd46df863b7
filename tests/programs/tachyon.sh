#!/usr/bin/env bash
# Real program: Tachyon (parallel ray tracer; Debian source package
# "tachyon"), unmodified, built once with Strata's mpicc and once with
# MPICH's, with MPI_IN_PLACE in use (-DUSE_MPI_IN_PLACE). Each renders the
# same scenes on 2 and 4 ranks; every Strata image must equal MPICH's byte for
# byte (and the 1-rank image: the tiles must fit together), and must not be
# blank.
#
# Why bit-exact comparison is sound here: the linux-mpi build uses no threads
# and no BLAS; every pixel is computed by exactly one process with the same
# code, and the rows only travel (point-to-point, as bytes), never reduced, so
# neither the MPI library nor the number of ranks can change a bit.
#
# usage: tachyon.sh STRATA_MPICC STRATA_MPIRUN WORKDIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
strata_cc=$(realpath "$1")
strata_run=$(realpath "$2")
work=$(mkdir -p "$3" && cd "$3" && pwd)
src=$("$here/fetch-source.sh" tachyon "$work/sources")

# build NAME MPICC: a copy of the source tree built with that compiler (the
# Makefile calls "mpicc", so it comes first on PATH).
build() {
    local name=$1 cc=$2 tree=$work/tachyon-$1
    rm -rf "$tree" "$work/bin-$name"
    cp -r "$src" "$tree"
    mkdir -p "$work/bin-$name"
    ln -s "$cc" "$work/bin-$name/mpicc"
    (cd "$tree/unix" && PATH=$work/bin-$name:$PATH make -s -j"$(nproc)" linux-mpi "MPIFLAGS=-DMPI -DUSE_MPI_IN_PLACE") \
        > "$work/build-$name.log" 2>&1 || {
        echo "tachyon.sh: the build with $name's mpicc failed:" >&2
        tail -20 "$work/build-$name.log" >&2
        exit 1
    }
    echo "$tree/compile/linux-mpi/tachyon"
}
strata_bin=$(build strata "$strata_cc")
mpich_bin=$(build mpich "$(command -v mpicc.mpich)")

scenes=$src/scenes
fail=0
for scene in balls.dat teapot.dat; do
    [ -f "$scenes/$scene" ] || { echo "tachyon.sh: scene $scene missing from the source" >&2; exit 1; }
    for np in 1 2 4; do
        s_img=$work/$scene-strata-$np.ppm
        (cd "$scenes" && timeout 300 "$strata_run" -np "$np" "$strata_bin" "$scene" -res 320 240 \
            -format PPM -o "$s_img") > "$work/run-strata-$scene-$np.log" 2>&1 || {
            echo "tachyon.sh: $scene on $np ranks failed with Strata:" >&2
            tail -5 "$work/run-strata-$scene-$np.log" >&2
            fail=1
            continue
        }
        if [ "$np" -gt 1 ]; then
            m_img=$work/$scene-mpich-$np.ppm
            (cd "$scenes" && timeout 300 mpiexec.mpich -np "$np" "$mpich_bin" "$scene" -res 320 240 \
                -format PPM -o "$m_img") > "$work/run-mpich-$scene-$np.log" 2>&1 || {
                echo "tachyon.sh: $scene on $np ranks failed with MPICH" >&2
                fail=1
                continue
            }
            if ! cmp -s "$s_img" "$m_img"; then
                echo "tachyon.sh: $scene on $np ranks: Strata's image differs from MPICH's" >&2
                fail=1
            fi
            if ! cmp -s "$s_img" "$work/$scene-strata-1.ppm"; then
                echo "tachyon.sh: $scene on $np ranks: differs from the 1-rank image" >&2
                fail=1
            fi
        fi
        # Not blank: more than a handful of distinct byte values after the header.
        if [ "$(tail -c +20 "$s_img" | od -An -v -tu1 | tr -s ' ' '\n' | sort -u | wc -l)" -lt 20 ]; then
            echo "tachyon.sh: $scene on $np ranks: the image is (nearly) blank" >&2
            fail=1
        fi
        echo "tachyon.sh: $scene on $np ranks: $(wc -c < "$s_img") bytes$([ "$np" -gt 1 ] && echo ", identical to MPICH's")"
    done
done
exit $fail
