#!/usr/bin/env python3
"""Parallel TCP streams between sites (devices/tcp/stripes.hpp) through the
real mpirun: parallel_streams checks every byte and MPI's order, and with
STRATA_STATS=1 every rank prints the connections of its links, which proves
that the streams were opened and used (never timing).

    streams_test.py SCENARIO --mpirun PATH --program PATH
"""

import re
import sys

from strata_test.harness import check, expect_code, expect_nobody_left, program_main


def job(ctx, a, streams, mode="plain", extra_args=(), ranks=2, network="", environment="", security=""):
    """A job of `ranks` processes alternating between sites A and B, each its
    own host (so TCP carries everything), with `streams` per link between
    the sites from the job file."""
    args = ", ".join(f'"{x}"' for x in (str(streams), mode, *extra_args, ctx.marker))
    subjobs = "".join(f"  - {{count: 1, site: {'AB'[r % 2]}, host: h{r}}}\n" for r in range(ranks))
    text = (f"executable: {a.program}\narguments: [{args}]\n"
            f"environment: {{STRATA_STATS: \"1\"{environment}}}\n"
            f"network:\n  streams: {streams}\n{network}{security}subjobs:\n{subjobs}")
    return ctx.file("job.yaml", text)


def run_ok(ctx, path, ranks=2):
    r = ctx.run(["-jobfile", path])
    expect_code(r, 0)
    check(f"parallel_streams: ok ({ranks} processes)" in r.stdout, f"the program checked itself:\n{r.stdout}\n{r.stderr}")
    return r


def streams_lines(r):
    """rank -> what its TCP method reported about its streams."""
    return {int(m[1]): m[2] for m in re.finditer(r"^strata: rank (\d+): tcp: streams: (.*)$", r.stderr, re.M)}


def connections_to(r, rank, peer):
    """How many connections `rank` opened to send to `peer` (1: no extra one)."""
    m = re.search(rf"\bto rank {peer}: (\d+) connections", streams_lines(r).get(rank, ""))
    return int(m[1]) if m else 1


def expect_streams(r, ranks, n, stripes_at_least=1):
    """Every rank has n connections to and from each rank at the other site,
    none to its own site, and sent and received stripes."""
    lines = streams_lines(r)
    if n == 1:
        check(lines == {}, f"one stream: no extra connection, no stripe:\n{r.stderr}")
        return
    check(sorted(lines) == list(range(ranks)), f"every rank reports its streams:\n{r.stderr}")
    for rank, text in lines.items():
        others = [p for p in range(ranks) if p % 2 != rank % 2]
        for p in others:
            check(f"to rank {p}: {n} connections" in text, f"rank {rank} sent over {n} connections to {p}: {text}")
            check(f"from rank {p}: {n} connections" in text, f"rank {rank} took {n} connections from {p}: {text}")
        for p in range(ranks):
            if p % 2 == rank % 2:
                check(f"rank {p}:" not in text, f"rank {rank} opened no stream to its own site: {text}")
        m = re.search(r"(\d+) stripes sent, (\d+) received", text)
        check(m is not None and int(m[1]) >= stripes_at_least and int(m[2]) >= stripes_at_least,
              f"rank {rank} sent and received stripes: {text}")


def streams_n(n):
    def scenario(ctx, a):
        """Every size, derived datatypes and many messages in flight over n
        streams per link; the connections counted at both ends."""
        r = run_ok(ctx, job(ctx, a, n))
        expect_streams(r, 2, n)
        expect_nobody_left(ctx)
    scenario.__name__ = f"count_{n}"
    return scenario


def four_ranks(ctx, a):
    """Two processes per site: each opens its streams to both processes of
    the other site, none to its own, all at once."""
    r = run_ok(ctx, job(ctx, a, 3, ranks=4), ranks=4)
    expect_streams(r, 4, 3)
    expect_nobody_left(ctx)


def attribute(ctx, a):
    """MPIX_PARALLEL_STREAMS: read, refused values, other communicators, and
    the count changed while messages are in flight (up to 6 streams). A put
    of 3 precedes a transfer, so at least 3 connections were used; how many
    more depends on when each rendezvous' data left (the count when it
    leaves applies)."""
    r = run_ok(ctx, job(ctx, a, 2, mode="attribute"))
    for rank, peer in ((0, 1), (1, 0)):
        check(3 <= connections_to(r, rank, peer) <= 6, f"rank {rank} went up to 3 to 6 streams:\n{r.stderr}")
    expect_nobody_left(ctx)


def attribute_from_one(ctx, a):
    """The attribute alone, without STRATA_TCP_STREAMS: streams are opened
    only when a process asks for them."""
    r = run_ok(ctx, job(ctx, a, 1, mode="attribute"))
    check(3 <= connections_to(r, 0, 1) <= 6 and 3 <= connections_to(r, 1, 0) <= 6,
          f"the attribute opened the streams:\n{r.stderr}")
    expect_nobody_left(ctx)


def tls(ctx, a):
    """STRATA_DATA_TLS=wan (the job file's security: {data: tls}): every extra
    stream runs its own TLS, keyed by its own handshake."""
    r = run_ok(ctx, job(ctx, a, 4, security="security: {data: tls}\n"))
    expect_streams(r, 2, 4)
    r = ctx.run(["-v", "-jobfile", job(ctx, a, 4, security="security: {data: tls}\n")])
    expect_code(r, 0)
    check(re.search(r"tcp.*(TLS|encrypt)", r.stderr, re.I) is not None, f"mpirun -v shows TLS on the links:\n{r.stderr}")
    expect_nobody_left(ctx)


def small_unit(ctx, a):
    """A stripe unit of 1500 bytes: eager messages are striped too, and
    every size ends mid-stripe somewhere."""
    r = run_ok(ctx, job(ctx, a, 3, environment=', STRATA_TCP_STRIPE_UNIT: "1500"'))
    expect_streams(r, 2, 3, stripes_at_least=5000)
    expect_nobody_left(ctx)


def emulated(ctx, a):
    """Across emulated sites (each stripe stamped and held per stream, the
    packet handed over when its last stripe is due), with TLS."""
    network = "  wan: {latency_ms: 0.5, bandwidth_mbit: 4000, window_kib: 256}\n"
    r = run_ok(ctx, job(ctx, a, 4, network=network, security="security: {data: tls}\n"))
    expect_streams(r, 2, 4)
    r = run_ok(ctx, job(ctx, a, 3, mode="attribute", network=network, environment=', STRATA_TCP_STRIPE_UNIT: "20000"'))
    expect_nobody_left(ctx)


def window(ctx, a):
    """An emulated window slows one stream to a window per round trip, and
    several streams each to theirs: a 2 MiB transfer over 5 ms links with
    64 KiB windows never takes less than their windows allow (lower bounds
    only)."""
    network = "  wan: {latency_ms: 5, window_kib: 64}\n"
    for n in (1, 4):
        r = run_ok(ctx, job(ctx, a, n, mode="window", extra_args=("5", "64"), network=network))
        check(f"window: 2 MiB over {n} streams" in r.stdout, f"the transfer was timed:\n{r.stdout}")
        sent = streams_lines(r).get(0, "")
        check(n == 1 and sent == "" or f"to rank 1: {n} connections" in sent, f"rank 0's streams: {sent!r}")
    expect_nobody_left(ctx)


def errors(ctx, a):
    """Bad stream counts and windows stop the job, saying what is wrong."""
    path = ctx.file("job.yaml", f"executable: {a.program}\nnetwork: {{streams: 17}}\nsubjobs: [{{count: 1}}]\n")
    r = ctx.run(["-jobfile", path])
    expect_code(r, 1)
    check(r.stderr.strip() == f"mpirun: {path}:2:20: 'streams': '17' is not a number of streams; expected 1 to 16",
          f"a job file: {r.stderr!r}")
    r = ctx.run(["-np", "2", a.program, "1", "plain", ctx.marker], env_extra={"STRATA_EMULATION": "wan:window_kib=-2"})
    expect_code(r, 2)
    check(r.stderr.strip() == "mpirun: STRATA_EMULATION='wan:window_kib=-2': 'wan': 'window_kib' must not be negative, "
                              "got -2", f"the emulation's window: {r.stderr!r}")
    r = ctx.run(["-np", "2", a.program, "1", "plain", ctx.marker], env_extra={"STRATA_TCP_STREAMS": "0"})
    check(r.returncode != 0 and "STRATA_TCP_STREAMS='0': expected 1 to 16" in r.stderr,
          f"STRATA_TCP_STREAMS=0 stops MPI_Init:\n{r.stderr}")
    expect_nobody_left(ctx)


SCENARIOS = {f.__name__: f for f in (streams_n(1), streams_n(2), streams_n(4), streams_n(8), four_ranks, attribute,
                                     attribute_from_one, tls, small_unit, emulated, window, errors)}


if __name__ == "__main__":
    sys.exit(program_main(SCENARIOS, ["program"]))
