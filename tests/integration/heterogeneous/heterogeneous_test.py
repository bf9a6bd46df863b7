#!/usr/bin/env python3
"""Data representations across a job: every process publishes its own
(byte order, type sizes, long double's format, pair layouts) at MPI_Init;
mpirun -v shows it; point-to-point data between processes that store data
differently is converted by the receiver (hetero_pt2pt.c checks it), and
collectives move data in a form common to their processes (hetero_coll.c).
STRATA_REPRESENTATION_TEST=1 makes a process store what it sends in the
opposite byte order, =2 also as a 32-bit machine (long 4 bytes, long double
an 8-byte IEEE double), and announce so, as a process of another machine
would.

    heterogeneous_test.py SCENARIO --mpirun PATH --program PATH --pt2pt PATH --coll PATH
"""

import re
import sys

from strata_test.harness import check, expect_code, expect_nobody_left, program_main


def job_file(ctx, program, mode, arguments=()):
    """Two native processes, then two in the test representation `mode` (0: none)."""
    env = f"{{STRATA_REPRESENTATION_TEST: '{mode}'}}" if mode else "{}"
    args = ", ".join([*arguments, ctx.marker])
    return ctx.file("job.yaml", f"""\
executable: {program}
arguments: [{args}]
subjobs:
  - {{count: 2}}
  - {{count: 2, environment: {env}}}
""")


def alike(ctx, a):
    """Processes of one build on one machine are alike: the job runs, and
    mpirun -v shows each process's representation."""
    r = ctx.run(["-v", "-jobfile", job_file(ctx, a.program, 0)])
    expect_code(r, 0)
    shown = re.findall(r"^strata: rank (\d+): representation: ((?:little|big)-endian; short \d+, int \d+, long \d+, "
                       r"long long \d+, long double \d+ \([^)]*\), wchar_t \d+; pairs \(size, int at\): .*)$",
                       r.stderr, re.M)
    check(sorted(int(rank) for rank, _ in shown) == [0, 1, 2, 3], f"every rank shows its representation:\n{r.stderr}")
    check(len({text for _, text in shown}) == 1, f"one representation:\n{r.stderr}")
    expect_nobody_left(ctx)


def converted(ctx, a, mode, shown):
    """Ranks 2-3 store what they send as `mode` says: mpirun -v shows it;
    every exchange of hetero_pt2pt (basic types, pairs, nested derived types,
    partial receives, MPI_ANY_SOURCE, persistent, Sendrecv_replace, Bsend,
    Probe, Pack) arrives right in both directions, and every collective of
    hetero_coll (reductions on every type, user operations, data movement)
    gives the right result on every process."""
    native = sys.byteorder
    other = "big" if native == "little" else "little"
    for program in (a.pt2pt, a.coll):
        r = ctx.run(["-v", "-jobfile", job_file(ctx, program, mode, [str(mode)])])
        expect_code(r, 0)
        name = program.rsplit("/", 1)[-1]
        check(f"{name}: ok (4 processes)" in r.stdout, f"{name} passes:\n{r.stdout}\n{r.stderr}")
        for rank in (2, 3):
            want = rf"^strata: rank {rank}: representation: {other}-endian; {shown}"
            check(re.search(want, r.stderr, re.M) is not None, f"rank {rank} shows its representation:\n{r.stderr}")
        expect_nobody_left(ctx)


def converted_byte_order(ctx, a):
    """Ranks 2-3 store data in the other byte order."""
    converted(ctx, a, 1, "short 2, int 4, long 8, ")


def converted_sizes(ctx, a):
    """Ranks 2-3 store data in the other byte order, with 4-byte long and an
    8-byte IEEE double for long double; a long that does not fit 4 bytes
    cannot leave rank 2 (MPI_ERR_TRUNCATE)."""
    converted(ctx, a, 2, r"short 2, int 4, long 4, long long 8, long double 8 \(IEEE double\)")


SCENARIOS = {f.__name__: f for f in (alike, converted_byte_order, converted_sizes)}

if __name__ == "__main__":
    sys.exit(program_main(SCENARIOS, ["program", "pt2pt", "coll"]))
