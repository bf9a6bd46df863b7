#!/usr/bin/env python3
"""ssh_start: how long a trivial MPI job takes, from launching the starter to its end, when its
ranks run at 1, 2 or 3 sites, on one machine whose sites are network namespaces.

Every rank calls MPI_Init, then MPI_Finalize, and exits (init_finalize.c, built with each MPI's
own wrapper). 2 ranks per site. The sites s1, s2, s3 are network namespaces on one bridge, each
with OpenSSH's sshd on port 22 for an unprivileged account made for the run (the test fixtures
strata_test.grid.Namespaces and strata_test.ssh.SshLogins); the starter runs as root in a fourth
namespace, the user's, and reaches the sites through one ssh client config (ssh -F CONFIG, a key
without pass phrase, known host keys). Cases (--only):

  netns          ip netns exec USER /bin/true: the floor every other row includes
  ssh-login      ssh -F CONFIG SITE true at each site at once (one login per site, handshake
                 and all): what "plus the ssh handshake" means at that many sites
  strata-ssh     Strata's mpirun, contacts SITE/ssh, STRATA_SSH="ssh -F CONFIG"; the job key
                 `strata` names a copy of strata-gatekeeper the account can run
  strata-ssh-cm  the same after a first job opened ControlMaster connections (ControlPersist):
                 every timed job reuses them, no new login at any site
  strata-tls     Strata's mpirun, contacts ADDR/fork: a root strata-gatekeeper on port 2119 in
                 each site's namespace (TLS, certificates from strata-ca, mapped to nobody)
  hydra-ssh      MPICH's mpiexec.mpich -launcher ssh, HYDRA_LAUNCHER_EXTRA_ARGS="-F CONFIG",
                 -localhost USER-ADDRESS (hydra_pmi_proxy from the login's PATH)
  openmpi-ssh    Open MPI's mpirun.openmpi --mca plm rsh, the agent a script running ssh -F CONFIG
                 that gives each site its own TMPDIR and shared-memory directory, as separate
                 machines have (orted from the login's PATH)

Each (case, sites) is run once untimed (the warm-up, which also checks that the ranks ran at
the sites: new logins in each sshd's log, a finished subjob in each gatekeeper's log), then
--runs times, the order of the pairs rotating each round so that drift of the machine hits
them alike. Prints a markdown table (median and minimum in ms, the median as a ratio of
strata-ssh's at the same sites) and the exact commands, job files and ssh configs used.
A case that fails is n/a with its error; the others go on. Everything the run made
(namespaces, sshd, the account, gatekeepers, ControlMaster connections, files) is removed at
the end, after a failure or Ctrl-C too.

usage: tools/bench/ssh_start.py [--build DIR] [--runs N] [--sites 1,2,3] [--only CASE,...]

Needs root, iproute2, openssh-server and -client; MPICH and Open MPI are optional (n/a).
Python 3 standard library only.
"""

import os
import platform
import shlex
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import benchlib  # noqa: E402  (it also puts tests/pylib on sys.path)
from benchlib import BenchCtx, TimedOut, fenced, say, tail  # noqa: E402
from strata_test.ssh import SSH, SSHD, SshLogins, processes  # noqa: E402

benchlib.PROG = "ssh_start"

SITES = ["s1", "s2", "s3"]
PPN = 2
TIMEOUT = 120  # seconds for one run; only ever reached by a hang
CASES = {
    "netns": "ip netns exec + /bin/true",
    "ssh-login": "ssh logins alone, one per site at once (ssh SITE true)",
    "strata-ssh": "Strata over ssh",
    "strata-ssh-cm": "Strata over ssh, ControlMaster open",
    "strata-tls": "Strata over TLS gatekeepers",
    "hydra-ssh": "MPICH Hydra over ssh",
    "openmpi-ssh": "Open MPI over ssh",
}
PER_SITES = ("ssh-login", "strata-ssh", "strata-ssh-cm", "strata-tls", "hydra-ssh", "openmpi-ssh")  # the others: once


class Bench:
    def __init__(self, args):
        self.args = args
        self.build = os.path.abspath(args.build)
        self.cases = args.only
        self.ctx = BenchCtx(self.build, "strata-ssh-bench.")
        self.grid = self.nets = self.logins = None
        self.programs = {}  # mpi -> published init_finalize
        self.items = []  # (case, sites): what runs
        self.failed = {}  # (case, sites) -> why
        self.times = {}  # (case, sites) -> [ms]
        self.logins_seen = {}  # (case, sites) -> new ssh logins per timed run (sshd logs)
        self.commands = {}  # case -> (env words, argv) of the largest site count
        self.notes = []
        self.reopened = 0  # ControlMaster connections found closed before a timed run

    # --- setting up ---

    def setup(self):
        ctx = self.ctx
        self.grid = benchlib.bench_grid(ctx, self.build, certificates="strata-tls" in self.cases)
        self.build_programs()
        self.prefix = os.path.dirname(os.path.dirname(self.grid.publish(self.grid.gatekeeper, "bin")))
        say("network namespaces")
        self.nets = benchlib.empty_namespaces()
        self.nets.__init__(ctx)
        say("sshd at " + ", ".join(SITES))
        self.logins = SshLogins(ctx, self.nets, SITES)
        self.cm_config = self.logins.controlmaster(os.path.join(ctx.tmp, "cm"))
        if "openmpi-ssh" in self.cases:
            self.ompi_agent = self.write_ompi_agent()
        if "strata-tls" in self.cases:
            for site in SITES[:max(self.args.sites)]:
                say(f"strata-gatekeeper at {site}")
                self.grid.ca("host", "--name", self.nets.addr[site])
                self.grid.start("gk-" + site, host=self.nets.addr[site], netns=self.nets.ns(site))

    def write_ompi_agent(self):
        """Open MPI's plm_rsh_agent: ssh -F CONFIG, giving each site a TMPDIR and a shared-memory
        backing directory of its own. The emulated sites share this machine's /tmp, /dev/shm and
        host name, so without them the orteds of different sites race to make the same session
        directory (/tmp/ompi.HOST.UID/jf.N: "File exists", the job fails) and ranks of different
        sites make the same vader_segment.HOST.UID.JOB.LOCALRANK files."""
        sites = os.path.join(self.ctx.tmp, "sites")
        os.mkdir(sites)
        os.chmod(sites, 0o755)
        for site in SITES:
            os.mkdir(os.path.join(sites, site))
            os.chmod(os.path.join(sites, site), 0o1777)  # as /tmp
        path = self.ctx.file("ompi-ssh", f"""#!/bin/sh
# plm_rsh_agent of tools/bench/ssh_start.py: called as AGENT [OPTIONS] HOST COMMAND...
opts=
while [ "${{1#-}}" != "$1" ]; do opts="$opts $1"; shift; done
host=$1
shift
dir={sites}/$host
exec {SSH} -F {self.logins.config} $opts "$host" \\
    "TMPDIR=$dir OMPI_MCA_btl_vader_backing_directory=$dir; export TMPDIR OMPI_MCA_btl_vader_backing_directory;" "$@"
""")
        os.chmod(path, 0o755)
        return path

    def build_programs(self):
        source = os.path.join(HERE, "init_finalize.c")
        out = os.path.join(self.ctx.tmp, "build")
        os.mkdir(out)
        wrappers = {
            # $ORIGIN/../mpi: the published libstrata, which every account can read.
            "strata": [os.path.join(self.build, "tools", "mpicc"), "-Wl,-rpath,$ORIGIN/../mpi"],
            "mpich": ["mpicc.mpich"],
            "openmpi": ["mpicc.openmpi"],
        }
        wanted = {"strata": ("strata-ssh", "strata-ssh-cm", "strata-tls"), "mpich": ("hydra-ssh",),
                  "openmpi": ("openmpi-ssh",)}
        for mpi, cc in wrappers.items():
            cases = [c for c in wanted[mpi] if c in self.cases]
            if not cases:
                continue
            exe = os.path.join(out, "init_finalize-" + mpi)
            why = None
            if shutil.which(cc[0]) is None:
                why = f"{cc[0]} not found"
            else:
                r = subprocess.run([cc[0], "-O2", source, "-o", exe, *cc[1:]], capture_output=True, text=True,
                                   timeout=TIMEOUT)
                if r.returncode != 0:
                    why = f"{' '.join(cc)} failed: {r.stderr.strip()}"
            if why is not None:
                for c in cases:
                    self.failed[(c, None)] = why
                continue
            self.programs[mpi] = self.grid.publish(exe, "bin")

    # --- the commands ---

    def site_list(self, n):
        return SITES[:n]

    def command(self, case, n):
        """(extra environment, argv) of one run of `case` at the first `n` sites."""
        user = ["ip", "netns", "exec", self.nets.ns("user")]
        sites = self.site_list(n)
        if case == "netns":
            return {}, [*user, "/bin/true"]
        if case == "ssh-login":
            # Every login in the background, then each one's status: the run fails if one did.
            logins = " ".join(f"{SSH} -F {shlex.quote(self.logins.config)} {s} true & p{i}=$!;"
                              for i, s in enumerate(sites))
            waits = " && ".join(f"wait $p{i}" for i in range(len(sites)))
            return {}, [*user, "sh", "-c", f"{logins} {waits}"]
        if case in ("strata-ssh", "strata-ssh-cm"):
            config = self.cm_config if case == "strata-ssh-cm" else self.logins.config
            job = self.job_file(case, n, [(f"{s}/ssh", s) for s in sites], strata=True)
            return {"STRATA_SSH": f"ssh -F {config}"}, [*user, self.ctx.mpirun, "-jobfile", job]
        if case == "strata-tls":
            job = self.job_file(case, n, [(f"{self.nets.addr[s]}/fork", s) for s in sites], strata=False)
            return self.grid.env(), [*user, self.ctx.mpirun, "-jobfile", job]
        if case == "hydra-ssh":
            # -launcher-exec is one file name (Hydra does not split it into words); the words
            # after ssh come from HYDRA_LAUNCHER_EXTRA_ARGS. -localhost: the address the
            # proxies call back, else mpiexec's host name, which /etc/hosts makes 127.0.0.1,
            # and that is each site's own loopback.
            return ({"HYDRA_LAUNCHER_EXTRA_ARGS": f"-F {self.logins.config}"},
                    [*user, "mpiexec.mpich", "-launcher", "ssh", "-launcher-exec", SSH,
                     "-hosts", ",".join(sites), "-ppn", str(PPN), "-n", str(PPN * n),
                     "-localhost", self.nets.addr["user"], self.programs["mpich"]])
        if case == "openmpi-ssh":
            # The agent is ssh -F CONFIG with a TMPDIR per site (write_ompi_agent).
            return {}, [*user, "mpirun.openmpi", "--allow-run-as-root", "--mca", "plm", "rsh",
                        "--mca", "plm_rsh_agent", self.ompi_agent,
                        "--host", ",".join(f"{s}:{PPN}" for s in sites), "-np", str(PPN * n),
                        self.programs["openmpi"]]
        raise ValueError(case)

    def job_file(self, case, n, subjobs, strata):
        lines = [f"executable: {self.programs['strata']}", f"directory: {self.grid.shared}"]
        if strata:
            lines.append(f"strata: {self.prefix}")
        lines.append("subjobs:")
        for contact, site in subjobs:
            lines.append(f"  - {{contact: '{contact}', count: {PPN}, site: {site}}}")
        return self.ctx.file(f"{case}-{n}.yaml", "\n".join(lines) + "\n")

    # --- running ---

    def plan(self):
        for case in CASES:
            if case not in self.cases:
                continue
            for n in (self.args.sites if case in PER_SITES else [1]):
                key = (case, n)
                if (case, None) in self.failed:
                    self.failed[key] = self.failed[(case, None)]
                    continue
                self.items.append(key)
                self.times[key] = []
        self.failed = {k: v for k, v in self.failed.items() if k[1] is not None}

    def run_once(self, key, warmup=False):
        case, n = key
        extra, argv = self.command(case, n)
        env = dict(os.environ)
        env.update(extra)
        if case in PER_SITES and n == max(self.args.sites) or case not in PER_SITES:
            self.commands[case] = (extra, argv)
        if case == "strata-ssh-cm" and not warmup:
            self.open_masters(self.site_list(n))  # the warm-up opened them, unless they expired
        before = self.accepted()
        try:
            r, seconds = benchlib.run_timed(argv, env, TIMEOUT)
        except TimedOut as e:
            self.sweep()
            return None, f"no end after {TIMEOUT} s (killed): " + tail(e.said, rules=True), None
        ms = seconds * 1000
        if r.returncode != 0:
            self.sweep()
            return None, f"exit status {r.returncode}: " + tail(r.stdout + r.stderr, rules=True), None
        after = self.accepted()
        return ms, None, {s: after[s] - before[s] for s in SITES}

    def accepted(self):
        """Per site, how many logins its sshd accepted so far."""
        return {s: self.logins.log(s).count("Accepted publickey") for s in SITES}

    def open_masters(self, sites):
        """Makes sure a ControlMaster connection is open to each site (untimed)."""
        for s in sites:
            if self.logins.ssh(s, config=self.cm_config, options=("-O", "check")).returncode != 0:
                self.reopened += 1
                r = self.logins.ssh(s, "true", config=self.cm_config)
                if r.returncode != 0:
                    raise RuntimeError(f"ssh -F {self.cm_config} {s} true failed: {r.stderr.strip()}")

    def where_check(self, key, logins, gk_before):
        """After the warm-up: did the ranks run at the sites?"""
        case, n = key
        sites = self.site_list(n)
        if case in ("ssh-login", "strata-ssh", "hydra-ssh", "openmpi-ssh"):
            missing = [s for s in sites if logins[s] < 1]
            if missing:
                return f"no ssh login at {', '.join(missing)}: the ranks did not run there"
        if case == "strata-tls":
            for s, g in zip(sites, self.grid.gatekeepers):
                if g.log().count("subjob DONE") <= gk_before[s]:
                    return f"the gatekeeper at {s} ran no subjob"
        return None

    def gk_done(self):
        return {s: g.log().count("subjob DONE") for s, g in zip(SITES, self.grid.gatekeepers)}

    def run(self):
        self.plan()
        say("warm-up: " + ", ".join(f"{c}@{n}" for c, n in self.items))
        for key in list(self.items):
            gk_before = self.gk_done() if key[0] == "strata-tls" else None
            ms, why, logins = self.run_once(key, warmup=True)
            if why is None:
                why = self.where_check(key, logins, gk_before)
            if why is not None:
                say(f"{key[0]} at {key[1]} site(s): n/a: {why}")
                self.failed[key] = why
                self.items.remove(key)
            elif key[0] == "strata-ssh-cm":
                self.notes.append(f"strata-ssh-cm at {key[1]} site(s): the warm-up, which opened the ControlMaster "
                                  f"connections to the sites that had none ({sum(logins.values())} new), "
                                  f"took {ms:.1f} ms")
        for _, key in benchlib.rounds(self.items, self.args.runs, self.failed,
                                      lambda rnd: f"round {rnd + 1} of {self.args.runs}"):
            ms, why, logins = self.run_once(key)
            if why is not None:
                say(f"{key[0]} at {key[1]} site(s): failed: {why}")
                self.failed[key] = why
                continue
            self.times[key].append(ms)
            self.logins_seen.setdefault(key, []).append(sum(logins.values()))

    def sweep(self):
        """After a failed run: ends the account's processes and the run's ssh clients (not the
        ControlMaster connections), so that the next run starts clean."""
        masters = [p.pid for p in processes() if p.exe == SSH and "[mux]" in p.cmdline]
        benchlib.kill(p.pid for p in processes() if p.state != "Z" and p.pid not in masters and (
            (self.logins.uid in p.uids and p.exe != SSHD) or (p.exe == SSH and self.ctx.tmp in p.cmdline)))

    # --- the end ---

    def stop(self):
        """Removes everything the run made; says what could not be removed."""
        return benchlib.stop_all((("gatekeepers", lambda: self.grid is not None and self.grid.stop()),
                                  ("sshd and the account", lambda: self.logins is not None and self.logins.stop()),
                                  ("processes", lambda: benchlib.kill_until_gone(self.leftovers)),
                                  ("namespaces", lambda: benchlib.remove_namespaces(self.nets))), self.ctx.tmp)

    def leftovers(self):
        """Processes of the run besides sshd: whatever names a file of ours on its command line."""
        return [p for p in processes() if self.ctx.tmp in p.cmdline and p.exe != SSHD and p.state != "Z"]

    # --- the report ---

    def report(self):
        out = []
        mine = benchlib.commit_of(os.path.dirname(self.build))
        out.append(f"{time.strftime('%Y-%m-%d %H:%M')}, {platform.system()} {platform.release()}, "
                   f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.2f} at the end, Strata {self.build} "
                   f"(its source tree at {mine}), {versions()}; {self.args.runs} timed runs per row after one warm-up, "
                   f"{PPN} ranks per site; from the starter's launch to its end, ms")
        out.append("")
        out.append("| case | sites | ranks | median ms | min ms | median / strata-ssh |")
        out.append("|---|---|---|---|---|---|")
        keys = [(c, n) for c in CASES if c in self.cases for n in (self.args.sites if c in PER_SITES else [1])]
        for case, n in keys:
            label = CASES[case]
            sites = str(n) if case in PER_SITES else "-"
            ranks = str(PPN * n) if case in PER_SITES else "-"
            t = self.times.get((case, n), [])
            if (case, n) in self.failed or not t:
                out.append(f"| {label} | {sites} | {ranks} | n/a | n/a | |")
                continue
            ref = self.times.get(("strata-ssh", n))
            ratio = ""
            if case in PER_SITES and ref and ("strata-ssh", n) not in self.failed:
                ratio = f"{statistics.median(t) / statistics.median(ref):.2f}"
            out.append(f"| {label} | {sites} | {ranks} | {statistics.median(t):.1f} | {min(t):.1f} | {ratio} |")
        out.append("")
        out.append("Every timed run, ms, in order: " + "; ".join(
            f"{c}@{n} " + " ".join(f"{ms:.1f}" for ms in t) for (c, n), t in self.times.items() if t) + ".")
        out.append("")
        if self.failed:
            out.append("Not measured:")
            out.append("")
            for (case, n), why in self.failed.items():
                out.append(f"- {case} at {n} site(s): {why}")
            out.append("")
        logins = [f"{c}@{n}: {statistics.median(v):g}" for (c, n), v in self.logins_seen.items()
                  if "ssh" in c and (c, n) not in self.failed]
        if logins:
            out.append("New logins in the sites' sshd logs per timed run (median): " + ", ".join(logins) + ".")
            out.append("")
        if "strata-ssh-cm" in self.cases:
            self.notes.append(f"ControlMaster connections found closed before a timed run (and reopened, "
                              f"untimed): {self.reopened}")
        for note in self.notes:
            out.append(f"- {note}")
        if self.notes:
            out.append("")
        out.append("Commands (this run's paths and namespace names; the largest site count):")
        out.append("")
        out.append("```sh")
        for case in CASES:
            if case in self.commands:
                extra, argv = self.commands[case]
                words = [f"{k}={shlex.quote(v) if v else ''}" for k, v in extra.items()]
                out.append(f"# {case}")
                out.append(" ".join(words + [shlex.quote(a) for a in argv]))
        out.append("```")
        shown = [c for c in ("strata-ssh", "strata-tls") if c in self.commands]
        for case in shown:
            job = self.commands[case][1][-1]
            out += fenced(job, os.path.basename(job), "yaml")
        if self.logins is not None and self.logins.config:
            paths = [self.logins.config, self.cm_config]
            if "openmpi-ssh" in self.commands:
                paths.append(self.ompi_agent)
            for path in paths:
                out += fenced(path, path, "")
        print("\n".join(out))


def versions():
    found = []
    for name, argv in (("MPICH", ["mpiexec.mpich", "--version"]), ("Open MPI", ["mpirun.openmpi", "--version"])):
        if shutil.which(argv[0]) is None:
            continue
        r = subprocess.run(argv, capture_output=True, text=True)
        for line in r.stdout.splitlines():
            words = line.split()
            if words and words[0] == "Version:" or "(Open MPI)" in line or "(OpenRTE)" in line:
                found.append(f"{name} {words[-1]}")
                break
    r = subprocess.run([SSH, "-V"], capture_output=True, text=True)
    found.append(r.stderr.strip().split(",")[0])
    return ", ".join(found)


def parse(argv):
    ap = benchlib.argument_parser("tools/bench/ssh_start.py", __doc__)
    ap.add_argument("--runs", metavar="N", type=int, default=10,
                    help="timed runs per case and site count, after one warm-up (default: %(default)s)")
    ap.add_argument("--sites", metavar="LIST", default="1,2,3", help="site counts, from 1,2,3 (default: %(default)s)")
    ap.add_argument("--only", metavar="CASES", default=",".join(CASES),
                    help="cases, comma-separated, from those below (default: all)")
    args = ap.parse_args(argv)
    args.sites = benchlib.site_counts(ap, args.sites, 3)
    args.only = benchlib.names_of(ap, args.only, CASES, "--only", ("case", "cases"))
    benchlib.check_runs(ap, args)
    return args


def preflight(args):
    benchlib.need_root("network namespaces, sshd, an account made for the run")
    for program in (SSHD, SSH, "/usr/bin/ssh-keygen"):
        if not os.access(program, os.X_OK):
            sys.exit(f"ssh_start: {program} is missing (Debian: openssh-server, openssh-client)")
    for program in ("ip", "useradd", "usermod", "userdel"):
        if shutil.which(program) is None:
            sys.exit(f"ssh_start: {program} is missing")
    benchlib.need_build(args.build, ("launcher/mpirun", "tools/mpicc", "tools/strata-ca/strata-ca",
                                     "gatekeeper/strata-gatekeeper", "mpi"))


if __name__ == "__main__":
    sys.exit(benchlib.main(Bench, parse(sys.argv[1:]), preflight))
