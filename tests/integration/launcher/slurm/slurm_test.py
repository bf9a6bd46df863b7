#!/usr/bin/env python3
"""The slurm adapter against a real Slurm: starts a private single-node Slurm
(start_slurm.sh), runs subjobs through slurm_driver, checks the events it
prints, and stops Slurm again. Exits 77 (skipped) when Slurm cannot be
started here (not root, packages missing)."""

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

failures = []


def check(cond, what, output=None):
    if cond:
        print("ok:", what)
        return
    failures.append(what)
    print("FAILED:", what)
    if output is not None:
        print("--- driver output:\n" + output + "---")


def drive(args, program, extra=(), env=None, timeout=60):
    cmd = [args.driver] + list(extra) + ["--"] + program
    full_env = dict(os.environ)
    full_env.update(env or {})
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=full_env)
    out = p.stdout + ("" if not p.stderr else "--- stderr:\n" + p.stderr)
    return p.returncode, p.stdout.splitlines(), out


def states(lines):
    return [l.split(" ", 2)[1] for l in lines if l.startswith("STATE ")]


def squeue_jobs():
    p = subprocess.run(["squeue", "-h", "-o", "%i %T"], capture_output=True, text=True, timeout=30)
    if p.returncode != 0:
        return ["squeue failed: " + p.stderr.strip()]
    return p.stdout.split()


def wait_until(cond, seconds=10):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.2)
    return cond()


def pgrep(marker):
    p = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True)
    return p.stdout.split()


def workdir(lines):
    for l in lines:
        if l.startswith("WORKDIR "):
            return l.split(" ", 1)[1]
    return None


def in_rundir(scenario, args):
    """Runs scenario(args, RUNDIR) in a fresh directory, removed after."""
    rundir = tempfile.mkdtemp(prefix="strata-slurm-rundir.")
    try:
        scenario(args, rundir)
    finally:
        shutil.rmtree(rundir)


def test_normal_run(args):
    in_rundir(normal_run, args)


def normal_run(args, rundir):
    # Ranks 2..4 of subjob 1; each prints its rank, its environment and
    # directory, and exits with rank + 3, except rank 4, which SIGTERMs
    # itself (a shell would report that as 143: the wrapper must not).
    script = os.path.join(rundir, "rank.sh")
    with open(script, "w") as f:
        f.write('#!/bin/sh\n'
                'echo "rank $STRATA_RANK subjob $STRATA_SUBJOB greeting $GREETING dir $(pwd)"\n'
                'echo "to stderr $STRATA_RANK" >&2\n'
                '[ "$STRATA_RANK" = 3 ] && seq 1 3000\n'
                '[ "$STRATA_RANK" = 4 ] && kill -TERM $$\n'
                'printf "no newline $STRATA_RANK"\n'
                'exit $((STRATA_RANK + 3))\n')
    os.chmod(script, 0o755)
    # A relative program is found from the subjob's directory.
    rc, lines, out = drive(args, ["./rank.sh"],
                           ["--count", "3", "--first-rank", "2", "--subjob", "1", "--dir", rundir,
                            "--env", "GREETING=hello"])
    check(rc == 0, "normal run: driver exits 0", out)
    check(states(lines) == ["PENDING", "ACTIVE", "DONE"], "normal run: PENDING -> ACTIVE -> DONE", out)
    pending = [l for l in lines if l.startswith("STATE PENDING")]
    check(bool(pending) and "slurm job " in pending[0], "normal run: PENDING names the slurm job", out)
    for rank in (2, 3, 4):
        check(any(l.startswith("STARTED %d " % rank) for l in lines), "rank %d started" % rank, out)
        check("OUT %d rank %d subjob 1 greeting hello dir %s" % (rank, rank, rundir) in lines,
              "rank %d: STRATA_RANK, STRATA_SUBJOB, env and directory" % rank, out)
        check("ERR %d to stderr %d" % (rank, rank) in lines, "rank %d: stderr kept apart" % rank, out)
        check("CLOSED %d out" % rank in lines and "CLOSED %d err" % rank in lines,
              "rank %d: both streams closed" % rank, out)
    check("EXITED 2 code 5" in lines and "EXITED 3 code 6" in lines, "exit codes 5 and 6", out)
    check("EXITED 4 signal 15" in lines, "rank 4 killed by signal 15", out)
    check("OUT 2 no newline 2" in lines and "OUT 3 no newline 3" in lines,
          "output printed right before exit is not lost", out)
    seq = [l for l in lines if l.startswith("OUT 3 ") and l[6:].isdigit()]
    check(seq == ["OUT 3 %d" % i for i in range(1, 3001)], "rank 3: 3000 lines in order", None)
    check(not any(l.startswith("OUT 4 no newline") for l in lines), "rank 4 printed nothing after its signal", out)
    # Per rank: started before output, output before closed.
    for rank in (2, 3, 4):
        idx = [i for i, l in enumerate(lines) if l.split(" ")[1:2] == [str(rank)]]
        kinds = [lines[i].split(" ")[0] for i in idx]
        check(kinds and kinds[0] == "STARTED" and kinds[-1] in ("EXITED", "CLOSED"),
              "rank %d: events in order" % rank, out)
    check(lines and lines[-1] == "END done", "normal run: adapter done at the end", out)
    wd = workdir(lines)
    check(wd is not None and not os.path.exists(wd), "normal run: work directory removed", out)


def test_output_files(args):
    in_rundir(output_files, args)


def output_files(args, rundir):
    # RSL's stdin, stdout and stderr at a Slurm site: every task reads the input file and
    # appends to the output files (relative to the directory), which the job empties first;
    # nothing of theirs reaches the driver.
    with open(os.path.join(rundir, "in.txt"), "w") as f:
        f.write("line one\n")
    with open(os.path.join(rundir, "out.txt"), "w") as f:
        f.write("older\n")
    script = os.path.join(rundir, "rank.sh")
    with open(script, "w") as f:
        f.write('#!/bin/sh\nread line\necho "out $STRATA_RANK $line"\necho "err $STRATA_RANK" >&2\n'
                'env | grep -c "^STRATA_TASK_" >&2\n')
    os.chmod(script, 0o755)
    rc, lines, out = drive(args, ["./rank.sh"], ["--count", "2", "--dir", rundir, "--stdin", "in.txt",
                                                  "--stdout", "out.txt", "--stderr", "err.txt"])
    check(rc == 0 and lines and lines[-1] == "END done", "output files: the subjob runs", out)
    check(not any(l.startswith(("OUT ", "ERR ")) for l in lines), "output files: nothing forwarded", out)
    with open(os.path.join(rundir, "out.txt")) as f:
        got = sorted(f.read().splitlines())
    check(got == ["out 0 line one", "out 1 line one"], "output files: out.txt, emptied first: %s" % got, out)
    with open(os.path.join(rundir, "err.txt")) as f:
        got = sorted(f.read().splitlines())
    check(got == ["0", "0", "err 0", "err 1"], "output files: err.txt, and no STRATA_TASK_ variable left: %s" % got,
          out)
    # An input file that is not there: the task cannot start, and says which file.
    rc, lines, out = drive(args, ["./rank.sh"], ["--dir", rundir, "--stdin", "nothing.txt"])
    check(states(lines)[-1:] == ["FAILED"], "output files: a missing stdin file fails the subjob", out)


def test_missing_program(args):
    before = squeue_jobs()
    for prog in ["/nonexistent/strata-no-such-program", "strata-no-such-program", "./strata-no-such-program"]:
        rc, lines, out = drive(args, [prog], ["--count", "2"])
        check("START_FAILED 0 No such file or directory" in lines, "missing %s: start failure ENOENT" % prog, out)
        check(states(lines) == ["FAILED"], "missing %s: FAILED without PENDING" % prog, out)
        check(not any(l.startswith("STARTED") for l in lines), "missing %s: nothing started" % prog, out)
    check(squeue_jobs() == before == [], "missing program: nothing submitted (squeue empty)", str(before))


def test_sbatch_refused(args):
    rc, lines, out = drive(args, ["/bin/true"], ["--count", "1"],
                           env={"STRATA_SLURM_SBATCH_ARGS": "--overcommit --partition=strata-no-such-partition"})
    failed = [l for l in lines if l.startswith("START_FAILED 0 sbatch refused the job: ")]
    check(bool(failed) and "partition" in failed[0], "sbatch refusal reported with its message", out)
    check(states(lines) == ["FAILED"], "sbatch refusal: FAILED", out)


def test_exec_failure(args):
    # Executable but not a program: execv fails on the node (ENOEXEC), after
    # the job was submitted.
    with tempfile.NamedTemporaryFile("w", prefix="strata-slurm-notaprogram.", delete=False) as f:
        f.write("this is not a program\n")
    os.chmod(f.name, 0o755)
    try:
        rc, lines, out = drive(args, [f.name], ["--count", "2"])
    finally:
        os.unlink(f.name)
    s = states(lines)
    check(s[:1] == ["PENDING"] and s[-1:] == ["FAILED"], "exec failure: PENDING ... FAILED", out)
    check(len([l for l in lines if l.startswith("START_FAILED ")]) == 1 and
          any(l in ("START_FAILED 0 Exec format error", "START_FAILED 1 Exec format error") for l in lines),
          "exec failure: one start failure, Exec format error", out)
    check(not any(l.startswith(("STARTED", "EXITED")) for l in lines), "exec failure: nothing started", out)
    check(lines[-1:] == ["END done"], "exec failure: adapter done at the end", out)


def test_cancel_pending(args):
    # Without --overcommit, 3 tasks never fit this 2-core node: the job stays queued.
    rc, lines, out = drive(args, ["/bin/true"], ["--count", "3", "--cancel-when-pending", "terminate"],
                           env={"STRATA_SLURM_SBATCH_ARGS": ""})
    failed = [l for l in lines if l.startswith("STATE FAILED ")]
    check(states(lines) == ["PENDING", "FAILED"] and "CANCELLED" in failed[0],
          "cancel while queued: PENDING -> FAILED (cancelled)", out)
    check(not any(l.startswith(("STARTED", "START_FAILED")) for l in lines),
          "cancel while queued: nothing started, no start failure", out)
    check(wait_until(lambda: squeue_jobs() == []), "cancel while queued: no job left in squeue", str(squeue_jobs()))


def test_cancel(args, mode):
    marker = "%d.%06d" % (300 + random.randint(0, 99), random.randint(0, 999999))
    program = ["sleep", marker]
    if mode == "kill":
        # Ignores SIGTERM (Slurm sends it first when it ends a job), so only
        # the SIGKILL that follows (KillWait later) ends it.
        program = ["/bin/sh", "-c", 'trap "" TERM; exec sleep "$0"', marker]
    rc, lines, out = drive(args, program, ["--count", "2", "--cancel-when-started", mode])
    sig = 15 if mode == "terminate" else 9
    check(rc == 0, "cancel %s: driver ends" % mode, out)
    check(states(lines) == ["PENDING", "ACTIVE", "DONE"], "cancel %s: PENDING -> ACTIVE -> DONE" % mode, out)
    check("EXITED 0 signal %d" % sig in lines and "EXITED 1 signal %d" % sig in lines,
          "cancel %s: tasks killed by signal %d" % (mode, sig), out)
    check(wait_until(lambda: squeue_jobs() == []), "cancel %s: no job left in squeue" % mode, str(squeue_jobs()))
    check(wait_until(lambda: pgrep(marker) == []), "cancel %s: no task process left" % mode, str(pgrep(marker)))


def test_destructor_cancels(args):
    marker = "%d.%06d" % (400 + random.randint(0, 99), random.randint(0, 999999))
    rc, lines, out = drive(args, ["sleep", marker], ["--count", "2", "--give-up-after-s", "4"])
    check(rc == 3 and "STATE ACTIVE " in lines, "destructor: the job ran until the driver gave up", out)
    check("STARTED 0" in " ".join(lines) and "STARTED 1" in " ".join(lines), "destructor: both tasks had started",
          out)
    check(wait_until(lambda: pgrep(marker) == []), "destructor: no task process left", str(pgrep(marker)))
    check(wait_until(lambda: squeue_jobs() == []), "destructor: no job left in squeue", str(squeue_jobs()))
    wd = workdir(lines)
    check(wd is not None and not os.path.exists(wd), "destructor: work directory removed", out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--driver", required=True)
    ap.add_argument("--task", required=True)
    ap.add_argument("--scripts", required=True)
    args = ap.parse_args()
    start = subprocess.run([os.path.join(args.scripts, "start_slurm.sh")], capture_output=True, text=True,
                           timeout=60)
    if start.returncode == 77:
        print(start.stderr.strip())
        return 77
    if start.returncode != 0:
        print("cannot start Slurm:\n" + start.stdout + start.stderr)
        return 1
    slurm_dir = start.stdout.strip().splitlines()[-1]
    os.environ["SLURM_CONF"] = os.path.join(slurm_dir, "slurm.conf")
    os.environ["STRATA_SLURM_TASK"] = args.task
    # 3 tasks on this 2-core node need --overcommit; 50 ms polls keep the test short.
    os.environ["STRATA_SLURM_SBATCH_ARGS"] = "--overcommit"
    os.environ["STRATA_SLURM_POLL_MS"] = "50"
    began = time.monotonic()
    try:
        test_missing_program(args)
        test_normal_run(args)
        test_output_files(args)
        test_sbatch_refused(args)
        test_exec_failure(args)
        test_cancel_pending(args)
        test_cancel(args, "terminate")
        test_cancel(args, "kill")
        test_destructor_cancels(args)
    finally:
        stop = subprocess.run([os.path.join(args.scripts, "stop_slurm.sh"), slurm_dir], capture_output=True,
                              text=True, timeout=60)
        check(stop.returncode == 0, "Slurm stopped", stop.stdout + stop.stderr)
    print("took %.1f s" % (time.monotonic() - began))
    if failures:
        print("%d check(s) failed: %s" % (len(failures), "; ".join(failures)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
