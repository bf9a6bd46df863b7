#!/usr/bin/env python3
"""Failures of real MPI programs: the message, mpirun's exit code, and that no
process of the job remains anywhere.

    failures_test.py SCENARIO --mpirun PATH --program PATH
"""

import signal
import subprocess
import sys

from strata_test.harness import GUARD, check, expect_code, expect_nobody_left, expect_stderr, program_main


def job(ctx, program, np, *args):
    return ctx.run(["-np", str(np), program, ctx.marker, *args])


def abort(ctx, args):
    r = job(ctx, args.program, 4, "abort", "2", "7")
    expect_code(r, 7)
    expect_stderr(r, r"^mpirun: rank 2 called MPI_Abort with code 7$")
    expect_nobody_left(ctx)


def nonzero_exit(ctx, args):
    r = job(ctx, args.program, 3, "exit", "1", "3")
    expect_code(r, 3)
    expect_stderr(r, r"^mpirun: rank 1 \(pid \d+\) exited with code 3 before MPI_Finalize; ending the job$")
    expect_nobody_left(ctx)


def killed_by_signal(ctx, args):
    r = job(ctx, args.program, 3, "signal", "2", str(int(signal.SIGKILL)))
    expect_code(r, 128 + 9)
    expect_stderr(r, r"^mpirun: rank 2 \(pid \d+\) was killed by signal 9 \(Killed\) before MPI_Finalize")
    expect_nobody_left(ctx)


def fatal_error(ctx, args):
    r = job(ctx, args.program, 3, "fatal", "1")
    expect_code(r, 1)
    expect_stderr(r, r"rank 1: fatal error in MPI_Send: invalid rank \(MPI_ERR_RANK\): "
                     r"destination rank 8 is not in a communicator of size 3")
    expect_nobody_left(ctx)


def interrupt(ctx, args):
    program = args.program
    p = subprocess.Popen([ctx.mpirun, "-np", "4", program, ctx.marker, "wait"], stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        ready = set()
        while len(ready) < 4:  # every rank is inside MPI_Recv
            line = p.stdout.readline()
            check(line != "", "mpirun ended before every rank was ready")
            ready.add(line.strip())
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=GUARD)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    r = subprocess.CompletedProcess(p.args, p.returncode, out, err)
    expect_code(r, 130)
    expect_stderr(r, r"^mpirun: interrupted by signal 2 \(Interrupt\); ending the job$")
    expect_nobody_left(ctx)


SCENARIOS = {f.__name__: f for f in (abort, nonzero_exit, killed_by_signal, fatal_error, interrupt)}

if __name__ == "__main__":
    sys.exit(program_main(SCENARIOS, ["program"]))
