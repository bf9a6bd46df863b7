#!/usr/bin/env python3
"""The MPI-1 function list against mpi.h, and the link test program.

  check_functions.py gen LIST OUT.c     writes a C program that takes the
                                        address of MPI_x and PMPI_x for every
                                        name in LIST (linking it proves each
                                        one exists in the library)
  check_functions.py check LIST MPI_H   checks that LIST has the 129 MPI-1.3
                                        functions, no duplicates, and that
                                        mpi.h declares every one of them
"""
import re
import sys

MPI1_COUNT = 129


def names(path):
    out = []
    with open(path) as f:
        for line in f:
            line = line.split('#', 1)[0]
            out.extend(line.split())
    return out


def gen(list_path, out_path):
    fns = names(list_path)
    lines = ['/* Generated from functions.txt: references every MPI-1 function. */',
             '#include <mpi.h>', '#include <stdio.h>', '',
             'typedef void (*any_fn)(void);', '', 'static const any_fn table[] = {']
    for n in fns:
        lines.append(f'    (any_fn)MPI_{n}, (any_fn)PMPI_{n},')
    lines += ['};', '', 'int main(void)', '{',
              '    size_t i, missing = 0;',
              '    for (i = 0; i < sizeof table / sizeof table[0]; ++i) missing += table[i] == NULL;',
              f'    printf("%zu of {len(fns)} MPI-1 functions (and their PMPI_ names) linked\\n",'
              ' sizeof table / sizeof table[0] / 2 - missing);',
              '    return missing == 0 ? 0 : 1;', '}', '']
    with open(out_path, 'w') as f:
        f.write('\n'.join(lines))


def check(list_path, header_path):
    fns = names(list_path)
    errors = []
    if len(fns) != MPI1_COUNT:
        errors.append(f'{list_path}: {len(fns)} names, MPI-1.3 has {MPI1_COUNT}')
    dups = sorted({n for n in fns if fns.count(n) > 1})
    if dups:
        errors.append(f'{list_path}: listed twice: {" ".join(dups)}')
    with open(header_path) as f:
        declared = set(re.findall(r'STRATA_API\(\s*[^,]+,\s*(\w+)\s*,', f.read()))
    missing = [n for n in fns if n not in declared]
    if missing:
        errors.append(f'{header_path}: does not declare MPI_{", MPI_".join(missing)}')
    for e in errors:
        print(e, file=sys.stderr)
    if not errors:
        print(f'{len(fns)} MPI-1.3 functions listed, all declared in mpi.h')
    return 1 if errors else 0


if __name__ == '__main__':
    if len(sys.argv) == 4 and sys.argv[1] == 'gen':
        gen(sys.argv[2], sys.argv[3])
        sys.exit(0)
    if len(sys.argv) == 4 and sys.argv[1] == 'check':
        sys.exit(check(sys.argv[2], sys.argv[3]))
    print(__doc__, file=sys.stderr)
    sys.exit(2)
