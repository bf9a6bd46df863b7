#!/bin/sh
# A program built the three ways people build MPI programs without calling
# the wrapper as their compiler, each against this build tree, then run on
# two processes:
#   make    a plain Makefile with `pkg-config --cflags --libs mpi`
#           (PKG_CONFIG_PATH=<builddir>/meson-uninstalled);
#   meson   dependency('mpi'), which interrogates the mpicc first in PATH
#           or $MPICC (-showme:compile, -showme:link), as it does Open MPI's;
#   cmake   find_package(MPI) with MPI_C_COMPILER set to the wrapper.
# Only Strata's pkg-config files are visible (PKG_CONFIG_LIBDIR), as on a
# machine whose only MPI is Strata: the system's Open MPI or MPICH must not be
# found by accident. The program refuses to compile against another MPI's
# mpi.h, and each binary must load this tree's libstrata.
# usage: test_buildsystems.sh BUILDDIR MPICC MPIRUN
set -eu
builddir=$(cd "$1" && pwd)
mpicc=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
mpirun=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/strata-buildsystems.XXXXXX")
trap 'rm -rf "$work"' EXIT
export PKG_CONFIG_LIBDIR="$builddir/meson-uninstalled"
export PKG_CONFIG_PATH=
export MPICC="$mpicc"
# Strata's wrappers first in PATH, as its users set it: Meson takes the
# highest version among $MPICC and every `mpicc` on PATH.
PATH="$(dirname "$mpicc"):$PATH"
status=0

cat > "$work/hello.c" <<'EOF'
#include <mpi.h>
#include <stdio.h>
#if defined(OMPI_MAJOR_VERSION) || defined(MPICH_VERSION)
#error "not Strata's mpi.h"
#endif
int main(int argc, char **argv)
{
    int rank, size, sum = 0, one = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("hello from %d processes, sum %d\n", size, sum);
    MPI_Finalize();
    return sum == size ? 0 : 1;
}
EOF

# check NAME BINARY: runs BINARY on two processes, which must print the sum
# and load this tree's libstrata.
check() {
    name=$1
    bin=$2
    if [ ! -x "$bin" ]; then
        echo "not ok - $name: no program built"
        status=1
        return
    fi
    if ! LD_LIBRARY_PATH="$builddir/mpi" ldd "$bin" | grep -q "$builddir/mpi/libstrata.so"; then
        echo "not ok - $name: does not load $builddir/mpi/libstrata.so:"
        LD_LIBRARY_PATH="$builddir/mpi" ldd "$bin"
        status=1
        return
    fi
    out=$(LD_LIBRARY_PATH="$builddir/mpi" "$mpirun" -np 2 "$bin" 2>&1) || true
    case $out in
        *"hello from 2 processes, sum 2"*) echo "ok - $name: built with Strata and ran on 2 processes" ;;
        *) echo "not ok - $name: $out"; status=1 ;;
    esac
}

# A plain Makefile.
mkdir "$work/make"
printf '%s\n' 'CFLAGS += $(shell pkg-config --cflags mpi)' 'LDLIBS += $(shell pkg-config --libs mpi)' \
    'hello: hello.c' > "$work/make/Makefile"
cp "$work/hello.c" "$work/make/"
if make -s -C "$work/make" > "$work/make.log" 2>&1; then
    check make "$work/make/hello"
else
    echo "not ok - make:"; cat "$work/make.log"; status=1
fi

# Meson and CMake keep only -L/-l-like words of a wrapper's link flags: the
# sanitizer runtime of a -Dsanitize=true build does not reach their links.
case $("$mpicc" -showme:compile) in
    *-fsanitize=*)
        echo "ok - meson # SKIP sanitized build: Meson drops -fsanitize from an MPI wrapper's link flags"
        echo "ok - cmake # SKIP sanitized build: likewise"
        exit $status ;;
esac

# Meson.
mkdir "$work/meson"
cp "$work/hello.c" "$work/meson/"
printf '%s\n' "project('hello', 'c')" \
    "executable('hello', 'hello.c', dependencies : dependency('mpi', language : 'c'))" > "$work/meson/meson.build"
if meson setup "$work/meson/build" "$work/meson" > "$work/meson.log" 2>&1 &&
    ninja -C "$work/meson/build" >> "$work/meson.log" 2>&1; then
    check meson "$work/meson/build/hello"
else
    echo "not ok - meson:"; cat "$work/meson.log"; status=1
fi

# CMake, where it is installed.
if command -v cmake > /dev/null; then
    mkdir "$work/cmake"
    cp "$work/hello.c" "$work/cmake/"
    printf '%s\n' 'cmake_minimum_required(VERSION 3.10)' 'project(hello C)' 'find_package(MPI REQUIRED COMPONENTS C)' \
        'add_executable(hello hello.c)' 'target_link_libraries(hello MPI::MPI_C)' > "$work/cmake/CMakeLists.txt"
    if cmake -S "$work/cmake" -B "$work/cmake/build" -DMPI_C_COMPILER="$mpicc" > "$work/cmake.log" 2>&1 &&
        cmake --build "$work/cmake/build" >> "$work/cmake.log" 2>&1; then
        check cmake "$work/cmake/build/hello"
    else
        echo "not ok - cmake:"; cat "$work/cmake.log"; status=1
    fi
else
    echo "ok - cmake # SKIP not installed"
fi
exit $status
