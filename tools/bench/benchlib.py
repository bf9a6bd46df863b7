"""What the benchmark scripts share: the run of a benchmark that sets up sites as root (relay.py,
ssh_start.py, grid_start.py: the checks before it, its signals, its fixtures, its programs, its
timed commands, its cleanup), and the sizes and report pieces every script writes (gridjob.py's
users too). Each script sets PROG, the name its messages start with. Python 3 standard library
only.

The run (main): preflight(args), which exits if the run cannot be; setup(), run(), then
report() if both succeeded, and stop() always, after a failure or a signal too; a second signal
during the cleanup is ignored. stop() returns whether nothing of the run is left. Exit status
0, 1 (a failure, or something left) or 130 (a signal).

The test fixtures (tests/pylib/strata_test) are imported where they are used, never here at
the top: importing them changes os.environ (their harness drops SLURM_*), which gridjob's users
must not see."""

import argparse
import os
import platform
import pwd
import re
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid

PROG = "bench"
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "pylib"))
SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def say(text):
    print(f"{PROG}: {text}", file=sys.stderr, flush=True)


# --- sizes ---

def size_of(word):
    """'64K' -> 65536 (K and M: KiB and MiB, either case); None if `word` is no size."""
    m = re.fullmatch(r"(\d+)([KkMm]?)", word.strip())
    if not m:
        return None
    return int(m.group(1)) * {"": 1, "k": 1 << 10, "m": 1 << 20}[m.group(2).lower()]


def human_size(size):
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale and size % scale == 0:
            return f"{size // scale} {unit}"
    return f"{size} B"


# --- the report ---

def fenced(path, title, lang):
    """The lines that show file `path` under the name `title`, fenced as `lang`."""
    with open(path) as f:
        text = f.read().rstrip()
    return ["", f"`{title}`:", "", "```" + lang, text, "```"]


def tail(text, lines=6, rules=False):
    """The last `lines` non-blank lines of `text` on one line; `rules`: lines of dashes alone
    (Open MPI's) do not count."""
    kept = [l.strip() for l in text.splitlines() if (l.strip().strip("-") if rules else l.strip())][-lines:]
    return " / ".join(kept) if kept else "(no output)"


def commit_of(directory):
    """The abbreviated commit checked out in `directory`, or ?."""
    return subprocess.run(["git", "-C", directory, "log", "-1", "--format=%h"], capture_output=True,
                          text=True).stdout.strip() or "?"


def load_text(load):
    """(1, 5, 15 min) load averages as "0.52, 0.61, 0.70"."""
    return ", ".join(f"{x:.2f}" for x in load)


def conditions(build, load_start, tree):
    """The conditions of a run as a report states them: date, kernel, cores, the load averages
    `load_start` at the start and now at the end, the build and the commit of the source tree
    `tree`."""
    return (f"{time.strftime('%Y-%m-%d %H:%M')}, {platform.system()} {platform.release()}, "
            f"{os.cpu_count()} cores, load (1, 5, 15 min) {load_text(load_start)} at the start and "
            f"{load_text(os.getloadavg())} at the end; Strata {build} (source tree at {commit_of(tree)})")


# --- options and the checks before a run ---

def argument_parser(prog, doc):
    """A parser whose description is the first paragraph of the script's docstring `doc` and
    whose epilog the rest, with --build."""
    ap = argparse.ArgumentParser(prog=prog, description=doc.split("\n\n")[0], epilog="\n\n".join(doc.split("\n\n")[1:]),
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", metavar="DIR", default=os.path.join(ROOT, "build"),
                    help="Strata's build tree (default: %(default)s)")
    return ap


def names_of(ap, text, known, option, what):
    """The comma-separated names of `text`, each of `known` (refused with the list of them
    otherwise); `what`: the singular and the plural of what they name."""
    names = [n.strip() for n in text.split(",") if n.strip()]
    bad = [n for n in names if n not in known]
    if bad or not names:
        ap.error(f"{option}: unknown {what[0]}(s) {', '.join(bad) or '(none)'}; {what[1]}: {', '.join(known)}")
    return names


def check_runs(ap, args):
    if args.runs < 1:
        ap.error("--runs must be at least 1")


def site_counts(ap, text, most):
    """--sites LIST: the site counts it names, each from 1 to `most`, sorted and once each."""
    try:
        counts = sorted({int(s) for s in text.split(",")})
    except ValueError:
        ap.error(f"--sites {text}: write site counts from 1 to {most}, e.g. 1,{most}")
    if any(n < 1 or n > most for n in counts):
        ap.error(f"--sites {text}: site counts go from 1 to {most}")
    return counts


def need_root(why):
    if os.geteuid() != 0:
        sys.exit(f"{PROG}: needs root ({why})")


def need_build(build, paths):
    """Exits unless each of `paths` is in the build tree `build`."""
    build = os.path.abspath(build)
    for path in paths:
        if not os.path.exists(os.path.join(build, path)):
            sys.exit(f"{PROG}: {os.path.join(build, path)} is missing: is {build} a built Strata tree? (--build)")


# --- running ---

class TimedOut(Exception):
    """A command did not end within its time and was stopped; `said` is what it printed."""

    def __init__(self, said):
        super().__init__(said)
        self.said = said


def run_timed(argv, env, timeout, grace=None, cwd=None, stamped=None):
    """Runs `argv` with no input, its output captured as text: (CompletedProcess, seconds from
    its start to its end). After `timeout` seconds it is stopped and TimedOut raised: with
    `grace`, SIGTERM and that many seconds to end (so that it can clean up) before SIGKILL;
    without, SIGKILL at once. `stamped`: a list that gets each line of its standard error as it
    arrives, as (seconds from the start to the moment this process read it, line): an upper
    bound of when the command wrote it."""
    t0 = time.monotonic()
    with subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, cwd=cwd) as p:
        try:
            if stamped is None:
                out, err = p.communicate(timeout=timeout)
            else:
                out, err = read_stamped(p, t0, timeout, stamped)
        except subprocess.TimeoutExpired as e:
            if grace is None:
                p.kill()
                p.wait()  # not communicate(): what it started may hold the pipes open
            else:
                p.terminate()
                try:
                    p.communicate(timeout=grace)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.communicate()
            raise TimedOut("".join(x.decode(errors="replace") if isinstance(x, bytes) else x or ""
                                   for x in (e.stdout, e.stderr)))
    seconds = time.monotonic() - t0
    return subprocess.CompletedProcess(p.args, p.returncode, out, err), seconds


def read_stamped(p, t0, timeout, stamped):
    """communicate() for run_timed(stamped=...): reads `p`'s output and error as they come, each
    whole line of its error appended to `stamped` with its arrival (seconds from `t0`); raises
    subprocess.TimeoutExpired `timeout` seconds from `t0`."""
    got = {p.stdout.fileno(): bytearray(), p.stderr.fileno(): bytearray()}
    pending = bytearray()  # the error's unfinished line
    with selectors.DefaultSelector() as sel:
        for fd in got:
            sel.register(fd, selectors.EVENT_READ)
        while sel.get_map():
            left = t0 + timeout - time.monotonic()
            ready = sel.select(timeout=max(0, left)) if left > 0 else []
            if not ready:
                raise subprocess.TimeoutExpired(p.args, timeout, output=got[p.stdout.fileno()].decode(errors="replace"),
                                                stderr=got[p.stderr.fileno()].decode(errors="replace"))
            for key, _ in ready:
                chunk = os.read(key.fd, 65536)
                at = time.monotonic() - t0
                if not chunk:
                    sel.unregister(key.fd)
                    continue
                got[key.fd] += chunk
                if key.fd == p.stderr.fileno():
                    pending += chunk
                    *lines, rest = pending.split(b"\n")
                    stamped.extend((at, line.decode(errors="replace")) for line in lines)
                    pending = bytearray(rest)
    if pending:
        stamped.append((time.monotonic() - t0, pending.decode(errors="replace")))
    p.wait(timeout=max(0, t0 + timeout - time.monotonic()))
    return tuple(got[f.fileno()].decode(errors="replace") for f in (p.stdout, p.stderr))


def rounds(items, runs, failed, heading):
    """The timed runs: (round, item) for `runs` rounds of `items`, each round starting one item
    further on, so that drift of the machine hits them alike; an item in `failed` by then is
    passed over. Says heading(round) as each round starts."""
    for rnd in range(runs):
        say(heading(rnd))
        k = rnd % max(1, len(items))
        for item in items[k:] + items[:k]:
            if item not in failed:
                yield rnd, item


def kill(pids):
    """SIGKILL to each of `pids`, those already gone aside."""
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def kill_until_gone(find, seconds=30):
    """Kills the processes find() returns until it returns none; raises RuntimeError naming
    them if some are still there after `seconds`."""
    from strata_test.ssh import describe
    deadline = time.monotonic() + seconds
    while True:
        left = find()
        if not left:
            return
        if time.monotonic() > deadline:
            raise RuntimeError("left running: " + "; ".join(describe(p) for p in left))
        kill(p.pid for p in left)
        time.sleep(0.05)


# --- the test fixtures' pieces ---

class BenchCtx:
    """What the test fixtures take from a test's strata_test.harness.Ctx: a world-readable
    directory of the run (tmp) and a unique marker (the fixtures name their namespaces and
    account after it), the mpirun to use, and file()."""

    def __init__(self, build, prefix):
        self.mpirun = os.path.join(build, "launcher", "mpirun")
        self.mpiexec = os.path.join(build, "launcher", "mpiexec")
        self.fake_rank = None
        self.marker = "strata-bench-" + uuid.uuid4().hex
        self.tmp = tempfile.mkdtemp(prefix=prefix)
        os.chmod(self.tmp, 0o755)

    def file(self, name, text):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, 0o644)
        return path


def bench_grid(ctx, build, certificates=True, hosts=()):
    """strata_test.grid.Grid without the test programs: a HOME with the CA, trust in it, the
    host certificates of `hosts` and the user's certificate (strata-ca; none without
    `certificates`), a directory every account can write, libstrata published where every
    account can read it; gatekeepers from Grid.start."""
    from strata_test.grid import Grid
    grid = Grid.__new__(Grid)
    grid.ctx = ctx
    grid.gatekeeper = os.path.join(build, "gatekeeper", "strata-gatekeeper")
    grid.strata_ca = os.path.join(build, "tools", "strata-ca", "strata-ca")
    grid.home = os.path.join(ctx.tmp, "home")
    os.mkdir(grid.home)
    grid.certdir = os.path.join(grid.home, ".strata", "certificates")
    grid.account = "nobody"
    grid.shared = os.path.join(ctx.tmp, "shared")
    os.mkdir(grid.shared)
    os.chmod(grid.shared, 0o777)
    libdir = os.path.join(build, "mpi")
    for name in sorted(os.listdir(libdir)):
        if name.startswith("libstrata.so") and os.path.isfile(os.path.join(libdir, name)):
            grid.publish(os.path.join(libdir, name), "mpi")
    grid.gatekeepers = []
    if certificates:
        grid.ca("create-ca")
        for host in hosts:
            grid.ca("host", "--name", host)
        grid.ca("user", "--name", "Jane Doe")
    return grid


def empty_namespaces():
    """A strata_test.grid.Namespaces that holds none yet. Keep it, then call its __init__: if that
    fails half-way, remove_namespaces() still knows the namespaces it made."""
    from strata_test.grid import Namespaces
    nets = Namespaces.__new__(Namespaces)
    nets.names = []
    return nets


def remove_namespaces(nets):
    if nets is not None:
        nets.remove()
        left = [ns for ns in nets.names if os.path.exists(os.path.join("/run/netns", ns))]
        if left:
            raise RuntimeError("not removed: " + ", ".join(left))


def as_account(ids):
    """The words that run a command as the account of `ids` (a pwd entry), without its groups."""
    return ["setpriv", f"--reuid={ids.pw_uid}", f"--regid={ids.pw_gid}", "--clear-groups"]


def home_to_account(grid):
    """Gives the grid's HOME (the CA, the user's certificate and trust) to the account the
    gatekeepers map the user to, for an mpirun run as that account; returns its pwd entry."""
    ids = pwd.getpwnam(grid.account)
    for root, dirs, files in os.walk(grid.home):
        for entry in [root, *(os.path.join(root, f) for f in files)]:
            os.chown(entry, ids.pw_uid, ids.pw_gid)
    return ids


def build_published(grid, build, program, timeout):
    """tools/bench/`program`.c built with the build's tools/mpicc into the run's directory and
    published where every account can run it (its rpath finds the published libstrata); returns
    the published path."""
    out = os.path.join(grid.ctx.tmp, "build")
    os.makedirs(out, exist_ok=True)
    exe = os.path.join(out, program)
    cmd = [os.path.join(build, "tools", "mpicc"), "-O2", os.path.join(HERE, program + ".c"), "-o", exe,
           "-Wl,-rpath,$ORIGIN/../mpi"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {r.stderr.strip()}")
    return grid.publish(exe, "bin")


def kill_published(ctx):
    """After a failed run: ends the processes running a program published under the run's
    directory (its ranks), so that the next run starts clean."""
    from strata_test.ssh import processes
    pub = os.path.join(ctx.tmp, "pub") + "/"
    kill(p.pid for p in processes() if p.state != "Z" and p.exe and p.exe.startswith(pub))


# --- the run ---

class Interrupted(Exception):
    pass


def on_signal(sig, frame):
    raise Interrupted(f"signal {sig}")


def stop_all(steps, tmp):
    """The cleanup: each (what, step) of `steps` in order, the rest going on after one fails,
    then the run's directory `tmp`; says what could not be removed and returns whether all was."""
    problems = []
    for what, step in steps:
        try:
            step()
        except Exception as e:  # go on: the rest must be removed too
            problems.append(f"{what}: {e}")
    shutil.rmtree(tmp, ignore_errors=True)
    if os.path.exists(tmp):
        problems.append(f"{tmp} is still there")
    for p in problems:
        say("cleaning up: " + p)
    return not problems


def main(make_bench, args, preflight):
    """Runs the benchmark make_bench(args) (see the top) after preflight(args), which exits if
    the run cannot be; returns the exit status."""
    preflight(args)
    for sig in SIGNALS:
        signal.signal(sig, on_signal)  # SIGINT too: a shell starts background jobs with it ignored
    bench = make_bench(args)
    status = 0
    try:
        bench.setup()
        bench.run()
    except (KeyboardInterrupt, Interrupted) as e:
        say(f"interrupted ({e}); cleaning up")
        status = 130
    except Exception as e:
        say(f"failed: {e}")
        status = 1
    finally:
        for sig in SIGNALS:
            signal.signal(sig, signal.SIG_IGN)  # a second Ctrl-C must not stop the cleanup
        try:
            if status == 0:
                bench.report()
        finally:
            if not bench.stop():
                status = status or 1
            else:
                say("cleaned up: nothing of the run is left")
    return status
