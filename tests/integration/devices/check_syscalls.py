#!/usr/bin/env python3
"""check_syscalls.py MPIRUN PROGRAM: system calls that poll, per receive from
MPI_ANY_SOURCE, on a job of two ranks on one host (shared memory only).

Runs anysource_syscalls with 0 and with ROUNDS ping-pong rounds, each rank
under `strace -c` counting the calls a method polls with (epoll_wait and its
kin for TCP, recv/read of sockets). Whatever MPI_Init and MPI_Finalize make
is in both runs; the rounds must add none: a receive from MPI_ANY_SOURCE
polls only the methods that reach its communicator's processes. Sleeping on
the shared-memory doorbell (poll) and yielding (sched_yield) are how a
waiting rank leaves its core on a loaded machine, not polls of a method, and
are not counted.

Exits 77 (skipped) when strace is missing or cannot trace here."""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROUNDS = 3000
POLLING = "epoll_wait,epoll_pwait,epoll_pwait2,recvfrom,recvmsg,recvmmsg,read,readv"

mpirun, program = sys.argv[1:3]
strace = shutil.which("strace")
if strace is None:
    print("strace is not installed: skipped")
    sys.exit(77)
probe = subprocess.run([strace, "-f", "-o", os.devnull, "true"], capture_output=True, text=True)
if probe.returncode != 0:
    print(f"strace cannot trace here: skipped\n{probe.stderr}")
    sys.exit(77)

work = tempfile.TemporaryDirectory()
row_re = re.compile(r"^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(\w+)\s*$")


def run(rounds):
    """Polling system calls of each rank over a whole run: {rank: {name: calls}}."""
    out = os.path.join(work.name, f"r{rounds}")
    wrapper = os.path.join(work.name, "traced.sh")
    with open(wrapper, "w") as f:
        f.write(f'#!/bin/sh\nexec {strace} -f -c -e trace={POLLING} -o "{out}.$STRATA_RANK" "$@"\n')
    os.chmod(wrapper, 0o755)
    env = dict(os.environ)
    for k in ("STRATA_OFI_PROVIDER", "STRATA_EXCLUDE_METHODS"):
        env.pop(k, None)
    p = subprocess.run([mpirun, "-np", "2", wrapper, program, str(rounds)], env=env, capture_output=True,
                       text=True, timeout=300)
    if p.returncode != 0:
        sys.exit(f"{rounds} rounds: mpirun exited {p.returncode}\n{p.stdout}{p.stderr}")
    counts = {}
    for path in sorted(glob.glob(out + ".*")):
        rank = int(path.rsplit(".", 1)[1])
        calls = {}
        with open(path) as f:
            for line in f:
                m = row_re.match(line)
                if m and m.group(2) != "total":
                    calls[m.group(2)] = int(m.group(1))
        counts[rank] = calls
    if sorted(counts) != [0, 1]:
        sys.exit(f"{rounds} rounds: expected strace counts from ranks 0 and 1, got {sorted(counts)}\n{p.stderr}")
    return counts


base = run(0)
busy = run(ROUNDS)
failures = []
for rank in (0, 1):
    for name in sorted(set(base[rank]) | set(busy[rank])):
        extra = busy[rank].get(name, 0) - base[rank].get(name, 0)
        print(f"rank {rank}: {name}: {base[rank].get(name, 0)} at start and end, "
              f"{extra:+d} over {ROUNDS} any-source receives")
        # MPI_Init's connections can take a call more or less from run to run;
        # a method polled by the receives would add thousands.
        if extra > 4:
            failures.append(f"rank {rank}: {extra} {name} calls over {ROUNDS} receives from MPI_ANY_SOURCE "
                            f"(expected none: no method that needs a system call reaches a peer)")
if failures:
    sys.exit("\n".join(failures))
print("any-source receives on shared memory: no polling system call")
