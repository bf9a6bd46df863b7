#!/usr/bin/env python3
"""The function lists against mpi.h, and the link test programs.

Two lists: functions.txt, the 129 functions of MPI-1.3, and
mpi2_functions.txt, the later functions Strata adds (docs/COMPATIBILITY.md).

  check_functions.py gen LIST OUT.c     writes a C program that takes the
                                        address of MPI_x and PMPI_x for every
                                        name in LIST (linking it proves each
                                        one exists in the library)
  check_functions.py check MPI1_LIST MPI2_LIST MPI_H
                                        checks that MPI1_LIST has the 129
                                        MPI-1.3 functions, that neither list
                                        repeats a name or shares one with the
                                        other, that mpi.h declares every
                                        listed function, and that mpi.h
                                        declares nothing the lists leave out
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
    lines = [f'/* Generated from {list_path.rsplit("/", 1)[-1]}: references every function listed. */',
             '#include <mpi.h>', '#include <stdio.h>', '',
             'typedef void (*any_fn)(void);', '', 'static const any_fn table[] = {']
    for n in fns:
        lines.append(f'    (any_fn)MPI_{n}, (any_fn)PMPI_{n},')
    lines += ['};', '', 'int main(void)', '{',
              '    size_t i, missing = 0;',
              '    for (i = 0; i < sizeof table / sizeof table[0]; ++i) missing += table[i] == NULL;',
              f'    printf("%zu of {len(fns)} functions (and their PMPI_ names) linked\\n",'
              ' sizeof table / sizeof table[0] / 2 - missing);',
              '    return missing == 0 ? 0 : 1;', '}', '']
    with open(out_path, 'w') as f:
        f.write('\n'.join(lines))


def check(mpi1_path, mpi2_path, header_path):
    mpi1 = names(mpi1_path)
    mpi2 = names(mpi2_path)
    errors = []
    if len(mpi1) != MPI1_COUNT:
        errors.append(f'{mpi1_path}: {len(mpi1)} names, MPI-1.3 has {MPI1_COUNT}')
    for path, fns in ((mpi1_path, mpi1), (mpi2_path, mpi2)):
        dups = sorted({n for n in fns if fns.count(n) > 1})
        if dups:
            errors.append(f'{path}: listed twice: {" ".join(dups)}')
    both = sorted(set(mpi1) & set(mpi2))
    if both:
        errors.append(f'{mpi2_path}: already MPI-1 functions: {" ".join(both)}')
    with open(header_path) as f:
        # Declarations only, not the macro's own definition.
        text = '\n'.join(line for line in f if not line.lstrip().startswith('#'))
    declared = set(re.findall(r'STRATA_API\(\s*[^,]+,\s*(\w+)\s*,', text))
    missing = [n for n in mpi1 + mpi2 if n not in declared]
    if missing:
        errors.append(f'{header_path}: does not declare MPI_{", MPI_".join(missing)}')
    unlisted = sorted(declared - set(mpi1) - set(mpi2))
    if unlisted:
        errors.append(f'{header_path}: declares MPI_{", MPI_".join(unlisted)}, which no list names')
    for e in errors:
        print(e, file=sys.stderr)
    if not errors:
        print(f'{len(mpi1)} MPI-1.3 functions and {len(mpi2)} later ones listed, exactly those declared in mpi.h')
    return 1 if errors else 0


if __name__ == '__main__':
    if len(sys.argv) == 4 and sys.argv[1] == 'gen':
        gen(sys.argv[2], sys.argv[3])
        sys.exit(0)
    if len(sys.argv) == 5 and sys.argv[1] == 'check':
        sys.exit(check(sys.argv[2], sys.argv[3], sys.argv[4]))
    print(__doc__, file=sys.stderr)
    sys.exit(2)
