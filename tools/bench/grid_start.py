#!/usr/bin/env python3
"""grid_start: what starting a trivial MPI job costs as its sites grow from 1 to 8, and where
that time goes: authentication and submission at every gatekeeper, the co-allocation barrier,
the end (seed 001's "Startup costs: ... Are these mechanisms scalable?").

The job: init_finalize.c (MPI_Init, then MPI_Finalize), built with the build's tools/mpicc, 2
ranks per site. Each site is a TLS strata-gatekeeper on loopback with the fork adapter (the test
fixture strata_test.grid: a CA, host and user certificates from strata-ca in a fresh HOME, the
user mapped to `nobody`); every subjob has its own `site` and `host`, so that nothing crosses
sites by shared memory. mpirun runs as `nobody`, the account the gatekeepers map the user to.

Each run is `mpirun -v -jobfile JOB`, timed from its launch to its end by this script (total),
and split into phases by mpirun -v's own timeline (launcher/coallocator.cpp): its lines carry
the time since mpirun's clock began (its static initialisation, "+T ms"):

  rank R started (pid P, +T ms)          mpirun read the gatekeeper's report that R's exec
                                         succeeded; a gatekeeper starts a subjob's processes
                                         one after the other and its reports reach mpirun after
                                         the fact, sometimes after the rank checked in
  rank R checked in (k/n, +T ms)         mpirun accepted R's Checkin (after the job-key
                                         challenge), sent from R's MPI_Init
  startup barrier released (+T ms)       the last Checkin came; Release sent to every rank

The phases, in the order of the job (a rank checks in only once it has started, so the earlier
of its start report and its check-in bounds its start):

  auth + submission   from the launch to the last rank's start, that is mpirun's own start
                      before its clock (below) plus the latest over ranks of min(started,
                      checked in): mpirun reading the job and the credential, its connections,
                      TLS handshakes and delegation to every gatekeeper, their authorization,
                      their fork/exec of the processes.
  co-allocation       from there to "startup barrier released" (both in mpirun's timeline): the
                      last processes' way from exec into MPI_Init and their Checkin, the
                      barrier's wait.
  finalize + teardown from the release to mpirun's end (the total's end): the rest of MPI_Init,
                      MPI_Finalize, the processes' exits, each gatekeeper's report of its
                      subjob's end, mpirun's exit.

mpirun -v has no timestamp for its own start (the launch through setpriv, the loading of mpirun,
until its clock begins), for the gatekeepers' acceptance ("subjob N (...): PENDING") or for
"every rank reached MPI_Finalize". They are derived from when this script read each line of
mpirun's standard error, an upper bound of when it was written: mpirun's clock began at the
launch plus the least (read - T) over the lines that carry a T, late by at most that line's read
delay, which the first phase then gains and the last loses; a line without a T was written at
the latest when it was read or when a later line with a T was written, whichever is earlier (on
a busy machine this script reads mpirun's lines in bursts). A second table splits the phases
at the derived points: mpirun's start before its clock; to the last gatekeeper's PENDING
(connection, TLS, authorization, the request for a delegated proxy, mpirun's signing of it);
from there to the last start (the proxy's check at the site, fork/exec; at least 0); from the
release to "every rank reached MPI_Finalize"; from there to the end. What the ranks do between
their exec and their Checkin (loading, MPI_Init's first steps) cannot be told apart from the
barrier's wait in mpirun's timeline; each rank's own "MPI_Init phases" line (mpirun -v sets
STRATA_VERBOSE) says it.

Every site count runs once untimed (the warm-up, which checks that the job ran at every
gatekeeper: each one's log has one more "subjob DONE", those not in the job none; and that each
rank reaches only its site's other rank by shared memory), then --runs times, the order of the
site counts rotating each round so that drift of the machine hits them alike; the gatekeeper
logs are checked after every run. Prints a markdown table (per site count: the total's median
and minimum, each phase's median, the total's median as a ratio to 1 site's, and a least-squares
slope per added site), the derived split with mpirun's CPU time (user + system of the reaped
mpirun, getrusage) and how busy the machine's cores were during the runs (/proc/stat, in clock
ticks), every run's total, the exact command and the job file of the largest site count.
Everything (gatekeepers, ranks, files) is removed at the end, after a failure or Ctrl-C too.

usage: tools/bench/grid_start.py [--build DIR] [--runs N] [--sites 1,2,4,8]

Needs root (the gatekeepers run the ranks as nobody). Python 3 standard library only.
"""

import os
import re
import resource
import shlex
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import benchlib  # noqa: E402  (it also puts tests/pylib on sys.path)
from benchlib import BenchCtx, TimedOut, fenced, say, tail  # noqa: E402
from strata_test.ssh import processes  # noqa: E402

benchlib.PROG = "grid_start"

PPN = 2
MAX_SITES = 8
TIMEOUT = 120  # seconds for one run; only ever reached by a hang
WAIT = 10  # seconds for a gatekeeper's log to show its subjob's end
STARTED = re.compile(r"mpirun: rank (\d+) started \(pid \d+, \+([\d.]+) ms\)$")
CHECKED_IN = re.compile(r"mpirun: rank (\d+) checked in \(\d+/\d+, \+([\d.]+) ms\)$")
RELEASED = re.compile(r"mpirun: every rank checked in; startup barrier released \(\+([\d.]+) ms\)$")
PENDING = re.compile(r"mpirun: subjob (\d+) \(.*\): PENDING$")
FINALIZED = "mpirun: every rank reached MPI_Finalize"
SHM = re.compile(r"strata: rank (\d+): methods: .*\bshm: ([^;]*)")
PHASES = (("submit", "auth + submission"), ("barrier", "co-allocation (to the barrier's release)"),
          ("rest", "finalize + teardown"))
SPLIT = (("clock", "mpirun's start, before its clock"), ("accepted", "to the last PENDING"),
         ("spawn", "from there to the last start"), ("finalize", "release to all in MPI_Finalize"),
         ("teardown", "from there to the end"))


class Bench:
    def __init__(self, args):
        self.args = args
        self.build = os.path.abspath(args.build)
        self.ctx = BenchCtx(self.build, "strata-gridstart-bench.")
        self.grid = None
        self.gk = []  # the gatekeepers, site 1 first
        self.program = None
        self.jobs = {}  # sites -> job file
        self.items = []  # site counts that run
        self.failed = {}  # sites -> why
        self.runs = {}  # sites -> [{quantity: ms}] per timed run
        self.load_start = os.getloadavg()

    # --- setting up ---

    def setup(self):
        self.grid = benchlib.bench_grid(self.ctx, self.build, hosts=("localhost",))
        self.as_user = benchlib.as_account(benchlib.home_to_account(self.grid))
        self.program = benchlib.build_published(self.grid, self.build, "init_finalize", TIMEOUT)
        say(f"{max(self.args.sites)} strata-gatekeepers")
        for k in range(max(self.args.sites)):
            self.gk.append(self.grid.start(f"gk-s{k + 1}"))

    def job_file(self, n):
        lines = [f"executable: {self.program}", f"directory: {self.grid.shared}", "subjobs:"]
        for k in range(n):
            lines.append(f"  - {{contact: '{self.gk[k].contact}', count: {PPN}, site: s{k + 1}, host: h{k + 1}}}")
        return self.ctx.file(f"sites-{n}.yaml", "\n".join(lines) + "\n")

    def command(self, n):
        return [*self.as_user, self.ctx.mpirun, "-v", "-jobfile", self.jobs[n]]

    # --- running ---

    def done(self):
        return [g.log_count(r"\] subjob DONE$") for g in self.gk]

    def run_once(self, n, warmup=False):
        """One run at `n` sites: its quantities in ms (see the top), or raises RuntimeError."""
        before = self.done()
        env = dict(os.environ)
        env.update(self.grid.env())
        stamped = []
        # mpirun is the one child reaped during the run (the gatekeepers reap the ranks).
        cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
        ticks = cpu_ticks()
        try:
            # SIGTERM first (grace): mpirun then ends the job at every site.
            r, seconds = benchlib.run_timed(self.command(n), env, TIMEOUT, grace=WAIT, cwd=self.grid.shared,
                                            stamped=stamped)
        except TimedOut as e:
            benchlib.kill_published(self.ctx)
            raise RuntimeError(f"no end after {TIMEOUT} s (stopped): {tail(e.said)}")
        if r.returncode != 0:
            benchlib.kill_published(self.ctx)
            raise RuntimeError(f"exit status {r.returncode}: {tail(r.stdout + r.stderr)}")
        busy, total = (b - a for a, b in zip(ticks, cpu_ticks()))
        now = resource.getrusage(resource.RUSAGE_CHILDREN)
        self.check_sites(n, before)
        if warmup:
            self.check_shm(n, r.stderr)
        q = phases(stamped, seconds * 1000, PPN * n, n)
        q["mpirun_cpu"] = (now.ru_utime + now.ru_stime - cpu.ru_utime - cpu.ru_stime) * 1000
        q["busy"], q["ticks"] = busy, total
        return q

    def check_sites(self, n, before):
        """Each of the first `n` gatekeepers ran one more subjob to its end, the others none."""
        deadline = time.monotonic() + WAIT
        while True:
            now = self.done()
            wrong = [k for k in range(len(self.gk)) if now[k] - before[k] != (1 if k < n else 0)]
            if not wrong:
                return
            if time.monotonic() > deadline:
                raise RuntimeError("subjobs DONE in the gatekeepers' logs: " + ", ".join(
                    f"s{k + 1} {now[k] - before[k]}" for k in wrong) + f" (expected 1 at s1..s{n}, 0 elsewhere)")
            time.sleep(0.02)

    def check_shm(self, n, stderr):
        """Each rank's shared-memory peers (its "methods:" line under -v) are its site's other rank."""
        shm = {int(m.group(1)): m.group(2).strip() for m in map(SHM.match, stderr.splitlines()) if m}
        for rank in range(PPN * n):
            partner = rank ^ 1  # PPN 2: ranks 2k and 2k+1 share site k+1
            if shm.get(rank) != str(partner):
                raise RuntimeError(f"rank {rank} reaches {shm.get(rank, 'nothing (no methods line)')} by shared "
                                   f"memory, not rank {partner} alone")

    def run(self):
        for n in self.args.sites:
            self.jobs[n] = self.job_file(n)
            self.items.append(n)
            self.runs[n] = []
        say("warm-up: " + ", ".join(f"{n} site(s)" for n in self.items))
        for n in list(self.items):
            try:
                self.run_once(n, warmup=True)
            except RuntimeError as e:
                say(f"{n} site(s): n/a: {e}")
                self.failed[n] = str(e)
                self.items.remove(n)
        for _, n in benchlib.rounds(self.items, self.args.runs, self.failed,
                                    lambda rnd: f"round {rnd + 1} of {self.args.runs} (load {os.getloadavg()[0]:.2f})"):
            try:
                self.runs[n].append(self.run_once(n))
            except RuntimeError as e:
                say(f"{n} site(s): failed: {e}")
                self.failed[n] = str(e)

    # --- the end ---

    def stop(self):
        return benchlib.stop_all((("gatekeepers", lambda: self.grid is not None and self.grid.stop()),
                                  ("processes", lambda: benchlib.kill_until_gone(self.leftovers))), self.ctx.tmp)

    def leftovers(self):
        """The run's processes: whatever names a file of ours (mpirun, gatekeepers, ranks)."""
        return [p for p in processes() if p.state != "Z" and (self.ctx.tmp in p.cmdline or
                                                               (p.exe or "").startswith(self.ctx.tmp))]

    # --- the report ---

    def median(self, n, key):
        return statistics.median(r[key] for r in self.runs[n])

    def measured(self):
        return [n for n in self.args.sites if n not in self.failed and self.runs.get(n)]

    def report(self):
        out = [f"{benchlib.conditions(self.build, self.load_start, os.path.dirname(self.build))}; "
               f"{self.args.runs} timed runs per site count after one warm-up, rounds interleaved; {PPN} ranks per "
               f"site, each site a TLS strata-gatekeeper on loopback (fork adapter); ms", ""]
        sites = self.measured()
        one = self.median(1, "total") if 1 in sites else None
        out.append("| sites | ranks | total median (min) | " + " | ".join(t for _, t in PHASES) + " | total / 1 site |")
        out.append("|---" * (4 + len(PHASES)) + "|")
        for n in self.args.sites:
            if n not in sites:
                out.append(f"| {n} | {PPN * n} | n/a | " + " | ".join("" for _ in PHASES) + " | |")
                continue
            total = self.median(n, "total")
            low = min(r["total"] for r in self.runs[n])
            ratio = f"{total / one:.2f}" if one else ""
            out.append(f"| {n} | {PPN * n} | {total:.1f} ({low:.1f}) | "
                       + " | ".join(f"{self.median(n, k):.1f}" for k, _ in PHASES) + f" | {ratio} |")
        if len(sites) >= 2:
            slopes = [slope(sites, [self.median(n, k) for n in sites]) for k in ("total", *(k for k, _ in PHASES))]
            out.append("| per added site (least-squares slope of the medians) | | "
                       + " | ".join(signed(b) for b in slopes) + " | |")
        out.append("")
        out.append("Medians of each quantity on its own: the phases' medians need not add up to the total's. The "
                   "phases end at the last rank's start (the earlier of its start report and its check-in, the "
                   "latest over ranks) and at the startup barrier's release, both in mpirun -v's timeline, placed "
                   "on the launch's clock by when this script read mpirun's lines.")
        out.append("")
        out.append("**The phases split at points derived from when mpirun's lines were read** (medians, ms):")
        out.append("")
        out.append("| sites | " + " | ".join(t for _, t in SPLIT) + " | mpirun's CPU | cores busy | "
                   "starts reported after the check-in |")
        out.append("|---" * (4 + len(SPLIT)) + "|")
        for n in sites:
            late = sum(r["late"] for r in self.runs[n])
            busy = sum(r["busy"] for r in self.runs[n]) / max(1, sum(r["ticks"] for r in self.runs[n]))
            out.append(f"| {n} | " + " | ".join(f"{self.median(n, k):.1f}" for k, _ in SPLIT)
                       + f" | {self.median(n, 'mpirun_cpu'):.1f} | {100 * busy:.0f}% | "
                       f"{late} of {PPN * n * len(self.runs[n])} |")
        if len(sites) >= 2:
            slopes = [slope(sites, [self.median(n, k) for n in sites]) for k in (*(k for k, _ in SPLIT), "mpirun_cpu")]
            out.append("| per added site | " + " | ".join(signed(b) for b in slopes) + " | | |")
        out.append("")
        out.append(f"mpirun's CPU: user + system time of the mpirun process (setpriv's exec included), median. "
                   f"Cores busy: the machine's busy time over its {os.cpu_count()} cores' time during the runs of that "
                   "site count, all runs together (/proc/stat, in clock ticks: a coarse figure).")
        out.append("")
        out.append("Every timed run's total, ms, in order: " + "; ".join(
            f"{n} site(s) " + " ".join(f"{r['total']:.1f}" for r in self.runs[n]) for n in sites) + ".")
        out.append("")
        if self.failed:
            out.append("Not measured:")
            out.append("")
            for n, why in self.failed.items():
                out.append(f"- {n} site(s): {why}")
            out.append("")
        n = max(self.jobs)
        out.append(f"Command ({n} sites; this run's paths; run as root, mpirun as `nobody` (uid 65534), the account "
                   "the gatekeepers map the user to, with `HOME` holding the CA, the user's certificate and trust, "
                   "`X509_*` empty):")
        out.append("")
        out.append("```sh")
        words = [f"{k}={shlex.quote(v) if v else ''}" for k, v in self.grid.env().items()]
        out.append(" ".join(words + [shlex.quote(a) for a in self.command(n)]))
        out.append("```")
        out += fenced(self.jobs[n], os.path.basename(self.jobs[n]), "yaml")
        out.append("")
        out.append("The job files of fewer sites hold its first subjobs.")
        print("\n".join(out))


def phases(stamped, total, ranks, sites):
    """The quantities of one run (see the top), in ms, from mpirun -v's lines `stamped` (seconds
    from the launch to the read, line) and the run's `total`; raises RuntimeError if a line is
    missing."""
    started, checked = {}, {}
    released = None
    stamps = []  # per line: its "+T ms" or None
    for _, line in stamped:
        t = None
        if m := STARTED.match(line):
            t = started[int(m.group(1))] = float(m.group(2))
        elif m := CHECKED_IN.match(line):
            t = checked[int(m.group(1))] = float(m.group(2))
        elif m := RELEASED.match(line):
            t = released = float(m.group(1))
        stamps.append(t)
    clock = min((at * 1000 - t for (at, _), t in zip(stamped, stamps) if t is not None), default=None)
    # When a line was written, at the latest, on the launch's clock: when it was read, or when
    # a later line was written (mpirun writes them in order), whichever is earlier.
    written, bound = [], float("inf")
    for (at, _), t in reversed(list(zip(stamped, stamps))):
        bound = min(bound, at * 1000 if t is None else clock + t)
        written.append(bound)
    written.reverse()
    pending = [w for w, (_, line) in zip(written, stamped) if PENDING.match(line)]
    finalized = [w for w, (_, line) in zip(written, stamped) if line == FINALIZED]
    missing = []
    if len(started) != ranks:
        missing.append(f"{len(started)} of {ranks} start reports")
    if len(checked) != ranks:
        missing.append(f"{len(checked)} of {ranks} check-ins")
    if released is None:
        missing.append("no barrier release")
    if len(pending) != sites:
        missing.append(f"{len(pending)} of {sites} subjobs PENDING")
    if len(finalized) != 1:
        missing.append(f"'every rank reached MPI_Finalize' {len(finalized)} times")
    if missing:
        raise RuntimeError("mpirun -v said " + ", ".join(missing))
    last_start = max(min(started[r], checked[r]) for r in range(ranks))
    accepted = min(max(pending) - clock, last_start)
    return {"total": total, "submit": clock + last_start, "barrier": released - last_start,
            "rest": total - clock - released,
            "clock": clock, "accepted": accepted, "spawn": last_start - accepted,
            "finalize": finalized[0] - clock - released, "teardown": total - finalized[0],
            "late": sum(1 for r in range(ranks) if started[r] > checked[r])}


def cpu_ticks():
    """The machine's CPU time so far, all cores, in clock ticks: (busy, total) (/proc/stat)."""
    with open("/proc/stat") as f:
        user, nice, system, idle, iowait, irq, softirq, steal = (int(x) for x in f.readline().split()[1:9])
    busy = user + nice + system + irq + softirq + steal
    return busy, busy + idle + iowait


def signed(x):
    """x with its sign, one decimal, and no -0.0."""
    return f"{x if abs(x) >= 0.05 else 0.0:+.1f}"


def slope(xs, ys):
    """The least-squares slope of ys over xs."""
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def parse(argv):
    ap = benchlib.argument_parser("tools/bench/grid_start.py", __doc__)
    ap.add_argument("--runs", metavar="N", type=int, default=5,
                    help="timed runs per site count, after one warm-up (default: %(default)s)")
    ap.add_argument("--sites", metavar="LIST", default="1,2,4,8",
                    help=f"site counts, from 1 to {MAX_SITES} (default: %(default)s)")
    args = ap.parse_args(argv)
    args.sites = benchlib.site_counts(ap, args.sites, MAX_SITES)
    benchlib.check_runs(ap, args)
    return args


def preflight(args):
    benchlib.need_root("the gatekeepers run the ranks as nobody")
    benchlib.need_build(args.build, ("launcher/mpirun", "tools/mpicc", "tools/strata-ca/strata-ca",
                                     "gatekeeper/strata-gatekeeper", "mpi"))


if __name__ == "__main__":
    sys.exit(benchlib.main(Bench, parse(sys.argv[1:]), preflight))
