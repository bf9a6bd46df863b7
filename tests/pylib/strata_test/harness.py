"""The harness of the Python integration tests: a test's context, its checks, and the
scenario runner.

A test script is one file of scenarios, one run per scenario (meson makes a test of
each, with the names `SCRIPT --list` prints). Every process a test starts carries the
test's marker (Ctx.fake), so after mpirun returns the test can prove that no process
of the job is left anywhere (/proc/*/cmdline). Timeouts are only hang guards: no
verdict depends on timing.
"""

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid

GUARD = 45  # seconds; only ever reached by a hang

# A suite run inside a Slurm allocation must not turn every mpirun into one that starts its ranks
# on the allocation's nodes: the tests that want an allocation make their own (salloc).
for _name in [n for n in os.environ if n.startswith("SLURM_") and n != "SLURM_CONF"]:
    del os.environ[_name]


class Failure(Exception):
    pass


class Ctx:
    def __init__(self, args):
        self.mpirun = args.mpirun
        self.mpiexec = args.mpiexec
        self.fake_rank = os.path.abspath(args.fake_rank)
        self.jobs = getattr(args, "jobs", None)  # only mpirun_test.py scenarios use the sample job files
        self.marker = "strata-test-" + uuid.uuid4().hex
        self.tmp = tempfile.mkdtemp(prefix="strata-mpirun-test-")

    def fake(self, *actions):
        return [self.fake_rank, "--marker=" + self.marker, *actions]

    def run(self, args, stdin_text=None, env_extra=None, tool=None, guard=GUARD):
        """mpirun (or `tool`) with `args`; `guard`: seconds before a hang is assumed."""
        env = dict(os.environ)
        env.update(env_extra or {})
        return subprocess.run(
            [tool or self.mpirun, *args],
            input=stdin_text,
            stdin=None if stdin_text is not None else subprocess.DEVNULL,
            capture_output=True,
            text=True,
            env=env,
            timeout=guard,
        )

    def leftovers(self):
        """Processes whose command line carries this test's marker."""
        found = []
        needle = self.marker.encode()
        for entry in os.listdir("/proc"):
            if not entry.isdigit() or int(entry) == os.getpid():
                continue
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    if needle in f.read():
                        found.append(int(entry))
            except OSError:
                pass  # gone meanwhile
        return found

    def file(self, name, text):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def started_files(self, stem):
        return [n for n in os.listdir(self.tmp) if n.startswith(stem + ".")]


def show(r):
    return f"\n--- exit code: {r.returncode}\n--- stdout:\n{r.stdout}--- stderr:\n{r.stderr}---"


def check(cond, what, r=None):
    if not cond:
        raise Failure(what + (show(r) if r is not None else ""))


def expect_code(r, code):
    check(r.returncode == code, f"expected exit code {code}", r)


def expect_stderr(r, pattern):
    check(re.search(pattern, r.stderr, re.M) is not None, f"stderr should match /{pattern}/", r)


def kill_when_ready(p, ready):
    """SIGKILLs mpirun `p` (a Popen) once `ready()` returns (it reads p's output until the job
    is where the test wants it to die) and reaps it; kills it too when `ready` fails."""
    try:
        ready()
        p.kill()
        p.wait(timeout=GUARD)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


def expect_nobody_left(ctx, within=0):
    """No process of the test left, waiting up to `within` seconds for them to end (the
    wait only bounds a failure)."""
    deadline = time.monotonic() + within
    while within and ctx.leftovers() and time.monotonic() < deadline:
        time.sleep(0.05)
    left = ctx.leftovers()
    check(not left, f"processes left behind: {left}")


def mpirun_lines(r):
    return [l for l in r.stderr.splitlines() if l.startswith("mpirun: ")]


def run_scenario(ctx, scenario, cleanup=None):
    """Runs scenario(); prints PASS, or FAIL and why after killing whatever it left
    running. Returns the exit status for meson. meson's SIGTERM at a timeout fails the
    scenario like any failure, so that its fixtures (namespaces, daemons, accounts) are
    still taken down."""

    def terminated(sig, frame):
        raise Failure(f"terminated by signal {sig} (a timeout?)")

    signal.signal(signal.SIGTERM, terminated)
    try:
        scenario()
    except (Failure, subprocess.TimeoutExpired) as e:
        print(f"FAIL: {e}", file=sys.stderr)
        for pid in ctx.leftovers():  # never leave a mess behind for the next test
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        return 1
    finally:
        if cleanup is not None:
            cleanup()
        shutil.rmtree(ctx.tmp, ignore_errors=True)
    print("PASS")
    return 0


def program_main(scenarios, options, many=()):
    """main() of a test that runs real MPI programs: parses the scenario,
    --mpirun and --NAME for every name in `options` (several values for those
    in `many`), and runs scenarios[scenario](ctx, args) (args.fake_rank is the
    first option's (first) program). Returns the exit status for meson."""
    ap = scenario_parser(scenarios)
    ap.add_argument("--mpirun", required=True)
    for name in options:
        ap.add_argument("--" + name, required=True, nargs="+" if name in many else None)
    args = ap.parse_args()
    args.mpiexec = args.mpirun
    first = getattr(args, options[0].replace("-", "_"))
    args.fake_rank = first[0] if isinstance(first, list) else first
    ctx = Ctx(args)
    return run_scenario(ctx, lambda: scenarios[args.scenario](ctx, args))


class _ListScenarios(argparse.Action):
    """--list: prints the scenario names, one a line, and exits (meson.build asks for them)."""

    def __call__(self, parser, namespace, values, option_string=None):
        print("\n".join(self.const))
        parser.exit()


def scenario_parser(scenarios):
    """An argument parser for a script of `scenarios` ({name: function}): the scenario's
    name, or --list to print every name in order."""
    ap = argparse.ArgumentParser()
    ap.add_argument("scenario", choices=sorted(scenarios))
    ap.add_argument("--list", action=_ListScenarios, nargs=0, const=list(scenarios),
                    help="print the scenario names, one a line, and exit")
    return ap
