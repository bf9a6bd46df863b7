#!/usr/bin/env python3
"""check_polls.py MPIRUN PROGRAM: runs poll_select in its three modes
(3 ranks; rank 1 excludes shared memory, so it is reached over TCP only) and
checks, from the counters every
rank prints at MPI_Finalize, which methods each rank polled:
  none       ranks 0 and 2 talk over shm only: neither ever polls TCP;
  pending    rank 0 also awaits rank 1: it polls TCP, less often than shm
             (skip-poll); rank 2 still never does;
  anysource  rank 2 receives from MPI_ANY_SOURCE: it polls TCP too;
  anysource-comm  the same on an intercommunicator of ranks 0 and 2: no TCP
             peer can send on it, so rank 2 never polls TCP."""
import os
import re
import subprocess
import sys
import tempfile

mpirun, program = sys.argv[1:3]
line_re = re.compile(r"strata: rank (\d+): polls: (.*)")

# Rank 1 leaves shared memory out; ranks 0 and 2 keep it.
wrapper_dir = tempfile.TemporaryDirectory()
wrapper = os.path.join(wrapper_dir.name, "rank1_tcp.sh")
with open(wrapper, "w") as f:
    f.write('#!/bin/sh\n[ "$STRATA_RANK" = 1 ] && { STRATA_EXCLUDE_METHODS=shm; export STRATA_EXCLUDE_METHODS; }\n'
            'exec "$@"\n')
os.chmod(wrapper, 0o755)


def run(mode):
    env = dict(os.environ, STRATA_POLL_STATS="1", STRATA_SKIP_POLL="8")
    env.pop("STRATA_OFI_PROVIDER", None)
    env.pop("STRATA_EXCLUDE_METHODS", None)
    p = subprocess.run([mpirun, "-np", "3", wrapper, program, mode], env=env, capture_output=True, text=True,
                       timeout=120)
    if p.returncode != 0:
        sys.exit(f"{mode}: mpirun exited {p.returncode}\n{p.stdout}{p.stderr}")
    polls = {}
    for line in p.stderr.splitlines():
        m = line_re.search(line)
        if m:
            polls[int(m.group(1))] = {k: int(v) for k, v in (x.split() for x in m.group(2).split(", "))}
    if sorted(polls) != [0, 1, 2]:
        sys.exit(f"{mode}: expected poll counters from ranks 0-2, got:\n{p.stderr}")
    return polls


failures = []


def expect(cond, what, polls):
    if not cond:
        failures.append(f"{what}: {polls}")


p = run("none")
for r in (0, 2):
    expect(p[r]["tcp"] == 0, f"none: rank {r} polled TCP although it only awaits shm peers", p)
    expect(p[r]["shm"] > 0, f"none: rank {r} never polled shm", p)

p = run("pending")
expect(p[0]["tcp"] > 0, "pending: rank 0 awaits rank 1 (TCP) but never polled TCP", p)
expect(p[0]["tcp"] < p[0]["shm"], "pending: rank 0 polled TCP as often as shm (skip-poll not applied)", p)
expect(p[2]["tcp"] == 0, "pending: rank 2 polled TCP although it only awaits rank 0 over shm", p)

p = run("anysource")
expect(p[2]["tcp"] > 0, "anysource: rank 2 receives from MPI_ANY_SOURCE but never polled TCP", p)
expect(p[0]["tcp"] == 0, "anysource: rank 0 polled TCP although it only awaits rank 2 over shm", p)

p = run("anysource-comm")
expect(p[2]["tcp"] == 0, "anysource-comm: rank 2 polled TCP for MPI_ANY_SOURCE on a communicator without TCP peers", p)
expect(p[2]["shm"] > 0, "anysource-comm: rank 2 never polled shm", p)

if failures:
    sys.exit("\n".join(failures))
print("selective polling: ok")
