#!/usr/bin/env python3
"""Writes the C entry points from mpi/c_routines.txt and the prototypes of mpi.h.

usage: gen_c_bindings.py mpi.h c_routines.txt OUT.inc...

One OUT.inc per section of the table (@NAME: NAME.inc, in the table's order).
A family's source file includes its .inc at its end, after the bodies, so
that a body and its entry point are one translation unit (the hot ones
inline into their entry point).

Each entry point is PMPI_name, with MPI_name a weak alias of it (a profiling
library's MPI_name takes its place, MPI-1 chapter 8). It runs through api()
(outside MPI_Init..MPI_Finalize is fatal, no exception crosses the C ABI),
checks its arguments in the order of their kinds (communicators, other
handles, counts, what depends on them, tags, outputs; the table's order
within a kind), and calls strata::mpi::body::name(call, arguments...), with
each checked handle as its object and each checked output as a reference.
"""
import re
import sys
from dataclasses import dataclass

# kind -> (order, C++ type of the checked object or None, parameter)
# parameter: None (takes none), 'arg' (another argument's name), 'buf' (COUNT/TYPE)
KINDS = {
    'comm': (0, 'Comm', None),
    'intracomm': (0, 'Comm', None),
    'intercomm': (0, 'Comm', None),
    'cart': (0, 'Comm', None),
    'graph': (0, 'Comm', None),
    'group': (1, 'ProcessGroup', None),
    'errhandler': (1, None, None),
    'keyval': (1, None, None),
    'op': (1, 'Operation', None),
    'info': (1, 'Info', None),
    'type': (1, 'Datatype', None),
    'ctype': (1, 'Datatype', None),
    'count': (2, None, None),
    'size': (2, None, None),
    'buf': (3, None, 'buf'),
    'array': (3, None, 'arg'),
    'info_key': (3, 'std::string_view', None),
    'info_value': (3, 'std::string_view', None),
    'requests': (3, None, 'arg'),
    'dest': (3, None, 'arg'),
    'source': (3, None, 'arg'),
    'send_tag': (4, None, None),
    'recv_tag': (4, None, None),
    'out': (5, None, None),
    'in': (5, None, None),
    'nonnull': (5, None, None),
    'request': (5, None, None),
}
COMMS = {'comm', 'intracomm', 'intercomm', 'cart', 'graph'}
# The kinds whose check names the argument in what it says.
NAMED = {'count', 'size', 'out', 'in', 'nonnull', 'request', 'requests', 'array', 'buf'}


@dataclass
class Param:
    text: str  # the C declaration, as mpi.h writes it
    name: str
    kind: str = ''
    param: str = ''


def fail(where, text):
    sys.exit(f'{where}: {text}')


def declarations(path):
    """(where, text) of each STRATA_API(...) use of mpi.h, joined across lines."""
    out, text, where = [], None, None
    with open(path, encoding='utf-8') as f:
        for number, line in enumerate(f, 1):
            if text is None and line.startswith(('STRATA_API(', 'STRATA_APIX(')):
                text, where = '', f'{path}:{number}'
            if text is None:
                continue
            text += ' ' + line.strip()
            if text.count('(') == text.count(')'):
                out.append((where, ' '.join(text.split())))
                text = None
    return out


def read_header(path):
    """name -> (return type, [Param]) for every STRATA_API(ret, name, (args))
    of mpi.h (MPI_name), and every STRATA_APIX (Strata's own MPIX_name, which
    keeps its MPIX_ in the table)."""
    out = {}
    decl = re.compile(r'^STRATA_API(X?)\((\w+), (\w+), \((.*)\)\)$')
    for where, text in declarations(path):
        m = decl.match(text)
        if not m:
            fail(where, f'cannot read the declaration "{text}"')
        x, ret, name, args = m.groups()
        name = 'MPIX_' + name if x else name
        params = []
        for arg in ([] if args in ('void', '') else [a.strip() for a in args.split(',')]):
            if arg == '...':  # MPI_Pcontrol's: written by hand
                params.append(Param(arg, arg))
                continue
            p = re.match(r'^(.*?)(\w+)\s*((?:\[\w*\])*)$', arg)
            if not p or p.group(1).strip() == '':
                fail(where, f'cannot read the parameter "{arg}" of {name}')
            params.append(Param(arg, p.group(2)))
        out[name] = (ret, params)
    return out


def logical_lines(path):
    """(where, words) of each routine or section of the table; a line that
    starts with blanks continues the routine above it."""
    lines = []
    with open(path, encoding='utf-8') as f:
        for number, line in enumerate(f, 1):
            words = line.split('#', 1)[0].split()
            if not words:
                continue
            where = f'{path}:{number}'
            if line[0].isspace():
                if not lines or (lines[-1][1][0].startswith('@') and lines[-1][1][0] != '@special'):
                    fail(where, 'a continued line with no routine above it')
                lines[-1][1].extend(words)
            else:
                lines.append((where, words))
    return lines


def read_table(path, header):
    """[(section, [(name, [Param])])] from the table, each checked against mpi.h;
    with the routines of @special, every routine mpi.h declares, once."""
    sections, seen, special = [], set(), []
    for where, words in logical_lines(path):
        if words[0] == '@special':
            special += [(where, w) for w in words[1:]]
            continue
        if words[0].startswith('@'):
            sections.append((words[0][1:], []))
            continue
        if not sections:
            fail(where, 'a routine before the first @SECTION')
        name = words[0]
        if name not in header:
            fail(where, f'mpi.h declares no {c_function(name)}')
        if name in seen:
            fail(where, f'{name} is listed twice')
        seen.add(name)
        ret, params = header[name]
        if ret != 'int' or any(p.name == '...' for p in params):
            fail(where, f'{c_function(name)} returns {ret} or takes variable arguments: write it by hand')
        params = [Param(p.text, p.name) for p in params]
        by_name = {p.name: p for p in params}
        for word in words[1:]:
            arg, _, rest = word.partition(':')
            kind, _, param = rest.partition('=')
            if arg not in by_name:
                fail(where, f'{c_function(name)} has no argument "{arg}"')
            if by_name[arg].kind:
                fail(where, f'{arg} is given two kinds')
            if kind not in KINDS:
                fail(where, f'unknown kind "{kind}" (one of {", ".join(KINDS)})')
            wants = KINDS[kind][2]
            if bool(wants) != bool(param):
                fail(where, f'kind "{kind}" ' + ('needs =PARAMETER' if wants else 'takes no parameter'))
            by_name[arg].kind, by_name[arg].param = kind, param
        for p in params:
            check_param(where, p, by_name)
        sections[-1][1].append((name, params))
    for where, name in special:
        if name not in header:
            fail(where, f'mpi.h declares no {c_function(name)}')
        if name in seen:
            fail(where, f'{name} is listed twice')
        seen.add(name)
    missing = [c_function(n) for n in header if n not in seen]
    if missing:
        fail(path, 'no line for ' + ', '.join(missing) + ' (a routine of its own, or @special)')
    return sections


def check_param(where, p, by_name):
    """The arguments a kind's parameter names exist and are of the kinds it needs."""
    def kind_of(n):
        if n not in by_name:
            fail(where, f'{p.name}: "{n}" is not an argument')
        return by_name[n].kind
    if p.kind == 'buf':
        count, _, dtype = p.param.partition('/')
        if kind_of(count) not in ('count', 'size') or kind_of(dtype) not in ('type', 'ctype'):
            fail(where, f'{p.name}: buf=COUNT/TYPE needs a checked count and a checked datatype')
    elif p.kind in ('dest', 'source') and kind_of(p.param) not in COMMS:
        fail(where, f'{p.name}: {p.kind}=COMM needs a checked communicator')
    elif p.kind in ('array', 'requests') and kind_of(p.param) not in ('count', 'size'):
        fail(where, f'{p.name}: {p.kind}=N needs N a checked count or size')


def check_args(p):
    """The arguments of ok::KIND for p (check::KIND takes the Call, the
    argument's name for the kinds that say it, then these)."""
    n, k, q = p.name, p.kind, p.param
    if KINDS[k][1]:
        return [n, f'{n}_']
    if k in ('array', 'requests'):
        return [n, q]
    if k == 'buf':
        count, _, dtype = q.partition('/')
        return [n, count, f'*{dtype}_']
    if k in ('dest', 'source'):
        return [n, f'*{q}_']
    return [n]


def check_line(p):
    named = [f'"{p.name}"'] if p.kind in NAMED else []
    return f'if (int e = check::{p.kind}({", ".join(["call"] + named + check_args(p))})) return e;'


def by_value(kind):
    """Whether a checked kind's object is a value (a std::string_view), not
    a pointer to the object behind a handle."""
    return KINDS[kind][1].startswith('std::')


def object_decl(p):
    obj = KINDS[p.kind][1]
    return f'{obj} {p.name}_;' if by_value(p.kind) else f'{obj}* {p.name}_ = nullptr;'


def body_arg(p):
    if p.kind and KINDS[p.kind][1]:
        return f'{p.name}_' if by_value(p.kind) else f'*{p.name}_'
    if p.kind in ('out', 'in', 'request') and not re.match(r'(const )?(void|char) \*', p.text):
        return f'*{p.name}'
    return p.name


def c_function(name):
    """The C routine of a table name: MPI_<name>, or the name itself for
    Strata's own MPIX_ routines."""
    return name if name.startswith('MPIX_') else 'MPI_' + name


def entry(name, params):
    cname = c_function(name)
    comm = next((p.name for p in params if p.kind in COMMS), 'MPI_COMM_WORLD')
    checked = sorted((p for p in params if p.kind), key=lambda p: KINDS[p.kind][0])
    lines = [f'STRATA_PMPI_ALIAS({cname});',
             f'extern "C" int P{cname}({", ".join(p.text for p in params) or "void"}) {{',
             '    using namespace ::strata::mpi;',
             f'    static constexpr const char* fn = "{cname}";',
             '    return api(fn, [&] {',
             f'        const Call call{{fn, {comm}}};']
    lines += ['        ' + object_decl(p) for p in checked if KINDS[p.kind][1]]
    lines += ['        ' + check_line(p) for p in checked]
    lines += [f'        return body::{name}({", ".join(["call"] + [body_arg(p) for p in params])});',
              '    });', '}', '']
    return lines


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__.split('\n\n')[1])
    header = read_header(sys.argv[1])
    sections = read_table(sys.argv[2], header)
    outputs = sys.argv[3:]
    names = [s + '.inc' for s, _ in sections]
    if [o.rsplit('/', 1)[-1] for o in outputs] != names:
        sys.exit(f'{sys.argv[2]}: its sections make {", ".join(names)}; the build asks for '
                 f'{", ".join(outputs)}')
    for out, (section, routines) in zip(outputs, sections):
        lines = [f'// Generated by mpi/gen_c_bindings.py from mpi/c_routines.txt (@{section}) and mpi.h:',
                 '// edit those, not this file. Included at the end of the family\'s source file.',
                 '// (At global scope: a definition of an extern "C" function inside a namespace',
                 '// loses the default visibility mpi.h gives it.)', '']
        for name, params in routines:
            lines += entry(name, params)
        with open(out, 'w', encoding='utf-8') as f:
            f.write('\n'.join(lines) + '\n')


if __name__ == '__main__':
    main()
