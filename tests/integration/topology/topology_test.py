#!/usr/bin/env python3
"""The grid's topology on one machine: MPICH-G2's example table, the
attributes on derived communicators, traffic per level, per-subjob host
identity and processor names, mpirun -v's table, the hwloc levels, and
wide-area emulation in the TCP method.

    topology_test.py SCENARIO --mpirun PATH --example PATH --attrs PATH --links PATH
                     --conformance PROGRAM...
"""

import os
import re
import shutil
import subprocess
import sys

from strata_test.coll_grid import OFI_MISSING, SEED000_GRID
from strata_test.harness import (GUARD, check, expect_code, expect_nobody_left, expect_stderr, kill_when_ready,
                                 program_main)

# MPICH-G2's published layout: 4 ranks on one machine at site A sharing a fast
# method (depth 4), 4 + 4 on two machines at site B with TCP only (depth 3).
# Each subjob is its own "host", so shared memory stays inside m1.
MPICHG2_SUBJOBS = """\
subjobs:
  - {{count: 4, site: A, machine: m1, host: h1{a}}}
  - {{count: 4, site: B, machine: m2, host: h2, environment: {{STRATA_EXCLUDE_METHODS: shm}}{b}}}
  - {{count: 4, site: B, machine: m3, host: h3, environment: {{STRATA_EXCLUDE_METHODS: shm}}{c}}}
"""

MPICHG2_TABLE = [(4, [0, 0, 0, 0])] * 4 + [(3, [0, 1, 1])] * 4 + [(3, [0, 1, 2])] * 4


def job_file(ctx, program, args=(), names=("", "", "")):
    extra = [f", processor_name: {n}" if n else "" for n in names]
    text = f"executable: {program}\narguments: [{', '.join(args)}]\n" + MPICHG2_SUBJOBS.format(
        a=extra[0], b=extra[1], c=extra[2])
    return ctx.file("job.yaml", text)


def lines_matching(text, pattern):
    return [m for m in (re.match(pattern, line) for line in text.splitlines()) if m]


def mpichg2_example(ctx, a):
    """The example program splits MPI_COMM_WORLD by the attributes and gets the
    published groups; mpirun -v prints the table once."""
    r = ctx.run(["-v", "-jobfile", job_file(ctx, a.example, [ctx.marker])])
    expect_code(r, 0)
    rows = {int(m[1]): m for m in lines_matching(r.stdout, r"^rank (\d+): depth (\d+) colours ([\d ]+); "
                                                           r"LAN (\d+) of (\d+); vendor (\d+) of (\d+)$")}
    check(sorted(rows) == list(range(12)), f"every rank printed its line:\n{r.stdout}")
    for rank, (depth, colours) in enumerate(MPICHG2_TABLE):
        m = rows[rank]
        got = (int(m[2]), [int(x) for x in m[3].split()])
        check(got == (depth, colours), f"rank {rank}: depth and colours {got}, want {(depth, colours)}")
        lan = (rank if rank < 4 else rank - 4, 4 if rank < 4 else 8)
        check((int(m[4]), int(m[5])) == lan, f"rank {rank}: LAN communicator {m[4]} of {m[5]}, want {lan}")
        vendor = (rank if rank < 4 else rank - 4, 4 if rank < 4 else 8)
        check((int(m[6]), int(m[7])) == vendor, f"rank {rank}: vendor communicator {m[6]} of {m[7]}, want {vendor}")
    heads = [line for line in r.stderr.splitlines() if line.startswith("strata: topology (levels:")]
    check(len(heads) == 1, f"mpirun -v prints the topology table once:\n{r.stderr}")
    table = lines_matching(r.stderr, r"^strata:   rank (\d+): depth (\d+), colours ([\d ]+) \(site (\w+)\)$")
    check([(int(m[2]), [int(x) for x in m[3].split()]) for m in table] == MPICHG2_TABLE,
          f"the table mpirun -v shows:\n{r.stderr}")
    check([m[4] for m in table] == ["A"] * 4 + ["B"] * 8, "the table names the sites")
    # -v traces the start: mpirun's phases, and each rank's MPI_Init.
    expect_stderr(r, r"^mpirun: startup: the last start reported at \+[\d.]+ ms \(spawn\), the first check-in at "
                     r"\+[\d.]+ ms, the last at \+[\d.]+ ms \(check-in\)$")
    phases = lines_matching(r.stderr, r"^strata: rank (\d+): MPI_Init phases: methods [\d.]+ ms, check-in and barrier "
                                      r"[\d.]+ ms, .*topology [\d.]+ ms, connections [\d.]+ ms, .*\(total [\d.]+ ms\)$")
    check(sorted(int(m[1]) for m in phases) == list(range(12)), f"every rank traced MPI_Init:\n{r.stderr}")
    expect_nobody_left(ctx)


# The paper numbers levels WAN, LAN, machine, node, with depth 4 on the LLNL SP
# and 3 elsewhere; MPICH-G2's model (and Strata's) has a vendor level below the
# machine, so the depths are 5 and 4 and the paper's level 3 (the node) is 4.
SEED000_TABLE = ([(5, [0, 0, 0, 0, r // 4]) for r in range(16)] + [(4, [0, 1, 1, 1])] * 8 +
                 [(4, [0, 1, 2, 2])] * 8)


def seed000_llnl_sp(ctx, a):
    """Seed 000's grid: the subjob is the machine; the LLNL SP's vendor level
    spans its nodes and a node level lies below it; mpirun -v names level 4."""
    path = ctx.file("job.yaml", f"executable: {a.example}\narguments: [{ctx.marker}]\n{SEED000_GRID}")
    r = ctx.run(["-v", "-jobfile", path])
    if r.returncode != 0 and OFI_MISSING in r.stderr:
        print(f"SKIP: the ofi method is not built or has no tcp provider here:\n{r.stderr[-2000:]}")
        sys.exit(77)
    expect_code(r, 0)
    rows = {int(m[1]): m for m in lines_matching(r.stdout, r"^rank (\d+): depth (\d+) colours ([\d ]+); "
                                                           r"LAN (\d+) of (\d+); vendor (\d+) of (\d+)$")}
    check(sorted(rows) == list(range(32)), f"every rank printed its line:\n{r.stdout}")
    for rank, (depth, colours) in enumerate(SEED000_TABLE):
        got = (int(rows[rank][2]), [int(x) for x in rows[rank][3].split()])
        check(got == (depth, colours), f"rank {rank}: depth and colours {got}, want {(depth, colours)}")
        vendor = (rank if rank < 16 else (rank - 16) % 8, 16 if rank < 16 else 8)
        check((int(rows[rank][6]), int(rows[rank][7])) == vendor,
              f"rank {rank}: vendor communicator {rows[rank][6]} of {rows[rank][7]}, want {vendor}")
    expect_stderr(r, r"^strata: topology \(levels: 0 wide area, 1 local area, 2 system area, 3 vendor, 4 node\):$")
    # The nodes' own methods: shared memory inside a node, the switch (ofi) across.
    expect_stderr(r, r"^strata: rank 0: methods: self: 0; shm: 1-3; ofi: 4-15; tcp: 16-31$")
    expect_nobody_left(ctx)


def attributes(ctx, a):
    """Attributes on the world, a split, a dup and an intercommunicator's local
    side; traffic counted per level and method; processor names from the job
    file, the host name where it gives none."""
    r = ctx.run(["-jobfile", job_file(ctx, a.attrs, [ctx.marker], names=("pA-01", "", "pB-03"))])
    expect_code(r, 0)
    check("topology_attrs: ok (12 processes)" in r.stdout, f"the program checked itself:\n{r.stdout}\n{r.stderr}")
    rows = lines_matching(r.stdout, r"^world rank (\d+): depth (\d+) colours ([\d ]+)$")
    check([(int(m[2]), [int(x) for x in m[3].split()]) for m in rows] == MPICHG2_TABLE,
          f"the world's attributes:\n{r.stdout}")
    names = {int(m[1]): m[2] for m in lines_matching(r.stdout, r"^rank (\d+): processor (\S+)$")}
    host = os.uname().nodename
    want = {k: "pA-01" if k < 4 else host if k < 8 else "pB-03" for k in range(12)}
    check(names == want, f"processor names {names}, want {want}")
    expect_nobody_left(ctx)


def rank0_methods(ctx, a, subjobs):
    """What mpirun -v says rank 0 uses to reach each rank, for a job of the
    example program over `subjobs` (YAML list items, one per line)."""
    path = ctx.file("job.yaml", f"executable: {a.example}\narguments: [{ctx.marker}]\nsubjobs:\n{subjobs}")
    r = ctx.run(["-v", "-jobfile", path])
    expect_code(r, 0)
    found = lines_matching(r.stderr, r"^strata: rank 0: methods: (.*)$")
    check(len(found) == 1, f"rank 0 shows its methods:\n{r.stderr}")
    return found[0][1]


def host_identity(ctx, a):
    """Two subjobs on this machine with different host identities never share
    memory; with the same identity (or none) they do."""
    def methods(hosts):
        return rank0_methods(ctx, a, "".join(f"  - {{count: 2{', host: ' + h if h else ''}}}\n" for h in hosts))
    check(methods(["h1", "h2"]) == "self: 0; shm: 1; tcp: 2-3", "different identities: TCP between them")
    check(methods(["h1", "h1"]) == "self: 0; shm: 1-3", "one identity: shared memory")
    check(methods(["", ""]) == "self: 0; shm: 1-3", "no identity: the real host")
    expect_nobody_left(ctx)


def vendor_per_subjob(ctx, a):
    """Without STRATA_VENDOR_DOMAIN each subjob is its own vendor domain: the
    ofi method links the ranks of one subjob, never two subjobs, even on one
    machine; STRATA_VENDOR_DOMAIN set alike joins them."""
    def methods(domain):
        env = "{STRATA_EXCLUDE_METHODS: shm, STRATA_OFI_PROVIDER: 'tcp;ofi_rxm'" + (
            f", STRATA_VENDOR_DOMAIN: {domain}}}" if domain else "}")
        return rank0_methods(ctx, a, "".join(f"  - {{count: 2, host: h{i}, environment: {env}}}\n" for i in (1, 2)))
    joined = methods("cluster")
    if "ofi" not in joined:
        print(f"SKIP: the ofi method is not built or has no tcp provider here ({joined})")
        sys.exit(77)
    check(joined == "self: 0; ofi: 1-3", "one STRATA_VENDOR_DOMAIN: one vendor domain")
    check(methods("") == "self: 0; ofi: 1; tcp: 2-3", "two subjobs: two vendor domains")
    expect_nobody_left(ctx)


def hwloc_levels(ctx, a):
    """STRATA_TOPOLOGY_HWLOC=1 adds the package and NUMA levels below the vendor
    level, from each process's CPU binding as hwloc reads it. hwloc is shown a
    synthetic machine of two single-core packages (its HWLOC_SYNTHETIC) so that
    two ranks bound to CPUs 0 and 1 sit in different packages on any host with
    two CPUs; an unbound rank spans both and has no package level."""
    taskset = shutil.which("taskset")
    if taskset is None or not {0, 1} <= os.sched_getaffinity(0):
        print("SKIP: needs taskset and CPUs 0 and 1")
        sys.exit(77)
    env = ('{STRATA_TOPOLOGY_HWLOC: "1", HWLOC_SYNTHETIC: "package:2 core:1 pu:1", HWLOC_THISSYSTEM: "1"}')
    bound = "".join(f"  - {{count: 1, machine: m, arguments: [-c, \"{cpu}\", {a.example}, {ctx.marker}]}}\n"
                    for cpu in (0, 1))
    unbound = f"  - {{count: 1, machine: m, executable: {a.example}, arguments: [{ctx.marker}]}}\n"
    path = ctx.file("job.yaml", f"executable: {taskset}\nenvironment: {env}\nsubjobs:\n{bound}{unbound}")
    r = ctx.run(["-jobfile", path])
    expect_code(r, 0)
    rows = {int(m[1]): (int(m[2]), [int(x) for x in m[3].split()])
            for m in lines_matching(r.stdout, r"^rank (\d+): depth (\d+) colours ([\d ]+);")}
    want = {0: (6, [0, 0, 0, 0, 0, 0]), 1: (6, [0, 0, 0, 0, 1, 1]), 2: (4, [0, 0, 0, 0])}
    check(rows == want, f"depths and colours {rows}, want {want}\n{r.stderr}")
    expect_nobody_left(ctx)


def emulation_bounds(ctx, a):
    """A link emulated between two sites is never faster than configured (the
    program checks lower bounds on its round trips: timing gives no upper
    bound a test could rely on), carries every byte in order, and counts its
    messages at level 0."""
    path = ctx.file("job.yaml", f"""\
executable: {a.links}
arguments: ["40", "80", {ctx.marker}]
environment: {{STRATA_STATS: "1"}}
network:
  wan: {{latency_ms: 40, bandwidth_mbit: 80}}
subjobs:
  - {{count: 1, site: A, host: a}}
  - {{count: 1, site: B, host: b}}
""")
    r = ctx.run(["-jobfile", path])
    expect_code(r, 0)
    check("emulated_links: ok (2 processes)" in r.stdout, f"the program checked itself:\n{r.stdout}\n{r.stderr}")
    check(re.search(r"^strata: rank 0: sent: level 0 \(wide area\): \d+ messages", r.stderr, re.M) is not None,
          f"rank 0 counted its messages at level 0:\n{r.stderr}")
    expect_nobody_left(ctx)


def links_tables():
    """The emulated links' tables in /dev/shm now (wireup/shared_links.hpp)."""
    return {n for n in os.listdir("/dev/shm") if n.startswith("strata-links-")}


def emulated_job(ctx, a, latency_ms, mbit, subjobs):
    """A job file running the emulated_links program over a wide area of `latency_ms` and
    `mbit`, at the (site, host) places of `subjobs`, one process each."""
    lines = [f"  - {{count: 1, site: {site}, machine: {host}, host: {host}}}" for site, host in subjobs]
    return ctx.file("job.yaml", f"executable: {a.links}\n"
                                f'arguments: ["{latency_ms}", "{mbit}", {ctx.marker}]\n'
                                f"network:\n  wan: {{latency_ms: {latency_ms}, bandwidth_mbit: {mbit}}}\n"
                                "subjobs:\n" + "\n".join(lines) + "\n")


def emulation_shared(ctx, a):
    """Processes of one site share its wide-area link: two transfers between
    the sites at once take as long as their bytes at the link's bandwidth
    (the program checks that lower bound), and mpirun removes the job's shared
    link table when the job ends."""
    before = links_tables()
    path = emulated_job(ctx, a, 20, 80, [("A", "a1"), ("B", "b1"), ("A", "a2"), ("B", "b2")])
    r = ctx.run(["-jobfile", path])
    expect_code(r, 0)
    check("emulated_links: ok (4 processes)" in r.stdout, f"the program checked itself:\n{r.stdout}\n{r.stderr}")
    after = links_tables()
    check(after <= before, f"mpirun removed the shared link table: {sorted(after - before)}")
    expect_nobody_left(ctx)


def emulation_uplink(ctx, a):
    """A site's uplink is shared by everything it sends to other sites: two transfers from
    site A, one to B and one to C, cross two wide-area links but one uplink, so together
    they take at least their bytes at the uplink's bandwidth (the program checks that lower
    bound; the wide-area links themselves have no bandwidth limit here)."""
    lines = [f"  - {{count: 1, site: {site}, machine: {site.lower()}{k}, host: {site.lower()}{k}}}"
             for k, site in enumerate(["A", "B", "A", "C"])]
    path = ctx.file("job.yaml", f"executable: {a.links}\n"
                                f'arguments: ["20", "80", {ctx.marker}]\n'
                                "network: {wan: {latency_ms: 20}, uplink: {bandwidth_mbit: 80}}\n"
                                "subjobs:\n" + "\n".join(lines) + "\n")
    r = ctx.run(["-jobfile", path])
    expect_code(r, 0)
    check("emulated_links: ok (4 processes)" in r.stdout, f"the program checked itself:\n{r.stdout}\n{r.stderr}")
    expect_nobody_left(ctx)


def emulation_table_unlinked(ctx, a):
    """The shared link table's name is gone once the startup barrier opens (every process
    attached before it checked in), so an mpirun killed mid-job leaves nothing in /dev/shm;
    the job's processes keep their mapping and go on until mpirun's end ends them."""
    before = links_tables()
    path = emulated_job(ctx, a, 200, 1, [("A", "a1"), ("B", "b1")])
    p = subprocess.Popen([ctx.mpirun, "-v", "-jobfile", path], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)

    def released():
        check(any("startup barrier released" in line for line in p.stderr),
              "mpirun -v said the startup barrier was released")
        # mpirun removes the name right before it releases the barrier.
        after = links_tables()
        check(after <= before, f"the table's name is gone once the barrier opened: {sorted(after - before)}")

    kill_when_ready(p, released)
    after = links_tables()
    check(after <= before, f"nothing left in /dev/shm after mpirun was killed: {sorted(after - before)}")
    # The processes end once they find mpirun gone.
    expect_nobody_left(ctx, within=GUARD)


def emulation_conformance(ctx, a):
    """Point-to-point conformance programs across four emulated hosts at two
    sites (wide area and local area shaped, shared memory nowhere)."""
    for program in a.conformance:
        path = ctx.file("job.yaml", f"""\
executable: {program}
arguments: [{ctx.marker}]
network:
  wan: {{latency_ms: 0.3, bandwidth_mbit: 2000}}
  lan: {{latency_ms: 0.05}}
subjobs:
  - {{count: 1, site: A, machine: a1, host: a1}}
  - {{count: 1, site: A, machine: a2, host: a2}}
  - {{count: 1, site: B, machine: b1, host: b1}}
  - {{count: 1, site: B, machine: b2, host: b2}}
""")
        r = ctx.run(["-jobfile", path])
        check(r.returncode == 0 and ": ok (4 processes)" in r.stdout,
              f"{os.path.basename(program)} across emulated sites:\n{r.stdout}\n{r.stderr}")
    expect_nobody_left(ctx)


def emulation_errors(ctx, a):
    """Bad emulation settings stop mpirun before anything starts, naming what
    is wrong: in the environment (exit 2) and in a job file (exit 1, with the
    place)."""
    cases = [
        ("wan:latency_ms=-3", "STRATA_EMULATION='wan:latency_ms=-3': 'wan': 'latency_ms' must not be negative, got -3"),
        ("wide:latency_ms=3", "STRATA_EMULATION='wide:latency_ms=3': unknown link 'wide'; expected wan, lan, "
                              "uplink or SITE/SITE"),
        ("wan:bandwidth_mbit=x", "STRATA_EMULATION='wan:bandwidth_mbit=x': 'wan': 'bandwidth_mbit' must be a number, "
                                 "not 'x'"),
        ("A/B:latency_ms=3", "STRATA_EMULATION='A/B:latency_ms=3' names site 'A', which no subjob is at"),
    ]
    for text, message in cases:
        r = ctx.run(["-np", "2", a.example, ctx.marker], env_extra={"STRATA_EMULATION": text})
        expect_code(r, 2)
        check(r.stderr.strip() == f"mpirun: {message}", f"for {text!r}: {r.stderr!r}")
        # -x: the command line's check (wireup/settings.hpp) in the same words,
        # or the job's when only the job can tell (the sites).
        r = ctx.run(["-x", f"STRATA_EMULATION={text}", "-np", "2", a.example, ctx.marker])
        expect_code(r, 2)
        check(r.stderr.splitlines()[:1] == [f"mpirun: {message}"], f"-x {text!r}: {r.stderr!r}")
    path = ctx.file("job.yaml", f"executable: {a.example}\nnetwork: {{wan: {{latency_ms: 1}}, lans: {{}}}}\n"
                                "subjobs: [{count: 1}]\n")
    r = ctx.run(["-jobfile", path])
    expect_code(r, 1)
    check(r.stderr.strip() == f"mpirun: {path}:2:33: unknown level 'lans' in 'network'; expected wan (between sites), "
                              "lan (between machines of a site), uplink (each site's own, shared by all it sends to "
                              "other sites), links or streams", f"a job file: {r.stderr!r}")
    check(ctx.leftovers() == [], "nothing started")


SCENARIOS = {f.__name__: f for f in (mpichg2_example, seed000_llnl_sp, attributes, host_identity, vendor_per_subjob, hwloc_levels, emulation_bounds, emulation_table_unlinked, emulation_uplink,
                                     emulation_conformance, emulation_errors, emulation_shared)}


if __name__ == "__main__":
    sys.exit(program_main(SCENARIOS, ["example", "attrs", "links", "conformance"], many=["conformance"]))
