#!/usr/bin/env python3
"""relay: what a private site's relays cost: latency and bandwidth between two sites direct,
through one relay and through two, an all-to-all across two sites direct and through two relays,
and how much the relays buffer under a flood from every rank (docs/RELAYS.md).

Setups (--setup):

  loopback  two TLS strata-gatekeepers on loopback, each a site (the test fixture
            strata_test.grid: a CA, host and user certificates from strata-ca in a fresh HOME,
            the user mapped to `nobody`); every job gives each subjob its own `site` and `host`,
            so that nothing crosses sites by shared memory; mpirun runs as `nobody`
  ssh       two sites in network namespaces on one bridge (strata_test.grid.Namespaces), each a
            login node with sshd (strata_test.ssh.SshLogins) and a private cluster behind it
            (its `compute` namespace, which reaches its login node and nothing else) running a
            single-node Slurm (strata_test.grid.Slurm); a public subjob runs on the login node
            (`sN/ssh`), a private one on the cluster (`sN/ssh+slurm`); mpirun runs in a third
            namespace as the sites' account (ssh -F CONFIG with a copy of the key it owns)

A subjob with `network: private` gets a relay from its gatekeeper and every connection of its
ranks to the other site goes through it (wireup/routes.hpp). mpirun runs as the account the
ranks run as, because the emulated links' table it makes (/dev/shm/strata-links-*) is mode 0600.
Routes:

  direct      both subjobs `network: public`: rank to rank
  one-relay   A private, B public: through A's relay
  two-relays  both private: through A's relay, a relay link, B's relay
  hub         (--setup ssh) both private, the two login nodes cut off from each other for the
              run (their bridge ports isolated): the relays' link goes through mpirun's hub

Networks (--nets): `wan`, the job file's `network: {wan: {latency_ms: 10, bandwidth_mbit: 100}}`
(wide-area emulation inside the ranks' TCP method), and `unshaped` (no `network` key).

Tests (--only):

  pingpong  tools/bench/pingpong.c, 1 rank per site, every route, both networks
  alltoall  tools/bench/collectives.c --ops alltoall, 4 + 4 ranks, direct and two-relays, both
            networks
  flood     tools/bench/soak.c, 4 + 4 ranks, every rank sending to pseudo-random peers (half of
            them at the other site), direct and two-relays, unshaped: the relays' peak buffering
            under load

Each program is built with the build's tools/mpicc. Every (test, route, network) runs once
untimed (the warm-up, which checks that `mpirun -v` names the route expected and that each relay
carried bytes), then --runs times, the order of the items rotating each round so that drift of
the machine hits them alike. Per size: the minimum over rounds of each run's minimum, and the
median of each run's median (over its trials). Each relay's summary line at its exit
(`strata-relay: stopped: N streams opened, X bytes from ranks and Y to ranks forwarded, peak P
bytes buffered, L links`, in its gatekeeper's log, or with --setup ssh in mpirun -v's output,
which shows each site's gatekeeper log) gives P for every relayed run.

Prints markdown tables, the targets (relayed bandwidth >= 90% of direct from 64 KiB up on the
wide area; the latency a relay adds per message, (relayed - direct) / relays from the unshaped
0 and 8 B one-way medians, <= 20 us), and the exact commands and job files used. Everything the
run made (gatekeepers, relays, ranks, files; with --setup ssh the namespaces, sshd, the Slurm
daemons and the account) is removed at the end, after a failure or Ctrl-C too.

usage: tools/bench/relay.py [--build DIR] [--setup loopback|ssh] [--runs N] [--only TESTS]
                            [--nets NETS] [--env NAME=VALUE,...] [--out DIR]

Needs root (the gatekeepers change account; namespaces, sshd, Slurm and an account made for
the run with --setup ssh, which also needs build/adapters/strata-slurm-task). Python 3
standard library only.
"""

import csv
import io
import os
import pwd
import re
import shlex
import shutil
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import benchlib  # noqa: E402  (it also puts tests/pylib on sys.path)
from benchlib import BenchCtx, TimedOut, fenced, human_size, say, tail  # noqa: E402
from strata_test.grid import Slurm  # noqa: E402
from strata_test.ssh import SshLogins, processes  # noqa: E402

benchlib.PROG = "relay"

ROUTES = {  # route -> (site A's network, site B's network), the relays on the way
    "direct": ("public", "public", 0),
    "one-relay": ("private", "public", 1),
    "two-relays": ("private", "private", 2),
    "hub": ("private", "private", 2),  # --setup ssh: the login nodes cut off from each other
}
NETS = {
    "wan": "emulated wide area, 10 ms one way, 100 Mbit/s",
    "unshaped": "unshaped",
}
TESTS = {  # test -> (program, ranks per site, routes, networks)
    "pingpong": ("pingpong", 1, ("direct", "one-relay", "two-relays", "hub"), ("wan", "unshaped")),
    "alltoall": ("collectives", 4, ("direct", "two-relays"), ("wan", "unshaped")),
    "flood": ("soak", 4, ("direct", "two-relays"), ("unshaped",)),
}
SSH_SITES = ("s1", "s2")  # --setup ssh: the namespaces of sites A and B
PP_SIZES = [0, 8, 1 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20]
A2A_SIZES = [8, 1 << 10, 64 << 10]
TIMEOUT = 300  # seconds for one run; only ever reached by a hang
WAIT = 30  # seconds for a gatekeeper to log its relay's end
SUMMARY = re.compile(r"strata-relay: stopped: (\d+) streams opened, (\d+) bytes from ranks and (\d+) to ranks "
                     r"forwarded, peak (\d+) bytes buffered, (\d+) links")
KWINDOW, KWRITEBATCH = 512 << 10, 64 << 10  # relay/relay.hpp, for the bound of docs/RELAYS.md


def us(x):
    return f"{x:.0f}" if x >= 1000 else f"{x:.1f}"


class Bench:
    def __init__(self, args):
        self.args = args
        self.build = os.path.abspath(args.build)
        self.ctx = BenchCtx(self.build, "strata-relay-bench.")
        self.grid = None
        self.gk = {}  # site -> Gatekeeper (loopback)
        self.nets = self.logins = None  # ssh
        self.clusters = {}  # ssh: site -> Slurm
        self.env = {}  # mpirun's environment beyond the grid's
        self.programs = {}  # program -> published executable
        self.items = []  # (test, route, net)
        self.failed = {}  # item -> why
        self.rows = {}  # item -> [{(test, size): (us_min, us_median)}] per run, or soak seconds
        self.relays = {}  # item -> [[summary per relay]] per run
        self.jobs = {}  # item -> job file
        self.relay_pids = set()
        self.load_start = os.getloadavg()

    # --- setting up ---

    def setup(self):
        self.grid = benchlib.bench_grid(self.ctx, self.build, hosts=("localhost",))
        # mpirun runs as the account the gatekeepers map the user to: the emulated links' table
        # it makes (/dev/shm/strata-links-*, mode 0600) must be the ranks' to open.
        self.as_user = benchlib.as_account(benchlib.home_to_account(self.grid))
        for test in self.args.only:
            program = TESTS[test][0]
            if program not in self.programs:
                self.programs[program] = benchlib.build_published(self.grid, self.build, program, TIMEOUT)
        if self.args.setup == "ssh":
            return self.setup_ssh()
        for site in ("A", "B"):
            say(f"strata-gatekeeper of site {site}")
            self.gk[site] = self.grid.start("gk-" + site)

    def setup_ssh(self):
        """Sites s1 (A) and s2 (B): a login node each with sshd, a cluster behind it with Slurm."""
        grid, ctx = self.grid, self.ctx
        grid.slurm_scripts = os.path.join(ROOT, "tests", "integration", "launcher", "slurm")
        grid.slurm_task = grid.publish(os.path.join(self.build, "adapters", "strata-slurm-task"), "bin")
        self.prefix = os.path.dirname(os.path.dirname(grid.publish(grid.gatekeeper, "bin")))
        say("network namespaces")
        self.nets = benchlib.empty_namespaces()
        self.nets.__init__(ctx, compute=SSH_SITES)
        for k, site in enumerate(SSH_SITES):
            say(f"Slurm on {site}'s cluster")
            self.clusters[site] = Slurm(grid, netns=self.nets.ns(site + "c"), address=self.nets.compute_addr[site],
                                        port=16827 + 10 * k)
            os.chmod(self.clusters[site].dir, 0o755)
        say("sshd at " + ", ".join(SSH_SITES))
        self.logins = SshLogins(ctx, self.nets, list(SSH_SITES),
                                environment={"PATH": f"{self.prefix}/bin:/usr/local/bin:/usr/bin:/bin"},
                                # A cluster is one node of this machine's 2 cores: without --overcommit, Slurm
                                # would want 2 nodes for 4 tasks and keep the job pending.
                                site_environment={s: {**c.env, "STRATA_SLURM_SBATCH_ARGS": "--overcommit"}
                                                  for s, c in self.clusters.items()})
        # mpirun runs as the account: its own copies of the key, known hosts and client config.
        ids = pwd.getpwnam(self.logins.account)
        own = os.path.join(self.logins.home, ".ssh")
        key, known = os.path.join(own, "id_bench"), os.path.join(own, "known_hosts_bench")
        shutil.copyfile(self.logins.key, key)
        shutil.copyfile(self.logins.known_hosts, known)
        self.ssh_config = os.path.join(own, "config_bench")
        with open(self.logins.config) as f:
            text = f.read().replace(self.logins.key, key).replace(self.logins.known_hosts, known)
        with open(self.ssh_config, "w") as f:
            f.write(text)
        for path in (key, known, self.ssh_config):
            os.chmod(path, 0o600)
            os.chown(path, ids.pw_uid, ids.pw_gid)
        self.as_user = ["ip", "netns", "exec", self.nets.ns("user"), *benchlib.as_account(ids)]
        self.env = {"HOME": self.logins.home, "STRATA_SSH": f"ssh -F {self.ssh_config}"}

    # --- the jobs ---

    def arguments(self, test, route, net):
        impl = f"{route}-{net}"
        if test == "pingpong":
            # On the wide area a 4 MiB round trip takes 0.73 s: one repetition per trial.
            timing = ["--trials", "3", "--max-reps", "1"] if net == "wan" else ["--trials", "5"]
            return ["--impl", impl, "--sizes", ",".join(str(s) for s in self.args.sizes), *timing]
        if test == "alltoall":
            timing = ["--trials", "3", "--max-reps", "4"] if net == "wan" else ["--trials", "5"]
            return ["--impl", impl, "--ops", "alltoall", "--sizes", ",".join(str(s) for s in self.args.coll_sizes),
                    *timing]
        return ["--impl", impl, "--messages", str(self.args.soak_messages)]

    def job_file(self, item):
        test, route, net = item
        program, count = TESTS[test][:2]
        a, b, _ = ROUTES[route]
        lines = [f"executable: {self.programs[program]}",
                 "arguments: [" + ", ".join(f"'{w}'" for w in self.arguments(*item)) + "]",
                 f"directory: {self.grid.shared}"]
        if self.args.setup == "ssh":
            lines.append(f"strata: {self.prefix}")
        if self.args.env:
            lines.append("environment: {" + ", ".join(f"{k}: '{v}'" for k, v in self.args.env.items()) + "}")
        if net == "wan":
            lines.append("network: {wan: {latency_ms: 10, bandwidth_mbit: 100}}")
        lines.append("subjobs:")
        for k, (site, network) in enumerate((("A", a), ("B", b))):
            if self.args.setup == "ssh":  # a private site's ranks run on its cluster, a public one's on its login node
                contact = SSH_SITES[k] + ("/ssh+slurm" if network == "private" else "/ssh")
                lines.append(f"  - {{contact: '{contact}', count: {count}, site: {site}, network: {network}}}")
            else:
                lines.append(f"  - {{contact: '{self.gk[site].contact}', count: {count}, site: {site}, "
                             f"host: h{site}, network: {network}}}")
        return self.ctx.file(f"{test}-{route}-{net}.yaml", "\n".join(lines) + "\n")

    def command(self, item):
        return [*self.as_user, self.ctx.mpirun, "-v", "-jobfile", self.jobs[item]]

    # --- running ---

    def plan(self):
        for test in self.args.only:
            _, _, routes, nets = TESTS[test]
            for net in nets:
                if net not in self.args.nets:
                    continue
                for route in routes:
                    if route == "hub" and self.args.setup != "ssh":
                        continue  # only namespaces can keep the login nodes apart
                    item = (test, route, net)
                    self.items.append(item)
                    self.jobs[item] = self.job_file(item)
                    self.rows[item] = []
                    self.relays[item] = []

    def ended(self):
        return {s: g.log_count(r"ended the relay$") for s, g in self.gk.items()}

    def run_once(self, item):
        """One run: (rows, relay summaries) or raises RuntimeError with why."""
        test, route, net = item
        a, b, _ = ROUTES[route]
        private = [s for s, n in (("A", a), ("B", b)) if n == "private"]
        before_end = self.ended()
        before_log = {s: len(g.log()) for s, g in self.gk.items()}
        env = dict(os.environ)
        env.update(self.grid.env())
        env.update(self.env)
        tables = shared_tables()
        try:
            # The hub: the sites' bridge ports isolated for the run, each still reaching mpirun.
            if route == "hub":
                self.nets.isolate(SSH_SITES)
            try:
                # SIGTERM first (grace): mpirun then ends the job and removes the emulated links' table.
                r, _ = benchlib.run_timed(self.command(item), env, TIMEOUT, grace=WAIT, cwd=self.grid.shared)
            finally:
                if route == "hub":
                    self.nets.isolate(SSH_SITES, on=False)
        except TimedOut:
            benchlib.kill_published(self.ctx)
            self.remove_tables(tables)
            raise RuntimeError(f"no end after {TIMEOUT} s (stopped)")
        if r.returncode != 0:
            benchlib.kill_published(self.ctx)
            raise RuntimeError(f"exit status {r.returncode}: {tail(r.stdout + r.stderr)}")
        # The route mpirun -v names.
        routes = [l for l in r.stderr.splitlines() if l.startswith("mpirun: routes: ")]
        want = {"direct": None, "one-relay": "A <-> B through A's relay",
                "two-relays": "A <-> B through both relays", "hub": "A <-> B through both relays"}[route]
        if want is None and routes or want is not None and not any(want in l for l in routes):
            raise RuntimeError(f"mpirun -v said {routes or 'no route line'}, not the route {route}")
        through_hub = "their link goes through mpirun" in r.stderr
        if through_hub != (route == "hub"):
            raise RuntimeError(f"the relays' link {'went' if through_hub else 'did not go'} through mpirun's hub "
                               f"on the route {route}")
        if self.args.setup == "ssh":
            # mpirun -v shows each site's gatekeeper log, the relay's lines among them.
            return self.parse(test, r.stdout), self.summaries_ssh(r.stderr, route, private)
        # Each private site's relay ends with its subjob; its summary is in the gatekeeper's log.
        deadline = time.monotonic() + WAIT
        while any(self.ended()[s] <= before_end[s] for s in private):
            if time.monotonic() > deadline:
                raise RuntimeError(f"a gatekeeper did not log its relay's end within {WAIT} s")
            time.sleep(0.02)
        found = {}
        for s in ("A", "B"):
            new = self.gk[s].log()[before_log[s]:]
            self.relay_pids.update(int(p) for p in re.findall(r"started the relay of this private site, pid (\d+)", new))
            found[s] = SUMMARY.findall(new)
        return self.parse(test, r.stdout), self.summaries(found, route, private, "in the gatekeeper's log",
                                                          "its gatekeeper ran a relay")

    def summaries_ssh(self, stderr, route, private):
        found = {}
        for k, s in enumerate(("A", "B")):
            lines = [l for l in stderr.splitlines() if l.startswith(f"mpirun: {SSH_SITES[k]}: ")]
            found[s] = [m.groups() for m in map(SUMMARY.search, lines) if m]
        return self.summaries(found, route, private, "in mpirun -v's output", "ran a relay")

    def summaries(self, found, route, private, where, public_relay):
        """The relays' summaries of one run from the SUMMARY matches `found` per site, checked:
        one for each private site, where each carried bytes, none for a public one."""
        summaries = []
        for s in ("A", "B"):
            if s in private and len(found[s]) != 1:
                raise RuntimeError(f"site {s}: {len(found[s])} relay summaries {where}, not 1")
            if s not in private and found[s]:
                raise RuntimeError(f"site {s} is public but {public_relay}")
            for f in found[s]:
                streams, from_ranks, to_ranks, peak, links = (int(x) for x in f)
                if from_ranks == 0:
                    raise RuntimeError(f"site {s}'s relay carried nothing")
                summaries.append({"site": s, "streams": streams, "from": from_ranks, "to": to_ranks, "peak": peak,
                                  "links": links})
        if len(summaries) != ROUTES[route][2]:
            raise RuntimeError(f"{len(summaries)} relays for route {route}")
        return summaries

    def parse(self, test, stdout):
        if test == "flood":
            rows = list(csv.reader(io.StringIO(stdout)))
            rows = [x for x in rows if len(x) == 6 and x[1] == "soak"]
            if len(rows) != 1 or int(rows[0][5]) != 0:
                raise RuntimeError(f"soak printed {tail(stdout)}")
            return {("soak", 0): (float(rows[0][3]) * 1e6, float(rows[0][3]) * 1e6)}
        got = {}
        for row in csv.DictReader(io.StringIO(stdout)):
            lo = row.get("oneway_us_min") or row.get("us_min")
            med = row.get("oneway_us_median") or row.get("us_median")
            got[(row["test"], int(row["size"]))] = (float(lo), float(med))
        want = self.args.sizes if test == "pingpong" else self.args.coll_sizes
        missing = [s for s in want if (("pingpong" if test == "pingpong" else "alltoall"), s) not in got]
        if missing:
            raise RuntimeError(f"no line for sizes {missing}: {tail(stdout)}")
        return got

    def run(self):
        self.plan()
        say("warm-up: " + ", ".join("/".join(i) for i in self.items))
        for item in list(self.items):
            try:
                self.run_once(item)
            except RuntimeError as e:
                say(f"{'/'.join(item)}: n/a: {e}")
                self.failed[item] = str(e)
                self.items.remove(item)
        for rnd, item in benchlib.rounds(self.items, self.args.runs, self.failed,
                                         lambda rnd: f"round {rnd + 1} of {self.args.runs} "
                                                     f"(load {os.getloadavg()[0]:.2f})"):
            try:
                rows, summaries = self.run_once(item)
            except RuntimeError as e:
                say(f"{'/'.join(item)}: failed: {e}")
                self.failed[item] = str(e)
                continue
            self.rows[item].append(rows)
            self.relays[item].append(summaries)
            if self.args.out:
                self.save(rnd, item, rows, summaries)

    def save(self, rnd, item, rows, summaries):
        os.makedirs(self.args.out, exist_ok=True)
        path = os.path.join(self.args.out, "raw.csv")
        new = not os.path.exists(path)
        with open(path, "a") as f:
            if new:
                f.write("round,test,route,net,what,size,us_min,us_median\n")
            for (what, size), (lo, med) in sorted(rows.items()):
                f.write(f"{rnd + 1},{','.join(item)},{what},{size},{lo},{med}\n")
            for s in summaries:
                f.write(f"{rnd + 1},{','.join(item)},relay-{s['site']}-peak,0,{s['peak']},{s['peak']}\n")

    def remove_tables(self, before):
        """Removes emulated links' tables (/dev/shm/strata-links-*) that appeared during a run whose
        mpirun was killed, and so could not remove its own."""
        for name in shared_tables() - before:
            try:
                os.unlink(os.path.join("/dev/shm", name))
            except FileNotFoundError:
                pass

    # --- the figures ---

    def figure(self, item, key, kind):
        """Min over runs of each run's min, or median of each run's median; None if not measured."""
        runs = self.rows.get(item) or []
        if item in self.failed or not runs:
            return None
        if kind == "min":
            return min(r[key][0] for r in runs)
        return statistics.median(r[key][1] for r in runs)

    def time_cells(self, test, net, size):
        """Per route of `test` on `net` at `size`: the median and the minimum (figure()), and the
        table's cells "median (min)" in us."""
        routes = self.routes(test)
        med = {r: self.figure((test, r, net), (test, size), "median") for r in routes}
        lo = {r: self.figure((test, r, net), (test, size), "min") for r in routes}
        return med, lo, [f"{us(med[r])} ({us(lo[r])})" if med[r] is not None else "n/a" for r in routes]

    def routes(self, test):
        """The routes of `test` this run measures, in TESTS' order."""
        return [r for r in TESTS[test][2] if any(item[:2] == (test, r) for item in self.rows)]

    def peaks(self, item, site):
        return [s["peak"] for run in self.relays.get(item, []) for s in run if s["site"] == site]

    # --- the end ---

    def stop(self):
        return benchlib.stop_all((("gatekeepers", lambda: self.grid is not None and self.grid.stop()),
                                  ("sshd and the account", lambda: self.logins and self.logins.stop()),
                                  ("Slurm", lambda: [c.stop() for c in self.clusters.values()]),
                                  ("processes", lambda: benchlib.kill_until_gone(self.leftovers)),
                                  ("namespaces", lambda: benchlib.remove_namespaces(self.nets))), self.ctx.tmp)

    def leftovers(self):
        """The run's processes: whatever names a file of ours, and the relays the gatekeepers
        started (by the pids they logged), if still there."""
        left = []
        for p in processes():
            if p.state == "Z":
                continue
            if self.ctx.tmp in p.cmdline or (p.pid in self.relay_pids and "--relay" in p.cmdline):
                left.append(p)
        return left

    # --- the report ---

    def report(self):
        out = []
        env = (", environment " + ", ".join(f"{k}={v}" for k, v in self.args.env.items())) if self.args.env else ""
        setup = {"loopback": "two TLS gatekeepers on loopback",
                 "ssh": "two ssh sites in network namespaces, private ranks on Slurm clusters behind the login nodes"}
        out.append(f"Setup: {setup[self.args.setup]}. {benchlib.conditions(self.build, self.load_start, ROOT)}{env}; "
                   f"{self.args.runs} runs per item after one warm-up, rounds interleaved; "
                   f"median of the runs' medians (minimum of their minimums)")
        out.append("")
        if "pingpong" in self.args.only:
            out += self.report_pingpong()
        if "alltoall" in self.args.only:
            out += self.report_alltoall()
        out += self.report_memory()
        out += self.report_targets()
        if self.failed:
            out.append("Not measured:")
            out.append("")
            for item, why in self.failed.items():
                out.append(f"- {'/'.join(item)}: {why}")
            out.append("")
        if self.args.setup == "ssh":
            out.append(f"Commands (this run's paths and namespaces; run as root, mpirun as the sites' account "
                       f"{self.logins.account}, with `HOME={self.logins.home}` and "
                       f"`STRATA_SSH='ssh -F {self.ssh_config}'`):")
        else:
            out.append("Commands (this run's paths; run as root, mpirun as `nobody` (uid 65534), the account the "
                       "gatekeepers map the user to, with `HOME` holding the CA, the user's certificate and trust, "
                       "`X509_*` empty):")
        out.append("")
        out.append("```sh")
        for item in self.jobs:
            out.append(f"# {'/'.join(item)}")
            out.append(" ".join(shlex.quote(a) for a in self.command(item)))
        out.append("```")
        shown = [i for i in self.jobs if i[1] == "two-relays" and (i[2] == "wan" or i[0] == "flood")]
        for item in shown:
            out += fenced(self.jobs[item], os.path.basename(self.jobs[item]), "yaml")
        if self.args.setup == "ssh":
            out += fenced(self.ssh_config, self.ssh_config, "")
        out.append("")
        out.append("The other job files differ only in `network:` of each subjob (public/private"
                   + (", and its contact: sN/ssh+slurm or sN/ssh" if self.args.setup == "ssh" else "")
                   + ") and in the top-level `network` key (absent when unshaped).")
        print("\n".join(out))
        if self.args.out:
            with open(os.path.join(self.args.out, "results.md"), "w") as f:
                f.write("\n".join(out) + "\n")

    def report_pingpong(self):
        out = []
        routes = self.routes("pingpong")
        for net in self.args.nets:
            out.append(f"**Ping-pong, {NETS[net]}**, 1 rank per site: one-way time (us), median (min); "
                       "bandwidth = size / median one-way time (MB/s) and its ratio to direct (from the "
                       "minimums in brackets)")
            out.append("")
            out.append("| size | " + " | ".join(f"{r} us" for r in routes) + " | "
                       + " | ".join(f"{r} MB/s" for r in routes) + " | "
                       + " | ".join(f"{r} / direct" for r in routes[1:]) + " |")
            out.append("|---" * (1 + 2 * len(routes) + len(routes) - 1) + "|")
            for size in self.args.sizes:
                med, lo, cells = self.time_cells("pingpong", net, size)
                cells += [f"{size / med[r]:.1f}" if med[r] and size else "-" for r in routes]
                cells += [ratio_cell(med, lo, r) if size and med[r] and med["direct"] else "-" for r in routes[1:]]
                out.append(f"| {human_size(size)} | " + " | ".join(cells) + " |")
            out.append("")
        return out

    def report_alltoall(self):
        out = []
        for net in self.args.nets:
            out.append(f"**MPI_Alltoall, {NETS[net]}**, 4 + 4 ranks: time per operation (us), median (min), "
                       "and direct / relayed (the relayed bandwidth as a fraction of direct)")
            out.append("")
            out.append("| block | direct us | two-relays us | direct / two-relays |")
            out.append("|---|---|---|---|")
            for size in self.args.coll_sizes:
                med, lo, cells = self.time_cells("alltoall", net, size)
                cells.append(ratio_cell(med, lo, "two-relays") if med["direct"] and med["two-relays"] else "-")
                out.append(f"| {human_size(size)} | " + " | ".join(cells) + " |")
            out.append("")
        return out

    def report_memory(self):
        out = ["**The relays' peak buffering** (`peak P bytes buffered` of each relay's summary at its exit): "
               "median and maximum over the runs; streams and links of the last run; the bound of "
               "docs/RELAYS.md for those (streams x 2 x 512 KiB + links x 2 x 64 KiB; control frames aside)", "",
               "| test | route | network | relay | streams | links | bytes from ranks | peak median | peak max "
               "| bound |", "|---|---|---|---|---|---|---|---|---|---|"]
        for item in self.jobs:
            if item[1] == "direct" or not self.relays.get(item):
                continue
            for site in ("A", "B"):
                peaks = self.peaks(item, site)
                if not peaks:
                    continue
                last = [s for s in self.relays[item][-1] if s["site"] == site][0]
                bound = last["streams"] * 2 * KWINDOW + last["links"] * 2 * KWRITEBATCH
                out.append(f"| {item[0]} | {item[1]} | {item[2]} | {site} | {last['streams']} | {last['links']} | "
                           f"{last['from']:,} | {int(statistics.median(peaks)):,} | {max(peaks):,} | {bound:,} |")
        out.append("")
        if "flood" in self.args.only:
            d, r = ("flood", "direct", "unshaped"), ("flood", "two-relays", "unshaped")
            dm, rm = self.figure(d, ("soak", 0), "median"), self.figure(r, ("soak", 0), "median")
            if dm and rm:
                out.append(f"Flood (soak, {self.args.soak_messages} messages per rank, 4 + 4 ranks, unshaped): "
                           f"{dm / 1e6:.3f} s direct, {rm / 1e6:.3f} s through two relays (median; "
                           f"{self.figure(d, ('soak', 0), 'min') / 1e6:.3f} and "
                           f"{self.figure(r, ('soak', 0), 'min') / 1e6:.3f} s minimum).")
                out.append("")
        return out

    def report_targets(self):
        out = []
        if "pingpong" not in self.args.only:
            return out
        out.append("**Targets**")
        out.append("")
        out.append("| target | figure | goal | verdict |")
        out.append("|---|---|---|---|")
        if "wan" in self.args.nets:
            for r in ("one-relay", "two-relays"):
                ratios = []  # (direct / relayed one-way median, size)
                for size in self.args.sizes:
                    if size < 64 << 10:
                        continue
                    d = self.figure(("pingpong", "direct", "wan"), ("pingpong", size), "median")
                    x = self.figure(("pingpong", r, "wan"), ("pingpong", size), "median")
                    if d and x:
                        ratios.append((d / x, size))
                worst = min(ratios) if ratios else None
                if worst is None:
                    out.append(f"| wide-area bandwidth {r} / direct, 64 KiB up | n/a | >= 0.90 | n/a |")
                else:
                    out.append(f"| wide-area bandwidth {r} / direct, 64 KiB up (lowest) | {worst[0]:.3f} at "
                               f"{human_size(worst[1])} | >= 0.90 | {'met' if worst[0] >= 0.9 else 'missed'} |")
        if "unshaped" in self.args.nets:
            for r in ("one-relay", "two-relays"):
                n = ROUTES[r][2]
                for size in (0, 8):
                    if size not in self.args.sizes:
                        continue
                    d = self.figure(("pingpong", "direct", "unshaped"), ("pingpong", size), "median")
                    x = self.figure(("pingpong", r, "unshaped"), ("pingpong", size), "median")
                    dl = self.figure(("pingpong", "direct", "unshaped"), ("pingpong", size), "min")
                    xl = self.figure(("pingpong", r, "unshaped"), ("pingpong", size), "min")
                    if d is None or x is None:
                        out.append(f"| latency per relay, {r}, {size} B | n/a | <= 20 us | n/a |")
                        continue
                    added = (x - d) / n
                    out.append(f"| latency per relay, {r}, {size} B: ({us(x)} - {us(d)}) / {n} | {added:.1f} us "
                               f"(minimums: {(xl - dl) / n:.1f}) | <= 20 us | {'met' if added <= 20 else 'missed'} |")
        out.append("")
        return out


def ratio_cell(med, lo, route):
    """The cell "direct / route" of the medians (of the minimums)."""
    return f"{med['direct'] / med[route]:.3f} ({lo['direct'] / lo[route]:.3f})"


def shared_tables():
    try:
        return {n for n in os.listdir("/dev/shm") if n.startswith("strata-links-")}
    except FileNotFoundError:
        return set()


def parse_sizes(text, option, ap):
    sizes = []
    for word in text.split(","):
        size = benchlib.size_of(word)
        if size is None:
            ap.error(f"{option}: bad size '{word}' (example: 0,8,1K,64K,1M)")
        sizes.append(size)
    return sizes


def parse(argv):
    ap = benchlib.argument_parser("tools/bench/relay.py", __doc__)
    ap.add_argument("--setup", choices=("loopback", "ssh"), default="loopback",
                    help="where the sites are (default: %(default)s)")
    ap.add_argument("--runs", metavar="N", type=int, default=5,
                    help="timed runs per item, after one warm-up (default: %(default)s)")
    ap.add_argument("--only", metavar="TESTS", default=",".join(TESTS),
                    help="tests, comma-separated, from " + ", ".join(TESTS) + " (default: all)")
    ap.add_argument("--nets", metavar="NETS", default=",".join(NETS),
                    help="networks, from " + ", ".join(NETS) + " (default: both)")
    ap.add_argument("--sizes", metavar="LIST", default="0,8,1K,64K,256K,1M,4M",
                    help="ping-pong sizes (default: %(default)s)")
    ap.add_argument("--coll-sizes", metavar="LIST", default="8,1K,64K",
                    help="all-to-all blocks (default: %(default)s)")
    ap.add_argument("--soak-messages", metavar="N", type=int, default=5000,
                    help="messages each rank sends in the flood (default: %(default)s)")
    ap.add_argument("--env", metavar="NAME=VALUE,...", default="",
                    help="environment of every rank (the job file's environment), e.g. STRATA_TCP_STREAMS=2")
    ap.add_argument("--out", metavar="DIR", help="also write results.md and raw.csv (every run's lines) there")
    args = ap.parse_args(argv)
    args.only = benchlib.names_of(ap, args.only, TESTS, "--only", ("test", "tests"))
    args.nets = benchlib.names_of(ap, args.nets, NETS, "--nets", ("network", "networks"))
    args.sizes = parse_sizes(args.sizes, "--sizes", ap)
    args.coll_sizes = parse_sizes(args.coll_sizes, "--coll-sizes", ap)
    env = {}
    for word in filter(None, (w.strip() for w in args.env.split(","))):
        name, eq, value = word.partition("=")
        if not eq or not re.fullmatch(r"[A-Z_][A-Z0-9_]*", name) or "'" in value:
            ap.error(f"--env: write NAME=VALUE,..., e.g. STRATA_TCP_STREAMS=2, not '{word}'")
        env[name] = value
    args.env = env
    benchlib.check_runs(ap, args)
    if args.out:
        args.out = os.path.abspath(args.out)
        if os.path.exists(os.path.join(args.out, "raw.csv")):
            ap.error(f"--out {args.out}: raw.csv is there already; name a new directory")
    return args


def preflight(args):
    benchlib.need_root("the gatekeepers run the ranks and relays as nobody")
    needed = ["launcher/mpirun", "tools/mpicc", "tools/strata-ca/strata-ca", "gatekeeper/strata-gatekeeper", "mpi"]
    if args.setup == "ssh":
        needed.append("adapters/strata-slurm-task")
    benchlib.need_build(args.build, needed)


if __name__ == "__main__":
    sys.exit(benchlib.main(Bench, parse(sys.argv[1:]), preflight))
