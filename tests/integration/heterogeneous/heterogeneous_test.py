#!/usr/bin/env python3
"""Data representations across a job: every process publishes its own
(byte order, type sizes, long double's format, pair layouts) at MPI_Init;
mpirun -v shows it; a job whose processes store data differently is refused
at MPI_Init, naming the ranks, until data is converted between them.
STRATA_REPRESENTATION_TEST=1 makes a process announce the opposite byte
order, as a process of another machine would.

    heterogeneous_test.py SCENARIO --mpirun PATH --program PATH
"""

import re
import sys

from strata_test.harness import check, expect_code, expect_nobody_left, program_main


def job_file(ctx, a, foreign):
    """Two native processes, then two that announce the other byte order if `foreign`."""
    env = "{STRATA_REPRESENTATION_TEST: '1'}" if foreign else "{}"
    return ctx.file("job.yaml", f"""\
executable: {a.program}
arguments: [{ctx.marker}]
subjobs:
  - {{count: 2}}
  - {{count: 2, environment: {env}}}
""")


def alike(ctx, a):
    """Processes of one build on one machine are alike: the job runs, and
    mpirun -v shows each process's representation."""
    r = ctx.run(["-v", "-jobfile", job_file(ctx, a, foreign=False)])
    expect_code(r, 0)
    shown = re.findall(r"^strata: rank (\d+): representation: ((?:little|big)-endian; short \d+, int \d+, long \d+, "
                       r"long long \d+, long double \d+ \([^)]*\), wchar_t \d+; pairs \(size, int at\): .*)$",
                       r.stderr, re.M)
    check(sorted(int(rank) for rank, _ in shown) == [0, 1, 2, 3], f"every rank shows its representation:\n{r.stderr}")
    check(len({text for _, text in shown}) == 1, f"one representation:\n{r.stderr}")
    expect_nobody_left(ctx)


def unlike_refused(ctx, a):
    """Ranks 2-3 announce the other byte order: MPI_Init refuses the job,
    naming the unlike ranks (2-3 to a native process, 0-1 to the others),
    mpirun fails, and no process is left. mpirun ends the job at the first
    exit, so which processes get to say so varies; what is said does not."""
    r = ctx.run(["-jobfile", job_file(ctx, a, foreign=True)])
    check(r.returncode != 0, f"mpirun fails:\n{r.stdout}\n{r.stderr}")
    said = re.findall(r"^strata: rank (\d): MPI_Init failed: (.*)$", r.stderr, re.M)
    check(len(said) > 0, f"a process says why:\n{r.stderr}")
    native = sys.byteorder
    other = "big" if native == "little" else "little"
    for rank, why in said:
        unlike, first, theirs, mine = ("2-3", 2, other, native) if int(rank) < 2 else ("0-1", 0, native, other)
        want = (rf"ranks {unlike} store data differently \(rank {first}: {theirs}-endian; .*\) from this process "
                rf"\({mine}-endian; .*\); Strata does not yet convert data between machines of different "
                r"representations$")
        check(re.match(want, why) is not None, f"rank {rank} says: {why}")
    expect_nobody_left(ctx)


SCENARIOS = {f.__name__: f for f in (alike, unlike_refused)}

if __name__ == "__main__":
    sys.exit(program_main(SCENARIOS, ["program"]))
