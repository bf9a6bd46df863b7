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
    """Ranks 2-3 announce the other byte order: every rank's MPI_Init refuses
    the job naming the unlike ranks, mpirun fails, and no process is left."""
    r = ctx.run(["-jobfile", job_file(ctx, a, foreign=True)])
    check(r.returncode != 0, f"mpirun fails:\n{r.stdout}\n{r.stderr}")
    other = "big" if sys.byteorder == "little" else "little"
    check(re.search(r"^strata: rank [01]: MPI_Init failed: ranks 2-3 store data differently \(rank 2: "
                    + other + r"-endian; .*\) from this process \(.*\); Strata does not yet convert data between "
                    r"machines of different representations$", r.stderr, re.M) is not None,
          f"a low rank names ranks 2-3:\n{r.stderr}")
    check(re.search(r"^strata: rank [23]: MPI_Init failed: ranks 0-1 store data differently", r.stderr, re.M)
          is not None, f"a high rank names ranks 0-1:\n{r.stderr}")
    expect_nobody_left(ctx)


SCENARIOS = {f.__name__: f for f in (alike, unlike_refused)}

if __name__ == "__main__":
    sys.exit(program_main(SCENARIOS, ["program"]))
