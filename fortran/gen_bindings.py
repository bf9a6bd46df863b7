#!/usr/bin/env python3
"""Writes the Fortran 77 entry points from fortran/routines.txt.

usage: gen_bindings.py routines.txt bindings.cpp special_aliases.inc

bindings.cpp: for each routine of the table, pmpi_<name>_ (the body: convert
the arguments, call the C MPI_ function, store its return in IERROR) and its
other spellings. special_aliases.inc: the spellings of the routines written by
hand in fortran/special.cpp, which includes it (an alias must be in the
translation unit of its target).

The spellings: every compiler's convention for an external name is one of
lower case, lower case with one trailing underscore (gfortran, flang, ifort),
lower case with two when the name holds one already (g77, f2c) and upper case.
The PMPI_ spellings are the definitions; the MPI_ ones are weak aliases of
them, so that a profiling library's own MPI_ routines take their place (MPI-1
chapter 8). Both call the C MPI_ function, so a C profiling library sees
Fortran programs' calls too.
"""
import sys
from dataclasses import dataclass


@dataclass
class Arg:
    name: str
    kind: str
    param: str

    def fortran_params(self):
        """The C declarations of what the Fortran caller passes."""
        n = self.name
        if self.kind == 'buf':
            return [f'void* {n}']
        if self.kind in ('status', 'status_in', 'statuses'):
            return [f'MPI_Fint* {n}']
        if self.kind in ('addr',):
            return [f'MPI_Aint* {n}']
        if self.kind == 'fn':
            return [f'{self.param} {n}']
        if self.kind in STRINGS:
            return [f'char* {n}']
        return [f'MPI_Fint* {n}']

    def hidden_params(self):
        """Hidden arguments, after IERROR: the lengths of CHARACTER arguments."""
        if self.kind in STRINGS:
            return [f'std::size_t {self.name}_len']
        return []

    def local(self):
        """A conversion object that lives across the call, if the kind needs one."""
        n, p = self.name, self.param
        if self.kind == 'status':
            return f'fortran::StatusOut c_{n}({n});'
        if self.kind == 'status_in':
            return f'fortran::StatusIn c_{n}({n});'
        if self.kind == 'statuses':
            size, _, copied = p.partition('/')
            copied = copied or size
            return f'fortran::StatusesOut c_{n}({n}, *{size}, {copied});'
        if self.kind == 'index':
            return f'fortran::IndexOut c_{n}({n});'
        if self.kind == 'indices':
            return f'fortran::IndicesOut c_{n}({n}, {p});'
        if self.kind == 'str_in':
            return f'fortran::StringIn c_{n}({n}, {n}_len);'
        if self.kind == 'str_trim':
            return f'fortran::StringIn c_{n}({n}, {n}_len, fortran::Blanks::both);'
        if self.kind == 'str_out' and '/' in p:
            size, length, flag = p.split('/')
            return f'fortran::StringOutIf<{size}> c_{n}({n}, {n}_len, {length}, {flag}, ierr);'
        if self.kind == 'str_out':
            return f'fortran::StringOut<{p}> c_{n}({n}, {n}_len);'
        if self.kind == 'aint_out':
            return f'fortran::AintOut c_{n}({n}, ierr, FNAME);'
        if self.kind == 'aints':
            return f'fortran::AintsIn c_{n}({n}, *{p});'
        return None

    def c_arg(self):
        n, p = self.name, self.param
        if self.kind == 'int':
            return f'*{n}'
        if self.kind == 'ref':
            return f'reinterpret_cast<{p}>({n})' if p else n
        if self.kind == 'buf':
            return f'fortran::buffer({n})'
        if self.kind == 'aint':
            return f'static_cast<MPI_Aint>(*{n})'
        if self.kind == 'addr':
            return f'*{n}'
        if self.kind == 'fn':
            return n
        if self.kind == 'indices':
            return n
        return f'c_{n}.c()'


KINDS = {'int', 'ref', 'buf', 'status', 'status_in', 'statuses', 'index', 'indices', 'str_in', 'str_trim',
         'str_out', 'aint', 'aint_out', 'aints', 'addr', 'fn'}
STRINGS = {'str_in', 'str_trim', 'str_out'}
NEEDS_PARAM = {'statuses', 'indices', 'str_out', 'aints', 'fn'}


def parse_arg(word, where):
    name, _, rest = word.partition(':')
    kind, _, param = rest.partition('=')
    kind = kind or 'int'
    if kind not in KINDS:
        sys.exit(f'{where}: unknown kind "{kind}" (one of {", ".join(sorted(KINDS))})')
    if (kind in NEEDS_PARAM) != bool(param) and not (kind == 'ref'):
        sys.exit(f'{where}: kind "{kind}" ' + ('needs =PARAMETER' if kind in NEEDS_PARAM else 'takes no parameter'))
    return Arg(name, kind, param)


def read_table(path):
    routines, special = [], []
    with open(path, encoding='utf-8') as f:
        for number, line in enumerate(f, 1):
            words = line.split('#', 1)[0].split()
            if not words:
                continue
            where = f'{path}:{number}'
            if words[0] == '@special':
                special += words[1:]
                continue
            args = [parse_arg(w, where) for w in words[1:]]
            names = [a.name for a in args]
            for a in args:
                refs = a.param.split('/') if a.kind in ('statuses', 'indices', 'aints') else []
                if a.kind == 'str_out' and '/' in a.param:
                    refs = a.param.split('/')[1:]
                    kinds = {b.name: b.kind for b in args}
                    if len(refs) != 2 or kinds.get(refs[0]) != 'int' or kinds.get(refs[1]) != 'ref':
                        sys.exit(f'{where}: {a.name}: str_out=MAX/LEN/FLAG needs LEN an INTEGER in and FLAG a ref')
                for r in refs:
                    if r not in names:
                        sys.exit(f'{where}: {a.name} refers to "{r}", not an argument of {words[0]}')
            routines.append((words[0], args))
    return routines, special


def c_function(c_name):
    """The C routine of a table name: MPI_<c_name>, or the name itself for
    Strata's own MPIX_ routines."""
    return c_name if c_name.startswith('MPIX_') else 'MPI_' + c_name


def spellings(c_name):
    """(definition, strong aliases, weak aliases) of the C routine of c_name."""
    lower = c_function(c_name).lower()
    definition = 'p' + lower + '_'
    strong = ['p' + lower, 'p' + lower + '__', 'P' + lower.upper()]
    weak = [lower, lower + '_', lower + '__', lower.upper()]
    return definition, strong, weak


def aliases(c_name):
    definition, strong, weak = spellings(c_name)
    out = []
    for a in strong:
        out.append(f'extern "C" STRATAF_EXPORT decltype({definition}) {a} __attribute__((alias("{definition}")));')
    for a in weak:
        out.append(f'extern "C" STRATAF_EXPORT decltype({definition}) {a} __attribute__((weak, alias("{definition}")));')
    return out


def entry(c_name, args):
    definition, _, _ = spellings(c_name)
    params = [p for a in args for p in a.fortran_params()] + ['MPI_Fint* ierr']
    params += [p for a in args for p in a.hidden_params()]
    lines = [f'extern "C" STRATAF_EXPORT void {definition}({", ".join(params)}) {{']
    if any(a.kind == 'aint_out' for a in args):
        lines.append(f'    static constexpr const char* FNAME = "{c_function(c_name).upper()}";')
    for a in args:
        local = a.local()
        if local:
            lines.append('    ' + local)
    # The length a str_out=MAX/LEN/FLAG gives C: LEN, at most what its buffer holds.
    lengths = {a.param.split('/')[1]: f'c_{a.name}.available()'
               for a in args if a.kind == 'str_out' and '/' in a.param}
    call = f'{c_function(c_name)}({", ".join(lengths.get(a.name, a.c_arg()) for a in args)})'
    lines.append(f'    *ierr = {call};')
    lines.append('}')
    return lines + aliases(c_name)


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__.split('\n\n')[1])
    routines, special = read_table(sys.argv[1])
    head = ['// Generated by fortran/gen_bindings.py from fortran/routines.txt: edit those, not this file.',
            '#include "fortran/convert.hpp"', '', 'using namespace strata;', '']
    body = []
    for c_name, args in routines:
        body += entry(c_name, args) + ['']
    with open(sys.argv[2], 'w', encoding='utf-8') as f:
        f.write('\n'.join(head + body))
    with open(sys.argv[3], 'w', encoding='utf-8') as f:
        f.write('// Generated by fortran/gen_bindings.py: the spellings of the routines of fortran/special.cpp.\n')
        for c_name in special:
            f.write('\n'.join(aliases(c_name)) + '\n')


if __name__ == '__main__':
    main()
