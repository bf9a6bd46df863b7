#!/usr/bin/env python3
"""The collective conformance programs across emulated sites: the multilevel
algorithms (the default wherever a communicator spans clusters), MagPIe's two
two-level schemes forced, and the per-level message counts.

    grid_test.py SCENARIO --mpirun PATH --programs PROGRAM...

The grid (strata_test.coll_grid) is uneven on purpose.
"""

import os
import sys

from strata_test.coll_grid import (GRID, OFI_MISSING, PLOGP, PLOGP_SITE, PLOGP_SITES, PROCESSES, SEED000_GRID,
                                   SEED000_PROCESSES, SITE_GRID, SITE_PROCESSES)
from strata_test.harness import check, expect_code, expect_nobody_left, expect_stderr, program_main

OPERATIONS = ("barrier", "bcast", "gather", "gatherv", "scatter", "scatterv", "allgather", "allgatherv",
              "alltoall", "alltoallv", "reduce", "allreduce", "reduce_scatter", "scan")


def run_on_grid(ctx, program, environment=None, grid=GRID, processes=PROCESSES):
    text = f"executable: {program}\narguments: [{ctx.marker}]\n"
    if environment:
        text += "environment: {" + ", ".join(f"{k}: {v}" for k, v in environment.items()) + "}\n"
    r = ctx.run(["-jobfile", ctx.file("job.yaml", text + grid)])
    name = os.path.basename(program)
    if grid == SEED000_GRID and r.returncode != 0 and OFI_MISSING in r.stderr:
        print(f"SKIP: the ofi method is not built or has no tcp provider here:\n{r.stderr[-2000:]}")
        sys.exit(77)
    expect_code(r, 0)
    check(f"{name}: ok ({processes} processes)" in r.stdout, f"{name} checked itself on the grid", r)
    expect_nobody_left(ctx)


def programs(a, *names):
    by_name = {os.path.basename(p): os.path.abspath(p) for p in a.programs}
    return [by_name[n] for n in names] if names else list(by_name.values())


def conformance(ctx, a):
    """Every conformance program passes on the grid with the default choices."""
    for program in programs(a):
        run_on_grid(ctx, program)


def two_level(ctx, a):
    """MagPIe's schemes, clusters by site and by machine, forced for every
    operation that has them (the others keep their default)."""
    for shape in ("two_level_site", "two_level_machine"):
        forced = {f"STRATA_{op.upper()}_ALGORITHM": shape for op in OPERATIONS}
        for program in programs(a, "coll_levels", "coll_bcast", "coll_reduce_user", "coll_allgather"):
            run_on_grid(ctx, program, forced)


def traffic(ctx, a):
    """Each slow link is crossed once per direction (the program counts)."""
    run_on_grid(ctx, programs(a, "coll_traffic")[0])


def seed000(ctx, a):
    """On seed 000's grid (a vendor level across the LLNL SP's nodes, a node
    level below it) the multilevel collectives give the right results and
    cross each slow link once."""
    for program in programs(a, "coll_traffic", "coll_levels"):
        run_on_grid(ctx, program, grid=SEED000_GRID, processes=SEED000_PROCESSES)


def plogp_local_area(ctx, a):
    """With parameters for a site's own links, the multilevel broadcast's
    stage between the machines of the site is segmented down the model's tree
    (coll_segmented counts the messages between machines); every result
    stays right, the reductions' too."""
    params = ctx.file("plogp-site.txt", PLOGP_SITE)
    for program in programs(a, "coll_segmented", "coll_bcast"):
        run_on_grid(ctx, program, {"STRATA_PLOGP": params, "COLL_SEGMENTED_MACHINES": 1}, grid=SITE_GRID,
                    processes=SITE_PROCESSES)


def rules_file(ctx, a):
    """STRATA_COLL_RULES replaces the rules of the operations it names (here
    flat algorithms for bcast and allreduce on the grid, which the program's
    results cannot tell from multilevel ones, and the traffic program can); an
    empty file changes nothing; a malformed file stops MPI_Init with the file,
    the line and what is wrong."""
    rules = ctx.file("rules.txt", "# flat on the grid\nbcast binomial\nallreduce recursive_doubling\n")
    run_on_grid(ctx, programs(a, "coll_levels")[0], {"STRATA_COLL_RULES": rules})
    text = f"executable: {programs(a, 'coll_traffic')[0]}\narguments: [{ctx.marker}]\n"
    text += f"environment: {{STRATA_COLL_RULES: {rules}}}\n"
    r = ctx.run(["-jobfile", ctx.file("job.yaml", text + GRID)])
    check(r.returncode != 0 and "bcast (root 0): 3 wide-area" in r.stdout + r.stderr,
          "with flat broadcasts the traffic program sees more wide-area messages", r)
    expect_nobody_left(ctx)
    empty = ctx.file("empty.txt", "")
    r = ctx.run(["-np", "2", programs(a, "coll_levels")[0], ctx.marker], env_extra={"STRATA_COLL_RULES": empty})
    expect_code(r, 0)
    bad = ctx.file("bad.txt", "bcast binomial\nbcast ring\n")
    r = ctx.run(["-np", "2", programs(a, "coll_levels")[0], ctx.marker], env_extra={"STRATA_COLL_RULES": bad})
    check(r.returncode != 0 and f"MPI_Init failed: {bad}:2: 'ring' is no algorithm of bcast" in r.stderr,
          "a malformed rules file stops MPI_Init, naming the file and the line", r)
    expect_nobody_left(ctx)




def plogp(ctx, a):
    """STRATA_PLOGP: with parameters between the sites, the wide-area stage
    of broadcasts and commutative reductions is segmented (coll_segmented sees
    it); with parameters inside the sites too, they run on MagPIe's two-layer
    trees over the whole grid, segments pipelined through the sites'
    coordinators (coll_segmented sees segments inside the sites). Measured in
    MPI_Init (STRATA_PLOGP=measure), the parameters cover every link. Every
    result stays right. A file that is missing, malformed or lacks a pair of the job's
    sites stops MPI_Init naming it."""
    params = ctx.file("plogp.txt", PLOGP)
    layered = ctx.file("plogp-layered.txt", PLOGP + PLOGP_SITES)
    for program in programs(a, "coll_segmented", "coll_bcast", "coll_levels", "coll_reduce_ops", "coll_reduce_user"):
        run_on_grid(ctx, program, {"STRATA_PLOGP": params, "COLL_SEGMENTED_SEGMENTS": 1})
        run_on_grid(ctx, program, {"STRATA_PLOGP": layered, "COLL_SEGMENTED_SEGMENTS": 1,
                                   "COLL_SEGMENTED_LAYERED": 1})
    # Measured in MPI_Init: the links between the sites and inside B and C
    # (rank 0 shows them with STRATA_VERBOSE); the results stay right whatever
    # the model chooses on these fast links.
    text = f"executable: {programs(a, 'coll_segmented')[0]}\narguments: [{ctx.marker}]\n"
    text += "environment: {STRATA_PLOGP: measure, STRATA_VERBOSE: 1}\n"
    r = ctx.run(["-jobfile", ctx.file("job.yaml", text + GRID)])
    expect_code(r, 0)
    for line in ("measured P-LogP parameters", "link A B latency", "link B C g", "link B B latency",
                 "link C C eager"):
        check(line in r.stderr, f"STRATA_PLOGP=measure: rank 0 shows '{line}'", r)
    check(f"coll_segmented: ok ({PROCESSES} processes)" in r.stdout, "coll_segmented checked itself", r)
    expect_nobody_left(ctx)
    # A site label the parameter text cannot hold, at a site whose first
    # process is not rank 0: every process refuses it before measuring (rank
    # 0 used to fail alone, reading rank 1's text).
    text = f"executable: {programs(a, 'coll_segmented')[0]}\narguments: [{ctx.marker}]\n"
    text += "environment: {STRATA_PLOGP: measure}\nsubjobs:\n  - {count: 1, site: X}\n"
    text += "  - {count: 1, site: 'A B'}\n  - {count: 1, site: C}\n"
    r = ctx.run(["-jobfile", ctx.file("job.yaml", text)])
    expect_stderr(r, r"^strata: rank \d: MPI_Init failed: STRATA_PLOGP=measure: the site label 'A B' cannot be "
                     r"written in a parameter file: it must be one word without '#'$")
    check(r.returncode != 0 and "is not latency" not in r.stderr, "a site label of two words stops the measurement", r)
    expect_nobody_left(ctx)
    missing = os.path.join(os.path.dirname(params), "no-such-plogp.txt")
    partial = ctx.file("partial.txt", "\n".join(PLOGP.splitlines()[:5]) + "\n")
    for path, want in ((missing, f"STRATA_PLOGP: cannot read the parameter file '{missing}': No such file or directory"),
                       (ctx.file("bad.txt", "sizes 0\nlink A B latency fast\n"),
                        "bad.txt:2: 'fast' is not a time in microseconds"),
                       (partial, f"STRATA_PLOGP: {partial}: no parameters for the link between sites A and C")):
        text = f"executable: {programs(a, 'coll_segmented')[0]}\narguments: [{ctx.marker}]\n"
        text += f"environment: {{STRATA_PLOGP: {path}}}\n"
        r = ctx.run(["-jobfile", ctx.file("job.yaml", text + GRID)])
        check(r.returncode != 0 and want in r.stderr, f"a bad parameter file stops MPI_Init: {want}", r)
        expect_nobody_left(ctx)


if __name__ == "__main__":
    sys.exit(program_main({"conformance": conformance, "two_level": two_level, "traffic": traffic, "seed000": seed000,
                           "plogp_local_area": plogp_local_area,
                           "rules_file": rules_file, "plogp": plogp},
                          ["programs"], many=("programs",)))
