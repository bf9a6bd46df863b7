#!/usr/bin/env python3
"""mpi/gen_c_bindings.py: the real table makes one file per section, each
entry point checks its arguments in the order of their kinds, and a wrong
table is refused with its file, its line and what is wrong.

usage: test_gen_c_bindings.py GEN_C_BINDINGS.py MPI_H C_ROUTINES.txt
"""
import os
import re
import subprocess
import sys
import tempfile


def run(gen, header, table, outputs):
    return subprocess.run([sys.executable, gen, header, table] + outputs, capture_output=True, text=True)


def sections(table):
    with open(table, encoding='utf-8') as f:
        return [line.split()[0][1:] for line in f if line.startswith('@') and not line.startswith('@special')]


def main():
    gen, header, table = sys.argv[1:4]
    failures = []
    with open(table, encoding='utf-8') as f:
        real = f.read()
    with tempfile.TemporaryDirectory() as work:
        outs = [os.path.join(work, s + '.inc') for s in sections(table)]
        r = run(gen, header, table, outs)
        if r.returncode != 0:
            failures.append(f'the real table is refused: {r.stderr.strip()}')
        else:
            with open(os.path.join(work, 'pt2pt.inc'), encoding='utf-8') as f:
                text = f.read()
            isend = text[text.index('int PMPI_Isend('):]
            isend = isend[:isend.index('\n}\n')]
            order = [m.group(1) for m in re.finditer(r'check::(\w+)\(', isend)]
            want = ['comm', 'ctype', 'count', 'buf', 'dest', 'send_tag', 'out']
            if order != want:
                failures.append(f'MPI_Isend checks {order}, not {want}')
            if 'STRATA_PMPI_ALIAS(MPI_Isend);' not in text or 'body::Isend(call, buf, count, *datatype_' not in isend:
                failures.append('MPI_Isend has no weak alias, or its body does not get the checked objects')

        # Each mistake, put into a copy of the real table: what the refusal must say.
        bad = [
            ('Wait            request:request', 'Wait            request:handle', 'unknown kind "handle"'),
            ('Wait            request:request', 'Wait            reqest:request', 'MPI_Wait has no argument "reqest"'),
            ('Group_size              group:group size:out', 'Group_size              group:group size:out=3',
             'kind "out" takes no parameter'),
            ('Pack_size       comm:comm datatype:type incount:count size:out',
             'Pack_size       comm:comm datatype:type incount:count size:buf=incount/comm',
             'buf=COUNT/TYPE needs a checked count and a checked datatype'),
            ('Test_cancelled  status:in flag:out\n', '', 'no line for MPI_Test_cancelled'),
            ('Wtick Get_version', 'Wtick Get_version Wtick', 'Wtick is listed twice'),
            ('Finalize\n', 'Finalize\nWin_fence\n', 'mpi.h declares no MPI_Win_fence'),
        ]
        for old, new, says in bad:
            if old not in real:
                failures.append(f'the table no longer has "{old.strip()}" to break')
                continue
            broken = os.path.join(work, 'broken.txt')
            with open(broken, 'w', encoding='utf-8') as f:
                f.write(real.replace(old, new, 1))
            r = run(gen, header, broken, outs)
            where = re.match(r'^' + re.escape(broken) + r'(:\d+)?: ', r.stderr)
            if r.returncode == 0 or says not in r.stderr or not where:
                failures.append(f'"{new.strip()}": exit {r.returncode}, said {r.stderr.strip()!r}, wanted {says!r} '
                                'after the file and line')
    for f in failures:
        print('FAIL:', f)
    print(f'{len(failures)} failure(s)')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
