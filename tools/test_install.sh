#!/bin/sh
# `meson install` puts every user-facing file in place: the library, the
# headers (mpif.h with Fortran), mpirun and the wrappers, and the installed
# wrappers point at the installed paths, not at the build tree.
# usage: test_install.sh MESON BUILDDIR PREFIX HAVE_FORTRAN(true|false)
set -eu
meson=$1
builddir=$2
prefix=$3
fortran=$4
dest=$(mktemp -d "${TMPDIR:-/tmp}/strata-install.XXXXXX")
trap 'rm -rf "$dest"' EXIT
"$meson" install -C "$builddir" --no-rebuild --quiet --destdir "$dest" >"$dest.log" 2>&1 || {
    cat "$dest.log" >&2
    rm -f "$dest.log"
    exit 1
}
rm -f "$dest.log"
root=$dest$prefix
want="bin/mpirun bin/mpicc bin/mpicxx include/mpi.h include/mpi_named.h"
if [ "$fortran" = true ]; then
    want="$want bin/mpif77 bin/mpifort include/mpif.h"
fi
status=0
for f in $want; do
    if [ -e "$root/$f" ]; then echo "ok - $f installed"; else echo "not ok - $f not installed"; status=1; fi
done
for pc in strata mpi mpi-c mpi-cxx; do
    file=$(find "$root" -path "*/pkgconfig/$pc.pc" -print)
    if [ -z "$file" ]; then
        echo "not ok - $pc.pc not installed"
        status=1
    elif flags=$(PKG_CONFIG_LIBDIR=$(dirname "$file") PKG_CONFIG_SYSROOT_DIR=$dest pkg-config --cflags --libs "$pc") &&
        case $flags in *"-I$root/include"*"-L$root/"*"-lstrata"*) true ;; *) false ;; esac; then
        echo "ok - $pc.pc installed: $flags"
    else
        echo "not ok - $pc.pc: $flags"
        status=1
    fi
done
if [ -n "$(find "$root" -name 'libstrata.so*' -print)" ]; then
    echo "ok - libstrata.so installed"
else
    echo "not ok - libstrata.so not installed"
    status=1
fi
wrappers="mpicc"
[ "$fortran" = true ] && wrappers="$wrappers mpif77 mpifort"
for w in $wrappers; do
    shown=$(sh "$root/bin/$w" -show x)
    case $shown in
        *"-I$prefix/"*"-L$prefix/"*) echo "ok - installed $w uses $prefix" ;;
        *) echo "not ok - installed $w: $shown"; status=1 ;;
    esac
    case $shown in
        *"$builddir"*) echo "not ok - installed $w points into the build tree"; status=1 ;;
    esac
done
exit $status
