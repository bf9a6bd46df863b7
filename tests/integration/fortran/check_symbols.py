#!/usr/bin/env python3
"""Every MPI routine Strata has must be callable from Fortran in every spelling.

usage: check_symbols.py LIBSTRATA.so LIST...

The lists are tests/integration/mpi1's (every MPI-1.3 routine, and the later
ones Strata adds). For each routine NAME the library must define, as dynamic
symbols, mpi_name, mpi_name_, mpi_name__ and MPI_NAME (lower case with none,
one or two trailing underscores, and upper case: the conventions of the
Fortran compilers), and the same four PMPI_ spellings. The handle and status
conversions (MPI_*_f2c, MPI_*_c2f) are C only.
"""
import subprocess
import sys


def routines(paths):
    names = []
    for path in paths:
        with open(path, encoding='utf-8') as f:
            for line in f:
                names += line.split('#', 1)[0].split()
    return [n for n in names if not n.endswith(('_f2c', '_c2f'))]


def main():
    lib, lists = sys.argv[1], sys.argv[2:]
    out = subprocess.run(['nm', '-D', '--defined-only', lib], check=True, capture_output=True, text=True).stdout
    defined = {line.split()[-1] for line in out.splitlines() if line.strip()}
    names = routines(lists)
    missing = []
    for name in names:
        for prefix in ('mpi_', 'pmpi_'):
            lower = prefix + name.lower()
            for spelling in (lower, lower + '_', lower + '__', lower.upper()):
                if spelling not in defined:
                    missing.append(spelling)
    if missing:
        print(f'{len(missing)} Fortran symbols missing from {lib}:', ' '.join(missing))
        return 1
    print(f'{len(names)} routines, each in 8 spellings')
    return 0


if __name__ == '__main__':
    sys.exit(main())
