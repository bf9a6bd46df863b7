#!/usr/bin/env python3
"""Quality of service between sites (MPIX_QOS) through the real mpirun: the
attribute's reads and refusals, the premium capacity of emulated links and
its release, and MPI's order and data while the attribute switches a
communicator's traffic between connections, with and without emulation
(qos.c; qos.f from Fortran). Every verdict is the program's own check of
what MPI returned, never a time.

    qos_test.py SCENARIO --mpirun PATH --program PATH --fortran PATH
"""

import re
import sys

from strata_test.harness import check, expect_code, expect_nobody_left, program_main

WAN_100 = "wan:latency_ms=1,bandwidth_mbit=100"  # a premium capacity of 50 per ordered pair of sites


def job(ctx, program, args, ranks, network="", emulation=None):
    """A job of `ranks` processes alternating between sites A and B, each its
    own host (so TCP carries everything between sites), every process
    reporting its lanes at MPI_Finalize (STRATA_STATS=1); `network`: the job
    file's network section, `emulation`: a STRATA_EMULATION text instead."""
    arguments = ", ".join(f'"{x}"' for x in (*args, ctx.marker))
    environment = "environment: {STRATA_STATS: '1'" + (f", STRATA_EMULATION: '{emulation}'" if emulation else "") \
        + "}\n"
    subjobs = "".join(f"  - {{count: 1, site: {'AB'[r % 2]}, host: h{r}}}\n" for r in range(ranks))
    return ctx.file("job.yaml", f"executable: {program}\narguments: [{arguments}]\n{environment}{network}"
                                f"subjobs:\n{subjobs}")


def run_ok(ctx, a, mode, ranks, network="", emulation=None, extra=()):
    r = ctx.run(["-jobfile", job(ctx, a.program, (mode, *extra), ranks, network, emulation)])
    expect_code(r, 0)
    check(f"qos: ok ({ranks} processes)" in r.stdout, f"the program checked itself ({mode})", r)
    return r


def lanes(r):
    """rank -> (packets sent on premium lanes, lane changes), as the TCP
    method reported them at MPI_Finalize."""
    found = {}
    for m in re.finditer(r"^strata: rank (\d+): tcp: .*premium lanes: (\d+) packets sent, (\d+) lane changes", r.stderr,
                         re.M):
        found[int(m[1])] = (int(m[2]), int(m[3]))
    return found


def expect_lanes(r, ranks, changes):
    """Every rank sent on its premium lanes and moved between lanes at least
    `changes` times (the traffic mode sets and deletes the attribute 3 times)."""
    got = lanes(r)
    check(sorted(got) == list(range(ranks)), f"every rank reports its premium lanes: {got}", r)
    for rank, (sent, moves) in got.items():
        check(sent > 0 and moves >= changes, f"rank {rank} sent {sent} packets on premium lanes, {moves} changes", r)


def set_get(ctx, a):
    """Reads before any set, premium 20 and its replacement, delete, best
    effort, the MPI_ERR_ARG cases with MPI_ERRORS_RETURN, an
    intercommunicator between the sites."""
    run_ok(ctx, a, "setget", 2, emulation=WAN_100)
    expect_nobody_left(ctx)


def set_get_four(ctx, a):
    """The same with two processes per site, without emulation."""
    run_ok(ctx, a, "setget", 4)
    expect_nobody_left(ctx)


def refuse(ctx, a):
    """On 100 Mbit/s links (capacity 50): 40, then 20 on another
    communicator of the same sender refused with MPIX_ERR_QOS through the
    communicator's error handler, the first kept; the capacity shared by a
    site's processes, each direction its own; released by MPI_Comm_free and
    by deleting the attribute."""
    run_ok(ctx, a, "refuse", 4, emulation=WAN_100)
    expect_nobody_left(ctx)


def capacity_80(ctx, a):
    """premium_mbit=80, in the emulation text and in the job file: a second
    40 is admitted, then nothing more."""
    run_ok(ctx, a, "capacity80", 4, emulation=WAN_100 + ",premium_mbit=80")
    run_ok(ctx, a, "capacity80", 4,
           network="network:\n  wan: {latency_ms: 1, bandwidth_mbit: 100, premium_mbit: 80}\n")
    expect_nobody_left(ctx)


def unlimited(ctx, a):
    """Without a bandwidth a link has no premium limit: without emulation,
    and with an emulated latency alone."""
    run_ok(ctx, a, "unlimited", 2)
    run_ok(ctx, a, "unlimited", 2, emulation="wan:latency_ms=1")
    expect_nobody_left(ctx)


def reserved_idle(ctx, a):
    """A reservation at one site on a communicator that never carries a
    message, kept to MPI_Finalize (and, with 4 processes, freed before it by
    the other process of that site): the job ends, with and without
    emulation."""
    for emulation, ranks in ((WAN_100, 2), (None, 2), (WAN_100, 4)):
        r = ctx.run(["-jobfile", job(ctx, a.program, ("idle",), ranks, emulation=emulation)], guard=30)
        expect_code(r, 0)
        check(f"qos: ok ({ranks} processes)" in r.stdout, "the program checked itself (idle)", r)
    expect_nobody_left(ctx)


def traffic_emulated(ctx, a):
    """Messages of 0 B to 1 MiB sent before the set, while premium and after
    the delete, all in flight together, arrive in order and intact while
    bulk traffic crosses the same emulated link; broadcasts and allreduces
    on the premium communicator. Two processes per site, 500 Mbit/s each of
    a capacity of 2000; every process sent on its premium lanes."""
    r = run_ok(ctx, a, "traffic", 4, emulation="wan:latency_ms=1,bandwidth_mbit=4000", extra=("500",))
    expect_lanes(r, 4, 6)
    expect_nobody_left(ctx)


def traffic_plain(ctx, a):
    """The same without emulation: the premium traffic still takes a
    connection of its own (the lanes' counts prove it), and the order holds
    across the switch."""
    expect_lanes(run_ok(ctx, a, "traffic", 4, extra=("500",)), 4, 6)
    expect_lanes(run_ok(ctx, a, "traffic", 2, extra=("1",)), 2, 6)
    expect_nobody_left(ctx)


def emulation_errors(ctx, a):
    """A bad premium_mbit stops mpirun before anything starts: negative, not
    a number, or all of the bandwidth (bulk traffic keeps some)."""
    for text in ("wan:latency_ms=1,premium_mbit=-5", WAN_100 + ",premium_mbit=100"):
        r = ctx.run(["-jobfile", job(ctx, a.program, ("unlimited",), 2, emulation=text)])
        check(r.returncode != 0 and "premium_mbit" in r.stderr and "qos: ok" not in r.stdout,
              f"{text} is refused, naming premium_mbit", r)
    r = ctx.run(["-jobfile", job(ctx, a.program, ("unlimited",), 2,
                                 network="network:\n  wan: {latency_ms: 1, premium_mbit: x}\n")])
    check(r.returncode != 0 and "premium_mbit" in r.stderr, "a premium_mbit that is no number is refused, named", r)
    expect_nobody_left(ctx)


def fortran(ctx, a):
    """MPI_ATTR_PUT / MPI_ATTR_GET / MPI_ATTR_DELETE of MPIX_QOS with an
    INTEGER rate, and a message each way while premium."""
    r = ctx.run(["-jobfile", job(ctx, a.fortran, (), 2, emulation=WAN_100)])
    expect_code(r, 0)
    check("qos_fortran: ok" in r.stdout, "the Fortran program checked itself", r)
    expect_nobody_left(ctx)


SCENARIOS = {f.__name__: f for f in (set_get, set_get_four, refuse, capacity_80, unlimited, reserved_idle,
                                     traffic_emulated, traffic_plain, emulation_errors, fortran)}


if __name__ == "__main__":
    sys.exit(program_main(SCENARIOS, ["program", "fortran"]))
