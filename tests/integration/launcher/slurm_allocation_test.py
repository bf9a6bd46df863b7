#!/usr/bin/env python3
"""mpirun inside a Slurm allocation (salloc), as MPICH's Hydra and Open MPI run there: without a
machine file the ranks start with srun on the allocation's nodes, one subjob per node, -np
defaulting to the allocation's task count. The nodes are n1..n3 of a private Slurm whose three
slurmd run on this machine (start_slurm.sh with STRATA_TEST_SLURM_NODES=3).

    slurm_allocation_test.py SCENARIO [the options of gatekeeper_test.py]

Timeouts are only hang guards: no verdict depends on timing.
"""

import os
import subprocess
import sys
import time

from strata_test.grid import Slurm, fake_args, finish, grid_main
from strata_test.harness import GUARD, check, expect_code, expect_nobody_left, expect_stderr


def salloc(grid, slurm, alloc, args):
    """`salloc ALLOC mpirun ARGS`: the Popen args and environment."""
    env = dict(os.environ)
    env.update(grid.env())
    env.update(slurm.env)
    env.pop("SLURM_JOB_ID", None)
    # As when mpirun runs in the user's ssh login: srun passes this on to the nodes, where it
    # names the user's desk, not mpirun (192.0.2.0/24: TEST-NET-1, nobody there).
    env["SSH_CONNECTION"] = "192.0.2.99 50000 192.0.2.1 22"
    return ["salloc", "--quiet", *alloc, grid.ctx.mpirun, *args], env


def run(grid, slurm, alloc, args):
    argv, env = salloc(grid, slurm, alloc, args)
    return subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True, env=env,
                          timeout=GUARD * 2)


def steps(slurm):
    r = subprocess.run(["squeue", "-h", "-s", "-o", "%i"], capture_output=True, text=True, timeout=GUARD,
                       env={**os.environ, **slurm.env})
    return [s for s in r.stdout.split() if not s.endswith(".extern")]


def expect_nothing_left(grid, slurm):
    deadline = time.monotonic() + 60
    while (grid.ctx.leftovers() or slurm.jobs()) and time.monotonic() < deadline:
        time.sleep(0.1)
    expect_nobody_left(grid.ctx)
    slurm.expect_no_jobs()


def with_slurm(scenario):
    def wrapped(grid):
        slurm = Slurm(grid, nodes=3)
        try:
            scenario(grid, slurm)
        finally:
            grid.stop()
            slurm.stop()

    wrapped.__name__, wrapped.__doc__ = scenario.__name__, scenario.__doc__
    return wrapped


@with_slurm
def allocation(grid, slurm):
    """salloc -N3 -n5 mpirun ring: 2 + 2 + 1 ranks by the allocation's tasks per node, shared
    memory within a node and TCP between nodes, every node a machine of the cluster's site; -np
    overrides the count (cycling), -launcher fork keeps every rank here."""
    ctx = grid.ctx
    r = run(grid, slurm, ["-N3", "-n5"], ["-v", "-l", grid.ring])
    expect_code(r, 0)
    check("1 MB message passed around 5 ranks intact" in r.stdout, "the ring's own check", r)
    for rank, methods in ((0, "shm: 1; tcp: 2-4"), (2, "shm: 3; tcp: 0-1,4"), (4, "tcp: 0-3")):
        expect_stderr(r, rf"^\[{rank}\] strata: rank {rank}: methods: self: {rank}; {methods}$")
    expect_stderr(r, r"^mpirun: starting subjob 2: ranks 4\.\.4 on n3 via the gatekeeper adapter$")
    # Each node's gatekeeper knows it came by srun and where mpirun is, whatever SSH_CONNECTION says.
    expect_stderr(r, r"^mpirun: n3: .* strata-gatekeeper: \[1 srun from [0-9.]+ '[^']+'\] srun step as '[^']+'$")
    labels = fake_args(ctx, "init", "print-labels:site", "print-labels:machine", "print-env:SLURM_STEP_NODELIST",
                       "finalize")
    r = run(grid, slurm, ["-N3", "-n5"], ["-l", "-np", "7", grid.fake_rank, *labels])
    expect_code(r, 0)
    check("[0] site: strata-test strata-test strata-test strata-test strata-test strata-test strata-test" in r.stdout,
          "one site, the cluster", r)
    check("[0] machine: n1 n1 n2 n2 n3 n1 n1" in r.stdout, "the nodes are the machines, cycling past 5 tasks", r)
    check("[4] SLURM_STEP_NODELIST=n3" in r.stdout, "rank 4 runs in a step on n3", r)
    r = run(grid, slurm, ["-N3", "-n5"], ["-l", "-launcher", "fork", grid.fake_rank, *labels])
    expect_code(r, 0)
    check("[0] machine: " + " ".join([r.stdout.split("[0] machine: ")[1].split()[0]] * 5) in r.stdout,
          "-launcher fork: every rank on this machine", r)
    expect_nothing_left(grid, slurm)


@with_slurm
def interrupted(grid, slurm):
    """Ctrl-C to mpirun inside the allocation: every node's ranks end, mpirun exits 130, and no
    process, job step or job is left."""
    ctx = grid.ctx
    argv, env = salloc(grid, slurm, ["-N3", "-n3"], [grid.fake_rank, *fake_args(ctx, "init", "print:ready {rank}",
                                                                                  "sleep")])
    p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=env)
    try:
        for _ in range(3):
            if p.stdout.readline() == "":
                check(False, "mpirun ended before every rank was ready:\n" + p.stderr.read())
        check(len(steps(slurm)) == 3, f"one job step per node: {steps(slurm)}")
        mpirun = [q for q in ctx.leftovers() if open(f"/proc/{q}/cmdline", "rb").read().startswith(
            ctx.mpirun.encode())]
        check(len(mpirun) == 1, "mpirun found")
        os.kill(mpirun[0], 2)
    except BaseException:
        p.kill()
        p.wait()
        raise
    r = finish(p)
    expect_stderr(r, r"^mpirun: interrupted by signal 2 \(Interrupt\); ending the job")
    expect_nothing_left(grid, slurm)


def outside(grid):
    """-launcher srun without an allocation is refused, naming why."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLURM_")}
    r = subprocess.run([grid.ctx.mpirun, "-launcher", "srun", "-np", "2", grid.fake_rank], capture_output=True,
                       text=True, env=env, timeout=GUARD)
    expect_code(r, 2)
    expect_stderr(r, r"^mpirun: -launcher srun starts ranks on the nodes of a Slurm allocation, and SLURM_JOB_ID is "
                     r"not set \(run mpirun inside salloc or sbatch\)$")


SCENARIOS = {f.__name__: f for f in (allocation, interrupted, outside)}

if __name__ == "__main__":
    sys.exit(grid_main(SCENARIOS))
