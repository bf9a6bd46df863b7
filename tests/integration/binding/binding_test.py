#!/usr/bin/env python3
"""Rank binding through the real mpirun: each rank prints the CPUs it may run
on after MPI_Init (sched_getaffinity), which must be one distinct allowed core
each when the ranks are bound, and the whole allowed set when they are not.

    binding_test.py SCENARIO --mpirun PATH --program PATH

Scenarios that need two allowed CPUs exit 77 (skipped) on a machine with one.
"""

import os
import re
import shutil
import sys

from strata_test.harness import check, expect_code, expect_nobody_left, program_main

SKIP = 77


def allowed():
    return sorted(os.sched_getaffinity(0))


def need_cpus(n):
    if len(allowed()) < n:
        print(f"SKIP: needs {n} allowed CPUs, this process may use {allowed()}")
        sys.exit(SKIP)


def cpus_by_rank(r, np):
    rows = {int(m[1]): [int(c) for c in m[2].split(",")]
            for m in (re.match(r"^rank (\d+): cpus ([\d,]+);", line) for line in r.stdout.splitlines()) if m}
    check(sorted(rows) == list(range(np)), f"every rank printed its CPUs", r)
    return rows


def bindings(r):
    """What mpirun -v shows: rank -> its binding line."""
    return {int(m[1]): m[2] for m in (re.match(r"^strata: rank (\d+): ((?:not )?bound.*)$", line)
                                      for line in r.stderr.splitlines()) if m}


def expect_bound(r, np):
    rows = cpus_by_rank(r, np)
    for rank, cpus in rows.items():
        check(len(cpus) == 1 and cpus[0] in allowed(), f"rank {rank} bound to one allowed CPU, got {cpus}", r)
    check(len({cpus[0] for cpus in rows.values()}) == np, f"the ranks are bound to distinct CPUs: {rows}", r)
    return rows


def expect_unbound(r, np, cpus=None):
    want = cpus or allowed()
    rows = cpus_by_rank(r, np)
    check(all(c == want for c in rows.values()), f"every rank may use {want} (not bound): {rows}", r)


def core_two(ctx, a):
    """-bind-to core, 2 ranks: each on its own core, and -v says which."""
    need_cpus(2)
    r = ctx.run(["-v", "-bind-to", "core", "-np", "2", a.program])
    expect_code(r, 0)
    rows = expect_bound(r, 2)
    shown = bindings(r)
    for rank in range(2):
        check(re.fullmatch(rf"bound to core \d+ \(PU {rows[rank][0]}\)", shown.get(rank, "")),
              f"mpirun -v shows rank {rank}'s binding: {shown}", r)
    expect_nobody_left(ctx)


def core_two_long_spelling(ctx, a):
    """--bind-to, as Open MPI and Hydra spell it."""
    need_cpus(2)
    r = ctx.run(["--bind-to", "core", "-np", "2", a.program])
    expect_code(r, 0)
    expect_bound(r, 2)


def none(ctx, a):
    """-bind-to none: the affinity is what mpirun had."""
    r = ctx.run(["-v", "-bind-to", "none", "-np", "2", a.program])
    expect_code(r, 0)
    expect_unbound(r, 2)
    check(bindings(r) == {0: "not bound: bind-to none", 1: "not bound: bind-to none"},
          f"mpirun -v says the ranks are not bound: {bindings(r)}", r)


def default_fits(ctx, a):
    """No option, 2 ranks that fit the cores: bound to cores."""
    need_cpus(2)
    r = ctx.run(["-np", "2", a.program])
    expect_code(r, 0)
    expect_bound(r, 2)


def default_oversubscribed(ctx, a):
    """No option, more ranks than cores: nobody is bound; -v says why. The same
    with -bind-to core."""
    np = len(allowed()) + 1
    for extra in ([], ["-bind-to", "core"]):
        r = ctx.run(["-v", *extra, "-np", str(np), a.program])
        expect_code(r, 0)
        expect_unbound(r, np)
        # More ranks than even the CPUs of the affinity: the rank never reads the
        # machine's cores, and says so in CPUs.
        want = f"not bound: {np} ranks on {len(allowed())} allowed CPU" + ("s" if len(allowed()) > 1 else "")
        check(bindings(r) == {k: want for k in range(np)}, f"mpirun -v says '{want}': {bindings(r)}", r)
    expect_nobody_left(ctx)


def restricted(ctx, a):
    """mpirun under taskset to the last allowed CPU: one rank binds there (only
    allowed PUs are chosen); two ranks do not fit one allowed core."""
    taskset = shutil.which("taskset")
    if taskset is None:
        print("SKIP: needs taskset")
        sys.exit(SKIP)
    need_cpus(2)
    last = allowed()[-1]
    r = ctx.run(["-c", str(last), ctx.mpirun, "-bind-to", "core", "-np", "1", a.program], tool=taskset)
    expect_code(r, 0)
    check(cpus_by_rank(r, 1)[0] == [last], f"the rank is bound to CPU {last}", r)
    r = ctx.run(["-c", str(last), ctx.mpirun, "-np", "2", a.program], tool=taskset)
    expect_code(r, 0)
    expect_unbound(r, 2, [last])


def bad_value(ctx, a):
    """A bad value is refused, naming the allowed ones: on the command line,
    -bind-to or -x STRATA_BIND_TO (nothing starts), and in an inherited
    STRATA_BIND_TO (MPI_Init fails)."""
    r = ctx.run(["-bind-to", "cores", "-np", "2", a.program])
    expect_code(r, 2)
    check("mpirun: option -bind-to expects core, socket or none, not 'cores'" in r.stderr, "the reason", r)
    check("rank 0: cpus" not in r.stdout, "nothing started", r)
    r = ctx.run(["-x", "STRATA_BIND_TO=l3cache", "-np", "2", a.program])
    expect_code(r, 2)
    check("mpirun: STRATA_BIND_TO='l3cache': expected core, socket or none" in r.stderr,
          "the reason, in the library's words", r)
    check("rank 0: cpus" not in r.stdout, "nothing started", r)
    r = ctx.run(["-np", "2", a.program], env_extra={"STRATA_BIND_TO": "l3cache"})
    check(r.returncode != 0, "a bad STRATA_BIND_TO ends the job", r)
    check("STRATA_BIND_TO='l3cache': expected core, socket or none" in r.stderr, "the reason", r)
    expect_nobody_left(ctx)


def job_file(ctx, a):
    """bind_to in a job file, at the top level and per subjob; a bad value names
    file, line and column."""
    need_cpus(2)
    path = ctx.file("job.yaml", f"executable: {a.program}\nbind_to: none\nsubjobs:\n  - {{count: 2}}\n")
    r = ctx.run(["-jobfile", path])
    expect_code(r, 0)
    expect_unbound(r, 2)
    path = ctx.file("job.yaml", f"executable: {a.program}\nbind_to: none\nsubjobs:\n"
                                "  - {count: 1, bind_to: core}\n  - {count: 1, bind_to: core}\n")
    r = ctx.run(["-jobfile", path])
    expect_code(r, 0)
    expect_bound(r, 2)
    # The command line wins over the file.
    r = ctx.run(["-bind-to", "core", "-jobfile", ctx.file("none.yaml", f"executable: {a.program}\nbind_to: none\n"
                                                                        "subjobs: [{count: 2}]\n")])
    expect_code(r, 0)
    expect_bound(r, 2)
    path = ctx.file("bad.yaml", f"executable: {a.program}\nsubjobs:\n  - {{count: 2, bind_to: numa}}\n")
    r = ctx.run(["-jobfile", path])
    expect_code(r, 1)
    check(f"{path}:3:25: subjob 0: 'bind_to' must be core, socket or none, not 'numa'" in r.stderr, "the reason", r)


def topology_packages(ctx, a):
    """With STRATA_TOPOLOGY_HWLOC=1 the package level comes from the binding:
    hwloc is shown a synthetic machine of two single-core packages (its
    HWLOC_SYNTHETIC), so two ranks bound by -bind-to socket sit in different
    packages; unbound, each would span both and have no package level."""
    if not {0, 1} <= set(allowed()):
        print("SKIP: needs CPUs 0 and 1")
        sys.exit(SKIP)
    env = ["-x", "STRATA_TOPOLOGY_HWLOC=1", "-x", "HWLOC_SYNTHETIC=package:2 core:1 pu:1", "-x", "HWLOC_THISSYSTEM=1"]
    r = ctx.run(["-v", *env, "-bind-to", "socket", "-np", "2", a.program])
    expect_code(r, 0)
    check(bindings(r) == {0: "bound to package 0 (PU 0)", 1: "bound to package 1 (PU 1)"},
          f"mpirun -v shows the bindings: {bindings(r)}", r)
    rows = {int(m[1]): m[2] for m in (re.match(r"^rank (\d+): cpus [\d,]+; depth (.*)$", line)
                                      for line in r.stdout.splitlines()) if m}
    want = {0: "6 colours 0 0 0 0 0 0", 1: "6 colours 0 0 0 0 1 1"}
    check(rows == want, f"depths and colours {rows}, want {want}", r)
    r = ctx.run([*env, "-bind-to", "none", "-np", "2", a.program])
    expect_code(r, 0)
    rows = {int(m[1]): m[2] for m in (re.match(r"^rank (\d+): cpus [\d,]+; depth (\d+)", line)
                                      for line in r.stdout.splitlines()) if m}
    check(rows == {0: "4", 1: "4"}, f"unbound ranks have no package level: {rows}", r)


SCENARIOS = {f.__name__: f for f in (core_two, core_two_long_spelling, none, default_fits, default_oversubscribed,
                                     restricted, bad_value, job_file, topology_packages)}

if __name__ == "__main__":
    sys.exit(program_main(SCENARIOS, ["program"]))
