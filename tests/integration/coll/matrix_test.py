#!/usr/bin/env python3
"""Every collective algorithm the registries list, forced in turn, passes the
conformance programs of its operation, and runs in some of their calls
(STRATA_STATS counts the choices; a call it does not fit falls back to the
rules): the flat ones on one host, the multilevel and two-level ones across
the emulated grid (strata_test.coll_grid), and those of the wide-area model
there with STRATA_PLOGP.
The list comes from strata-info (the registries themselves), so a new
algorithm is tested without editing any list.

    matrix_test.py SCENARIO --mpirun PATH --info STRATA_INFO --programs PROGRAM...

SCENARIO: flat, grid, or choices (what STRATA_STATS says each call chose).
"""

import os
import re
import subprocess
import sys

from strata_test.coll_grid import GRID, PLOGP, PLOGP_SITES, PROCESSES
from strata_test.harness import check, expect_code, expect_nobody_left, expect_stderr, program_main

# The programs that exercise each operation (every program also runs barriers).
PROGRAMS = {
    "barrier": ["coll_context"],
    "bcast": ["coll_bcast"],
    "gather": ["coll_gather", "coll_errors"], "gatherv": ["coll_gather"], "scatter": ["coll_gather"],
    "scatterv": ["coll_gather"],
    "allgather": ["coll_allgather", "coll_errors"], "allgatherv": ["coll_allgather"], "alltoall": ["coll_allgather"],
    "alltoallv": ["coll_allgather"],
    "reduce": ["coll_reduce_user", "coll_reduce_ops", "coll_fortran", "coll_derived"],
    "allreduce": ["coll_reduce_user", "coll_reduce_ops", "coll_fortran", "coll_derived"],
    "reduce_scatter": ["coll_reduce_user", "coll_reduce_ops", "coll_fortran"],
    "scan": ["coll_reduce_user", "coll_reduce_ops", "coll_fortran"],
}
GRID_ALGORITHMS = ("multilevel", "two_level_site", "two_level_machine")
# Algorithms that need the wide-area model: run on the grid with STRATA_PLOGP.
MODELLED_ALGORITHMS = ("segmented",)
FLAT_PROCESSES = (1, 3, 8)


def registries(info):
    """{operation: (knob, [algorithm, ...])} from strata-info --parsable."""
    out = subprocess.run([info, "--parsable"], capture_output=True, text=True, check=True).stdout
    ops = {}
    for line in out.splitlines():
        parts = line.split(":")
        if parts[0] != "collective":
            continue
        knob, algorithms = ops.setdefault(parts[1], ["", []])
        if parts[2] == "knob":
            ops[parts[1]][0] = parts[3]
        elif parts[2] == "algorithm":
            algorithms.append(parts[3])
    return ops


def passes(ctx, r, program, procs, what):
    name = os.path.basename(program)
    expect_code(r, 0)
    check(f"{name}: ok ({procs} processes)" in r.stdout, f"{name} with {what}", r)
    expect_nobody_left(ctx)


def calls_of(r, op, algorithm):
    """How many calls of `op` chose `algorithm`, over every rank (STRATA_STATS=1)."""
    total = 0
    for m in re.finditer(rf"^strata: rank \d+: collectives: {op}: ([^;\n]*)", r.stderr, re.M):
        for item in m[1].split(", "):
            name, _, count = item.rpartition(" ")
            if name == algorithm:
                total += int(count)
    return total


def matrix(ctx, a, grid):
    by_name = {os.path.basename(p): os.path.abspath(p) for p in a.programs}
    ops = registries(a.info)
    check(sorted(ops) == sorted(PROGRAMS), f"every operation has its programs: {sorted(ops)}")
    plogp = ctx.file("plogp.txt", PLOGP + PLOGP_SITES)
    for op, (knob, algorithms) in sorted(ops.items()):
        for algorithm in algorithms:
            on_grid = algorithm in GRID_ALGORITHMS or algorithm in MODELLED_ALGORITHMS
            if on_grid != grid:
                continue
            what = f"{knob}={algorithm}"
            ran = 0
            for program in (by_name[n] for n in PROGRAMS[op]):
                if grid:
                    env = f"{knob}: {algorithm}, STRATA_STATS: '1'"
                    if algorithm in MODELLED_ALGORITHMS:
                        env += f", STRATA_PLOGP: {plogp}"
                    text = f"executable: {program}\narguments: [{ctx.marker}]\nenvironment: {{{env}}}\n" + GRID
                    r = ctx.run(["-jobfile", ctx.file("job.yaml", text)])
                    passes(ctx, r, program, PROCESSES, what)
                    ran += calls_of(r, op, algorithm)
                    continue
                for procs in FLAT_PROCESSES:
                    r = ctx.run(["-np", str(procs), program, ctx.marker], env_extra={knob: algorithm, "STRATA_STATS": "1"})
                    passes(ctx, r, program, procs, what)
                    ran += calls_of(r, op, algorithm)
            # Calls it does not fit fall back to the rules (STRATA_STATS says
            # how many); an algorithm that never ran was not tested at all.
            check(ran > 0, f"{what} ran in none of {', '.join(PROGRAMS[op])}: every call fell back to the rules")


def choices(ctx, a):
    """STRATA_STATS=1: every rank counts the algorithm each of its calls
    chose, and the calls whose forced algorithm did not fit (the rules chose
    instead), so a fallback is never silent."""
    by_name = {os.path.basename(p): os.path.abspath(p) for p in a.programs}
    r = ctx.run(["-np", "3", by_name["coll_bcast"], ctx.marker],
                env_extra={"STRATA_STATS": "1", "STRATA_BCAST_ALGORITHM": "binomial"})
    passes(ctx, r, by_name["coll_bcast"], 3, "STRATA_BCAST_ALGORITHM=binomial")
    for rank in range(3):
        expect_stderr(r, rf"^strata: rank {rank}: collectives: bcast: binomial [1-9]\d*$")
    # The segmented broadcast needs a wide-area model, which one host lacks.
    r = ctx.run(["-np", "3", by_name["coll_bcast"], ctx.marker],
                env_extra={"STRATA_STATS": "1", "STRATA_BCAST_ALGORITHM": "segmented"})
    passes(ctx, r, by_name["coll_bcast"], 3, "STRATA_BCAST_ALGORITHM=segmented")
    expect_stderr(r, r"^strata: rank 0: collectives: bcast: (?:(?!segmented)[a-z_]+ \d+(?:, )?)+; "
                     r"STRATA_BCAST_ALGORITHM=segmented did not fit [1-9]\d* call\(s\)$")


if __name__ == "__main__":
    sys.exit(program_main({"flat": lambda ctx, a: matrix(ctx, a, False), "grid": lambda ctx, a: matrix(ctx, a, True),
                           "choices": choices},
                          ["programs", "info"], many=("programs",)))
