#!/usr/bin/env python3
"""End-to-end tests of mpirun/mpiexec, one scenario per invocation.

    mpirun_test.py SCENARIO --mpirun PATH --mpiexec PATH --fake-rank PATH

fake_rank stands in for MPI programs (see its header for its actions). Every
fake_rank gets a unique --marker=... argument, so after mpirun returns the test
can prove that no process of the job is left anywhere (/proc/*/cmdline).
Timeouts are only hang guards: no verdict depends on timing.
"""

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import uuid

from strata_test.harness import (GUARD, Ctx, check, expect_code, expect_nobody_left, expect_stderr, kill_when_ready,
                                 mpirun_lines, run_scenario, scenario_parser)


# ---- normal runs ------------------------------------------------------------


def normal_run(ctx):
    r = ctx.run(["-np", "4", *ctx.fake("init", "print:hello from {rank} of {size}", "finalize")])
    expect_code(r, 0)
    check(sorted(r.stdout.splitlines()) == [f"hello from {i} of 4" for i in range(4)], "every rank's line", r)
    check(r.stderr == "", "no messages on a clean run", r)
    expect_nobody_left(ctx)


def mpiexec_names(ctx):
    for tool in (ctx.mpirun, ctx.mpiexec):
        for flag in ("-n", "-np"):
            r = ctx.run([flag, "2", *ctx.fake("init", "print:x{rank}", "finalize")], tool=tool)
            expect_code(r, 0)
            check(sorted(r.stdout.splitlines()) == ["x0", "x1"], f"{tool} {flag}", r)
    expect_nobody_left(ctx)


def label_lines(ctx):
    r = ctx.run(["-l", "-np", "3", *ctx.fake("init", "print:out {rank}", "print-err:err {rank}", "finalize")])
    expect_code(r, 0)
    check(sorted(r.stdout.splitlines()) == [f"[{i}] out {i}" for i in range(3)], "labelled stdout", r)
    check(sorted(r.stderr.splitlines()) == [f"[{i}] err {i}" for i in range(3)], "labelled stderr", r)


def stdin_rank0_only(ctx):
    lines = [f"line {i} " + "y" * (i % 97) for i in range(20000)]  # well past any pipe buffer
    r = ctx.run(["-l", "-np", "3", *ctx.fake("init", "echo-stdin", "finalize")], stdin_text="\n".join(lines) + "\n")
    expect_code(r, 0)
    check_stdin_lines(r, lines)
    # From a regular file (which epoll cannot watch), too.
    path = ctx.file("input", "\n".join(lines) + "\n")
    with open(path) as f:
        r = subprocess.run([ctx.mpirun, "-l", "-np", "3", *ctx.fake("init", "echo-stdin", "finalize")], stdin=f,
                           capture_output=True, text=True, timeout=GUARD)
    expect_code(r, 0)
    check_stdin_lines(r, lines)
    # mpirun must leave its stdin blocking: a terminal's flags are shared with the user's shell.
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, b"via pipe\n")
        os.close(write_end)
        r = subprocess.run([ctx.mpirun, "-np", "1", *ctx.fake("init", "echo-stdin", "finalize")], stdin=read_end,
                           capture_output=True, text=True, timeout=GUARD)
        expect_code(r, 0)
        check(r.stdout == "stdin: via pipe\nstdin: EOF\n", "input through a pipe", r)
        check(os.get_blocking(read_end), "mpirun left its stdin non-blocking")
    finally:
        os.close(read_end)


def check_stdin_lines(r, lines):
    out = r.stdout.splitlines()
    check(out.count("[1] stdin: EOF") == 1 and out.count("[2] stdin: EOF") == 1, "ranks 1 and 2 see EOF", r)
    check(not any(l.startswith(("[1] stdin: line", "[2] stdin: line")) for l in out), "only rank 0 gets input", r)
    rank0 = [l[len("[0] stdin: "):] for l in out if l.startswith("[0] ")]
    check(rank0 == lines + ["EOF"], "rank 0 gets all of stdin, in order, then EOF")


def partial_line(ctx):
    r = ctx.run(["-l", "-np", "2", *ctx.fake("print-partial:no newline {rank}")])
    expect_code(r, 0)
    check(sorted(r.stdout.splitlines()) == ["[0] no newline 0", "[1] no newline 1"], "partial lines flushed", r)
    check(r.stdout.endswith("\n"), "a flushed partial line ends with a newline", r)


def many_lines_not_interleaved(ctx):
    n = 3000
    pad = "z" * 150
    r = ctx.run(["-np", "4", *ctx.fake("init", f"print-many:{n}:rank {{rank}} {pad}", "finalize")])
    expect_code(r, 0)
    seen = {i: [] for i in range(4)}
    pattern = re.compile(rf"^rank (\d) {pad} (\d+)$")
    for line in r.stdout.splitlines():
        m = pattern.match(line)
        check(m is not None, f"mangled line: {line[:200]!r}")
        seen[int(m.group(1))].append(int(m.group(2)))
    for rank, got in seen.items():
        check(got == list(range(n)), f"rank {rank}'s lines complete and in order")


def environment(ctx):
    r = ctx.run([
        "-l", "-np", "2", "-net", "127.0.0.0/8", "-port-range", "40000:40100",
        "-x", "FOO=bar baz", "-x", "STRATA_TEST_PASSED", "-x", "STRATA_RANK=99", "-v",
        *ctx.fake(*[f"print-env:{v}" for v in (
            "STRATA_NETWORK", "STRATA_PORT_RANGE", "FOO", "STRATA_TEST_PASSED", "STRATA_VERBOSE",
            "STRATA_RANK", "STRATA_SIZE", "STRATA_SUBJOB", "STRATA_WIREUP", "STRATA_JOB_KEY")]),
    ], env_extra={"STRATA_TEST_PASSED": "from-mpirun"})
    expect_code(r, 0)
    out = r.stdout.splitlines()
    for rank in (0, 1):
        for expected in ("STRATA_NETWORK=127.0.0.0/8", "STRATA_PORT_RANGE=40000:40100", "FOO=bar baz",
                         "STRATA_TEST_PASSED=from-mpirun", "STRATA_VERBOSE=1", f"STRATA_RANK={rank}",
                         "STRATA_SIZE=2", "STRATA_SUBJOB=0"):
            check(f"[{rank}] {expected}" in out, f"rank {rank} has {expected}", r)
    wireup = [l for l in out if "STRATA_WIREUP=" in l]
    check(len(wireup) == 2 and all(re.search(r"=127\.0\.0\.1:\d+$", l) for l in wireup), "STRATA_WIREUP", r)
    keys = {l.split("=", 1)[1] for l in out if "STRATA_JOB_KEY=" in l}
    check(len(keys) == 1 and re.fullmatch(r"[0-9a-f]{64}", keys.pop() or "") is not None, "one 64-hex job key", r)
    check(any(l.startswith("mpirun: ") for l in r.stderr.splitlines()), "-v narrates", r)


# ---- failures -----------------------------------------------------------------


def nonzero_exit(ctx):
    r = ctx.run(["-np", "4", *ctx.fake("init", "@2:exit:3", "sleep")])
    expect_code(r, 3)
    expect_stderr(r, r"^mpirun: rank 2 \(pid \d+\) exited with code 3 before MPI_Finalize; ending the job$")
    check(len(mpirun_lines(r)) == 1, "exactly one report", r)
    expect_nobody_left(ctx)


def killed_by_signal(ctx):
    r = ctx.run(["-np", "3", *ctx.fake("init", "@1:signal:9", "sleep")])
    expect_code(r, 128 + 9)
    expect_stderr(r, r"^mpirun: rank 1 \(pid \d+\) was killed by signal 9 \(Killed\) before MPI_Finalize; "
                     r"ending the job$")
    expect_nobody_left(ctx)


def abort(ctx):
    r = ctx.run(["-np", "3", *ctx.fake("init", "@1:abort:7:something went wrong", "sleep")])
    expect_code(r, 7)
    expect_stderr(r, r"^mpirun: rank 1 called MPI_Abort with code 7\nsomething went wrong$")
    check(len(mpirun_lines(r)) == 1, "the abort is the only report", r)
    expect_nobody_left(ctx)


def abort_code_clamped(ctx):
    for code, status in ((0, 1), (256, 1), (300, 44), (255, 255)):
        r = ctx.run(["-np", "2", *ctx.fake("init", f"@0:abort:{code}:", "sleep")])
        expect_code(r, status)
        expect_stderr(r, rf"^mpirun: rank 0 called MPI_Abort with code {code}$")
    expect_nobody_left(ctx)


def interrupted_by(ctx, sig, name):
    # mpirun keeps a signal it inherits as ignored ignored (nohup): this test
    # may itself run under nohup, so mpirun starts with the default disposition.
    p = subprocess.Popen([ctx.mpirun, "-np", "3", *ctx.fake("init", "print:ready {rank}", "sleep")],
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=lambda: signal.signal(sig, signal.SIG_DFL))
    try:
        ready = set()
        while len(ready) < 3:  # every rank is past the barrier and asleep
            line = p.stdout.readline()
            check(line != "", "mpirun ended before every rank was ready")
            ready.add(line.strip())
        p.send_signal(sig)
        out, err = p.communicate(timeout=GUARD)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    r = subprocess.CompletedProcess(p.args, p.returncode, out, err)
    expect_code(r, 128 + sig)
    expect_stderr(r, rf"^mpirun: interrupted by signal {sig} \({name}\); ending the job$")
    check(len(mpirun_lines(r)) == 1, "only the interruption is reported", r)
    expect_nobody_left(ctx)


def interrupt(ctx):
    interrupted_by(ctx, signal.SIGINT, "Interrupt")


def terminate_signal(ctx):
    interrupted_by(ctx, signal.SIGTERM, "Terminated")
    interrupted_by(ctx, signal.SIGHUP, "Hangup")


def exit_without_finalize(ctx):
    r = ctx.run(["-np", "3", *ctx.fake("init", "@1:exit:0", "sleep")])
    expect_code(r, 1)
    expect_stderr(r, r"^mpirun: rank 1 \(pid \d+\) exited with code 0 without calling MPI_Finalize; ending the job$")
    expect_nobody_left(ctx)


def exit_without_init(ctx):
    r = ctx.run(["-np", "3", *ctx.fake("@0:exit:0", "init", "sleep")])
    expect_code(r, 1)
    expect_stderr(r, r"^mpirun: rank 0 \(pid \d+\) exited without calling MPI_Init while the others wait at the "
                     r"startup barrier; ending the job$")
    check(len(mpirun_lines(r)) == 1, "exactly one report", r)
    expect_nobody_left(ctx)


def mpirun_killed(ctx):
    """Even a SIGKILLed mpirun (no chance to clean up) leaves nothing behind."""
    p = subprocess.Popen([ctx.mpirun, "-np", "3", *ctx.fake("init", "print:ready {rank}", "sleep")],
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def ready():
        for _ in range(3):
            check(p.stdout.readline() != "", "mpirun ended before every rank was ready")

    kill_when_ready(p, ready)
    # PR_SET_PDEATHSIG delivers SIGKILL to the ranks asynchronously: wait for it.
    expect_nobody_left(ctx, within=GUARD)


def nonzero_exit_after_finalize(ctx):
    r = ctx.run(["-np", "3", *ctx.fake("init", "finalize", "print:done {rank}", "@1:exit:5")])
    expect_code(r, 5)
    expect_stderr(r, r"^mpirun: rank 1 \(pid \d+\) exited with code 5 after MPI_Finalize$")
    check(sorted(r.stdout.splitlines()) == ["done 0", "done 1", "done 2"], "the others finish normally", r)
    expect_nobody_left(ctx)


def grace_then_kill(ctx):
    # The survivors ignore SIGTERM: only the SIGKILL after the grace period ends them.
    r = ctx.run(["-np", "3", *ctx.fake("ignore-term", "init", "@0:exit:4", "sleep")],
                env_extra={"STRATA_KILL_GRACE_MS": "300"})
    expect_code(r, 4)
    expect_stderr(r, r"^mpirun: rank 0 \(pid \d+\) exited with code 4 before MPI_Finalize; ending the job$")
    expect_nobody_left(ctx)


def non_mpi_program(ctx):
    r = ctx.run(["-np", "3", "/bin/echo", "hi"])
    expect_code(r, 0)
    check(r.stdout == "hi\n" * 3 and r.stderr == "", "three greetings", r)
    if shutil.which("hostname"):
        r = ctx.run(["-np", "3", "hostname"])
        expect_code(r, 0)
        check(len(r.stdout.splitlines()) == 3 and len(set(r.stdout.splitlines())) == 1, "three host names", r)


def non_mpi_program_fails(ctx):
    r = ctx.run(["-np", "2", "/bin/false"])
    expect_code(r, 1)
    expect_stderr(r, r"^mpirun: rank [01] \(pid \d+\) exited with code 1; ending the job$")
    check(len(mpirun_lines(r)) == 1, "exactly one report", r)


def program_not_found(ctx):
    for prog in ("/nonexistent/strata-prog", "strata-no-such-program-" + uuid.uuid4().hex[:8]):
        r = ctx.run(["-np", "2", prog])
        expect_code(r, 127)
        expect_stderr(r, rf"^mpirun: cannot start '{re.escape(prog)}' for rank 0: No such file or directory$")
    not_executable = ctx.file("not-executable", "#!/bin/sh\n")
    r = ctx.run(["-np", "2", not_executable])
    expect_code(r, 127)
    expect_stderr(r, rf"^mpirun: cannot start '{re.escape(not_executable)}' for rank 0: Permission denied$")


def wrong_job_key(ctx):
    r = ctx.run(["-np", "2", *ctx.fake("@1:bad-key", "init", "finalize")])
    expect_code(r, 3)
    expect_stderr(r, r"mpirun at STRATA_WIREUP did not prove this job's key \(STRATA_JOB_KEY\): the key was "
                     r"altered, or what listens there is not this job's mpirun$")
    expect_stderr(r, r"^mpirun: rank 1 \(pid \d+\) exited with code 3; ending the job$")
    expect_nobody_left(ctx)


# ---- machine files and the command line -----------------------------------------


def machinefile_placement(ctx):
    mf = ctx.file("machines", "# two slots here\n\nlocalhost 2\n127.0.0.1:1   # and one more\n")
    r = ctx.run(["-machinefile", mf, "-np", "5", "-l", *ctx.fake("print-env:STRATA_SUBJOB")])
    expect_code(r, 0)
    # Slots in order, cycling: localhost x2, 127.0.0.1, then localhost x2 again.
    check(sorted(r.stdout.splitlines()) == [f"[{rank}] STRATA_SUBJOB={s}" for rank, s in enumerate([0, 0, 1, 2, 2])],
          "placement", r)
    r = ctx.run(["-f", mf, "-l", *ctx.fake("print-env:STRATA_SIZE")])
    expect_code(r, 0)
    check(len(r.stdout.splitlines()) == 3 and "[2] STRATA_SIZE=3" in r.stdout, "without -np: all slots", r)
    mf = ctx.file("machines-name", f"{socket.gethostname()} 2\n")
    r = ctx.run(["-f", mf, *ctx.fake("print:ok")])
    expect_code(r, 0)
    check(r.stdout == "ok\nok\n", "this host's name is local", r)


def machinefile_malformed(ctx):
    cases = [
        ("localhost\nlocalhost:\n", 2, r"missing process count after ':'"),
        ("localhost abc\n", 1, r"'abc' is not a process count; expected a positive integer"),
        ("localhost 0\n", 1, r"process count must be at least 1"),
        ("# comment\n\nlocalhost 2 3\n", 3, r"unexpected '3' after the process count; expected 'host', 'host N' "
                                            r"or 'host:N'"),
        ("localhost:2 3\n", 1, r"process count given twice"),
        (":4\n", 1, r"missing host name before ':'"),
        ("bad$host\n", 1, r"'bad\$host' is not a valid host name"),
        ("[::1\n", 1, r"'\[::1' has no closing '\]'"),
        ("localhost 99999999999\n", 1, r"process count 99999999999 is too large"),
        ("1::2::3\n", 1, r"'1::2::3' is not a valid IPv6 address"),
    ]
    for i, (text, line, what) in enumerate(cases):
        mf = ctx.file(f"bad{i}", text)
        stem = f"started{i}"
        r = ctx.run(["-np", "2", "-machinefile", mf, *ctx.fake("touch:" + os.path.join(ctx.tmp, stem))])
        expect_code(r, 2)
        expect_stderr(r, rf"^mpirun: {re.escape(mf)}:{line}: {what}")
        check(r.stdout == "" and not ctx.started_files(stem), "nothing started", r)
    mf = ctx.file("empty", "# nothing here\n\n")
    r = ctx.run(["-f", mf, *ctx.fake()])
    expect_code(r, 2)
    expect_stderr(r, rf"^mpirun: {re.escape(mf)}: lists no hosts")


def machinefile_remote_host(ctx):
    """A plain host line of another machine is started over ssh (here with a client that does
    not exist: the job ends, naming the subjob and why)."""
    mf = ctx.file("remote", "localhost\n192.0.2.1 2\n")
    r = ctx.run(["-f", mf, *ctx.fake("touch:" + os.path.join(ctx.tmp, "started"))],
                env_extra={"STRATA_SSH": "/nonexistent/ssh"})
    expect_code(r, 1)
    expect_stderr(r, r"^mpirun: subjob 1 \(site 192\.0\.2\.1, contact 192\.0\.2\.1/ssh\+fork\) failed: cannot start "
                     r"ssh for ssh site 192\.0\.2\.1: cannot run '/nonexistent/ssh': No such file or directory")
    expect_nobody_left(ctx)


def machinefile_missing(ctx):
    path = os.path.join(ctx.tmp, "no-such-file")
    r = ctx.run(["-f", path, *ctx.fake()])
    expect_code(r, 2)
    expect_stderr(r, rf"^mpirun: cannot read machine file '{re.escape(path)}': No such file or directory$")


def bad_options(ctx):
    touch = "touch:" + os.path.join(ctx.tmp, "started")
    cases = [
        (["-foo", *ctx.fake(touch)], r"unknown option '-foo'"),
        (["-np"], r"option -np needs a value"),
        (["-np", "0", *ctx.fake(touch)], r"option -np expects a number of processes"),
        (["-n", "abc", *ctx.fake(touch)], r"option -n expects a number of processes"),
        (["-np", "2"], r"no program to run"),
        (["-port-range", "5:1", *ctx.fake(touch)], r"option -port-range expects LO:HI"),
        (["-port-range", "x", *ctx.fake(touch)], r"option -port-range expects LO:HI"),
        (["-net", "10.0.0.0/99", *ctx.fake(touch)], r"option -net expects"),
        (["-x", "1BAD=2", *ctx.fake(touch)], r"option -x expects NAME or NAME=VALUE"),
    ]
    for tool in (ctx.mpirun, ctx.mpiexec):
        for args, what in cases:
            r = ctx.run(args, tool=tool)
            expect_code(r, 2)
            expect_stderr(r, rf"^mpirun: {what}")
            expect_stderr(r, r"^Try 'mpirun --help' for more information\.$")
            check(r.stdout == "" and not ctx.started_files("started"), "nothing started", r)


# ---- job descriptions ---------------------------------------------------------------


def job(ctx, name):
    return os.path.join(ctx.jobs, name)


def dumprsl_forms(ctx):
    """A machine file, a YAML job file and an RSL multi-request print the same request."""
    with open(job(ctx, "two_sites.expected")) as f:
        expected = f.read()
    runs = [
        ["-dumprsl", "-np", "12", "-machinefile", job(ctx, "two_sites.machines"), "/opt/app", "-v", "in put"],
        ["-dumprsl", "-jobfile", job(ctx, "two_sites.yaml")],
        ["-dumprsl", "-jobfile", job(ctx, "two_sites.rsl")],
    ]
    for args in runs:
        r = ctx.run(args)
        expect_code(r, 0)
        check(r.stdout == expected and r.stderr == "", f"the request of {args}", r)
    # The dump is itself a job file that dumps the same.
    dumped = ctx.file("dumped.rsl", expected)
    r = ctx.run(["-dumprsl", "-jobfile", dumped])
    expect_code(r, 0)
    check(r.stdout == expected, "the dump reads back", r)
    grid = [ctx.run(["-dumprsl", "-jobfile", job(ctx, name)]) for name in ("grid.yaml", "grid.rsl")]
    for r in grid:
        expect_code(r, 0)
    check(grid[0].stdout == grid[1].stdout and "(environment=(GLOBUS_LAN_ID \"site1\")(FOO \"bar\"))" in grid[0].stdout,
          "grid.yaml and grid.rsl alike", grid[0])
    # -np alone: one subjob here.
    r = ctx.run(["-dumprsl", "-np", "3", "/bin/true"])
    expect_code(r, 0)
    check('(resourceManagerContact="localhost/jobmanager-fork")' in r.stdout and "(count=3)" in r.stdout,
          "-np alone", r)


def dumprsl_malformed(ctx):
    cases = [
        ("bad_unclosed.rsl", 1, "4:5: expected ')' to close the relation started at 3:5, got '('"),
        ("bad_port.rsl", 1, "1:43: subjob 0: bad port '99999' in contact 'anl.example.org:99999/fork'; expected a "
                            "number from 1 to 65535"),
        ("bad_count.yaml", 1, "5:12: subjob 1: 'count' must be a positive integer, got 'four'"),
        ("bad_adapter.yaml", 1, "3:30: subjob 0: unknown adapter 'jobmanager-pbs' in contact "
                                "'anl.example.org/jobmanager-pbs'; expected fork, slurm, jobmanager-fork or "
                                "jobmanager-slurm, or ssh[+adapter] or srun"),
    ]
    for name, code, what in cases:
        for dump in (["-dumprsl"], []):
            r = ctx.run([*dump, "-jobfile", job(ctx, name)])
            expect_code(r, code)
            check(r.stderr == f"mpirun: {job(ctx, name)}:{what}\n" and r.stdout == "", f"{name} reported", r)
    path = job(ctx, "bad_contact.machines")
    r = ctx.run(["-dumprsl", "-f", path, "/bin/true"])
    expect_code(r, 2)
    check(r.stderr == f"mpirun: {path}:2:17: bad port '0' in contact 'anl.example.org:0/fork'; expected a number "
                      "from 1 to 65535\n", "machine file contact error", r)
    missing = os.path.join(ctx.tmp, "no-such-job")
    r = ctx.run(["-dumprsl", "-jobfile", missing])
    expect_code(r, 1)
    expect_stderr(r, rf"^mpirun: cannot read job file '{re.escape(missing)}': No such file or directory$")


def jobfile_local_run(ctx):
    """A job file whose contacts are all this machine's fork adapter runs through the embedded fork path."""
    workdir = os.path.join(ctx.tmp, "work")
    os.mkdir(workdir)
    fake = ", ".join(f'"{a}"' for a in ctx.fake("init", "print:hello from {rank} of {size}", "print-env:FOO",
                                               "touch:started", "finalize"))
    path = ctx.file("local.yaml", f"""\
executable: {ctx.fake_rank}
arguments: [{fake[len(ctx.fake_rank) + 4:]}]
environment: {{FOO: from the job file}}
directory: {workdir}
subjobs:
  - contact: localhost/fork
    count: 2
""")
    r = ctx.run(["-l", "-jobfile", path])
    expect_code(r, 0)
    check(sorted(r.stdout.splitlines()) == ["[0] FOO=from the job file", "[0] hello from 0 of 2",
                                            "[1] FOO=from the job file", "[1] hello from 1 of 2"], "two ranks", r)
    check(sorted(os.listdir(workdir)) == ["started.0", "started.1"], "started in the job's directory", r)
    expect_nobody_left(ctx)
    # The same job as RSL, in two subjobs of one rank each (RSL's default contact is this machine).
    args = " ".join('"' + a + '"' for a in ctx.fake("init", "print-env:STRATA_SUBJOB", "finalize")[1:])
    path = ctx.file("local.rsl", f"""\
+( &(resourceManagerContact="localhost/fork")(count=1)(executable="{ctx.fake_rank}")(arguments={args}) )
 ( &(count=1)(executable="{ctx.fake_rank}")(arguments={args}) )
""")
    r = ctx.run(["-l", "-jobfile", path])
    expect_code(r, 0)
    check(sorted(r.stdout.splitlines()) == ["[0] STRATA_SUBJOB=0", "[1] STRATA_SUBJOB=1"], "two subjobs", r)
    expect_nobody_left(ctx)
    # As MPICH-G2's users wrote it, through MPICH-G2's flag: DUROC's subjob index, jobtype=mpi,
    # labels, GRAM's gramMyjob (said once on stderr, with its place) and maxWallTime.
    args = " ".join('"' + a + '"' for a in ctx.fake("init", "print-env:GLOBUS_DUROC_SUBJOB_INDEX", "finalize")[1:])
    path = ctx.file("g2.rsl", f"""\
+
( &(resourceManagerContact="localhost")
   (count=2)
   (jobtype=mpi)
   (label="subjob 0")
   (environment=(GLOBUS_DUROC_SUBJOB_INDEX 0))
   (gramMyjob=collective)
   (maxWallTime=10)
   (executable="{ctx.fake_rank}")
   (arguments={args})
)
( &(resourceManagerContact="localhost")
   (count=1)
   (jobtype=multiple)
   (label="subjob 2")
   (environment=(GLOBUS_DUROC_SUBJOB_INDEX 1))
   (executable="{ctx.fake_rank}")
   (arguments={args})
)
""")
    r = ctx.run(["-l", "-globusrsl", path])
    expect_code(r, 0)
    check(sorted(r.stdout.splitlines()) == ["[0] GLOBUS_DUROC_SUBJOB_INDEX=0", "[1] GLOBUS_DUROC_SUBJOB_INDEX=0",
                                            "[2] GLOBUS_DUROC_SUBJOB_INDEX=1"], "two subjobs", r)
    expect_stderr(r, r"^mpirun: .*g2\.rsl:7:5: 'gramMyjob': obsolete, and ignored by GRAM itself \(accepted and "
                     r"ignored\)$")
    expect_nobody_left(ctx)


def jobfile_output_files(ctx):
    """RSL's stdin, stdout and stderr (YAML's too): files at the site, relative to the job's
    directory, instead of mpirun's. Every process appends to the output files, which the
    subjob's start empties; every process reads the input file from its start; mpirun prints
    nothing of theirs. A file that cannot be opened fails the start, naming it."""
    workdir = os.path.join(ctx.tmp, "files")
    os.mkdir(workdir)
    with open(os.path.join(workdir, "in.txt"), "w") as f:
        f.write("first\nsecond\n")
    with open(os.path.join(workdir, "out.txt"), "w") as f:
        f.write("from an earlier run\n")
    args = " ".join('"' + a + '"' for a in ctx.fake("init", "print:out {rank}", "print-err:err {rank}", "echo-stdin",
                                                     "finalize")[1:])
    path = ctx.file("files.rsl", f"""\
&(count=3)(directory="{workdir}")(executable="{ctx.fake_rank}")(arguments={args})
 (stdin=in.txt)(stdout=out.txt)(stderr=err.txt)
""")
    r = ctx.run(["-l", "-jobfile", path], stdin_text="not for the ranks\n")
    expect_code(r, 0)
    check(r.stdout == "", "nothing of the ranks' output reaches mpirun", r)
    with open(os.path.join(workdir, "out.txt")) as f:
        out = f.read().splitlines()
    expected = [f"out {k}" for k in range(3)] + ["stdin: first", "stdin: second", "stdin: EOF"] * 3
    check(sorted(out) == sorted(expected), f"out.txt holds every rank's output and nothing older: {out}", r)
    # Unbuffered stderr writes a line and its newline apart: appends of several processes may
    # interleave between the two, never inside one write.
    with open(os.path.join(workdir, "err.txt")) as f:
        err = f.read()
    check(sorted(re.findall(r"err \d", err)) == ["err 0", "err 1", "err 2"] and err.count("\n") == 3,
          f"err.txt holds every rank's errors: {err!r}", r)
    expect_nobody_left(ctx)
    # The same from a YAML job file, with an output file whose directory is missing.
    path = ctx.file("files.yaml", f"""\
executable: {ctx.fake_rank}
directory: {workdir}
stdout: missing/out.txt
subjobs: [{{count: 1}}]
""")
    r = ctx.run(["-jobfile", path])
    check(r.returncode != 0, "mpirun fails the job", r)
    expect_stderr(r, r"^mpirun: cannot start '.*fake_rank' for rank 0: cannot open its stdout file 'missing/out\.txt': No "
                     r"such file or directory$")
    expect_nobody_left(ctx)


def jobfile_no_credential(ctx):
    """A subjob for a gatekeeper needs the user's certificate; without one nothing starts."""
    home = os.path.join(ctx.tmp, "home")
    os.mkdir(home)
    path = ctx.file("remote.yaml", f"""\
executable: {ctx.fake_rank}
arguments: ["--marker={ctx.marker}", "touch:{os.path.join(ctx.tmp, 'started')}"]
subjobs:
  - contact: localhost/fork
    count: 1
  - contact: anl.example.org/fork
    count: 2
""")
    env = {"HOME": home, "X509_USER_CERT": "", "X509_USER_KEY": "", "X509_CERT_DIR": ""}
    r = ctx.run(["-jobfile", path], env_extra=env)
    expect_code(r, 1)
    expect_stderr(r, r"^mpirun: subjob 1 \(anl\.example\.org/jobmanager-fork\) needs your grid credential: cannot read "
                     rf"the certificate {re.escape(home)}/\.strata/usercert\.pem: No such file or directory \(strata-ca "
                     r"user makes one; X509_USER_CERT, X509_USER_KEY and X509_CERT_DIR name other files\)$")
    check(r.stdout == "" and not ctx.started_files("started"), "nothing started", r)


def startup_timeout(ctx):
    r = ctx.run(["-startup-timeout", "1", "-np", "3", *ctx.fake("@0:init", "sleep")])
    expect_code(r, 1)
    expect_stderr(r, r"^mpirun: subjob 0 \([^)]*\) failed: 2 of 3 processes did not call MPI_Init within 1 s of starting "
                     r"\(ranks 1, 2\); ending the job$")
    expect_nobody_left(ctx)
    # A program that never calls MPI_Init anywhere is not an MPI job: no timeout.
    r = ctx.run(["-startup-timeout", "1", "-np", "2", "/bin/sh", "-c", "sleep 1.5; echo done"])
    expect_code(r, 0)
    check(r.stdout == "done\ndone\n", "both ran to the end", r)
    r = ctx.run(["-startup-timeout", "0", "-np", "1", "/bin/true"])
    expect_code(r, 2)
    expect_stderr(r, r"^mpirun: option -startup-timeout expects seconds from 1 to 86400, not '0'$")


def help(ctx):
    for flag in ("-h", "--help"):
        r = ctx.run([flag])
        expect_code(r, 0)
        check("usage: mpirun" in r.stdout and "-machinefile" in r.stdout, "usage text", r)


SCENARIOS = {f.__name__: f for f in [
    normal_run, mpiexec_names, label_lines, stdin_rank0_only, partial_line, many_lines_not_interleaved,
    environment, nonzero_exit, killed_by_signal, abort, abort_code_clamped, interrupt, terminate_signal,
    mpirun_killed, exit_without_finalize, exit_without_init, nonzero_exit_after_finalize, grace_then_kill,
    non_mpi_program, non_mpi_program_fails, program_not_found, wrong_job_key, machinefile_placement, machinefile_malformed,
    machinefile_remote_host, machinefile_missing, bad_options, help, dumprsl_forms, dumprsl_malformed,
    jobfile_output_files,
    jobfile_local_run, jobfile_no_credential, startup_timeout,
]}


def main():
    ap = scenario_parser(SCENARIOS)
    ap.add_argument("--mpirun", required=True)
    ap.add_argument("--mpiexec", required=True)
    ap.add_argument("--fake-rank", required=True)
    ap.add_argument("--jobs", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "jobs"))
    args = ap.parse_args()
    ctx = Ctx(args)
    return run_scenario(ctx, lambda: SCENARIOS[args.scenario](ctx))


if __name__ == "__main__":
    sys.exit(main())
