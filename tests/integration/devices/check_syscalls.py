#!/usr/bin/env python3
"""check_syscalls.py MPIRUN PROGRAM: system calls that poll, made by receives
from MPI_ANY_SOURCE on a job of two ranks on one host (shared memory only).

Runs anysource_syscalls, each rank under strace, which records the calls a
method polls with (epoll_wait and its kin for TCP, recv/read of sockets) and
the getppid() calls the program makes just before and just after its rounds
of ping-pong. Between the two marks there must be none: a receive from
MPI_ANY_SOURCE polls only the methods that reach its communicator's
processes. MPI_Init and MPI_Finalize talk to mpirun outside the marks.
Sleeping on the shared-memory doorbell (poll, then a recv that drains the
doorbell when a peer rang it) and yielding (sched_yield) are how a waiting
rank leaves its core on a loaded machine, not polls of a method, and are not
counted.

Exits 77 (skipped) when strace is missing or cannot trace here."""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROUNDS = 3000
POLLING = {"epoll_wait", "epoll_pwait", "epoll_pwait2", "recvfrom", "recvmsg", "recvmmsg", "read", "readv"}
MARK = "getppid"
SLEEP = {"poll", "ppoll"}
DRAIN = {"recvfrom", "recvmsg"}  # what follows a sleep: the doorbell's datagram

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
out = os.path.join(work.name, "trace")
wrapper = os.path.join(work.name, "traced.sh")
with open(wrapper, "w") as f:
    calls = ",".join(sorted(POLLING | SLEEP | {MARK}))
    f.write(f'#!/bin/sh\nexec {strace} -f -e trace={calls} -o "{out}.$STRATA_RANK" "$@"\n')
os.chmod(wrapper, 0o755)
env = dict(os.environ)
for k in ("STRATA_OFI_PROVIDER", "STRATA_EXCLUDE_METHODS"):
    env.pop(k, None)
# In a sanitized build: LeakSanitizer cannot run under ptrace (strace).
env["ASAN_OPTIONS"] = ":".join(filter(None, [env.get("ASAN_OPTIONS"), "detect_leaks=0"]))
p = subprocess.run([mpirun, "-np", "2", wrapper, program, str(ROUNDS)], env=env, capture_output=True, text=True,
                   timeout=300)
if p.returncode != 0:
    sys.exit(f"mpirun exited {p.returncode}\n{p.stdout}{p.stderr}")

call_re = re.compile(r"^(?:\[pid\s+\d+\]\s+|\d+\s+)?(\w+)\(")
failures = []
traces = sorted(glob.glob(out + ".*"))
if len(traces) != 2:
    sys.exit(f"expected a trace from each of 2 ranks, got {traces}\n{p.stderr}")
for path in traces:
    rank = path.rsplit(".", 1)[1]
    marks = 0
    inside = {}
    sleeps = 0
    after_sleep = False
    with open(path) as f:
        for line in f:
            m = call_re.match(line)
            if not m:
                continue
            call = m.group(1)
            if call == MARK:
                marks += 1
            elif marks != 1:
                continue
            elif call in SLEEP:
                sleeps += 1
                after_sleep = True
            elif after_sleep and call in DRAIN:
                pass
            elif call in POLLING:
                after_sleep = False
                inside[call] = inside.get(call, 0) + 1
    print(f"rank {rank}: {sleeps} sleeps on the doorbell")
    if marks != 2:
        failures.append(f"rank {rank}: expected 2 {MARK}() marks in the trace, found {marks}")
        continue
    print(f"rank {rank}: {ROUNDS} any-source receives: {inside or 'no polling system call'}")
    if inside:
        failures.append(f"rank {rank}: polling system calls during {ROUNDS} receives from MPI_ANY_SOURCE: {inside} "
                        "(expected none: no method that needs a system call reaches a peer)")
if failures:
    sys.exit("\n".join(failures))
print("any-source receives on shared memory: no polling system call")
