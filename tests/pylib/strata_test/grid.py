"""Grids on one machine for the integration tests: real strata-gatekeepers on loopback
(certificates from strata-ca in a fresh HOME), a private single-node Slurm, sites in
network namespaces, and grid_main, the main() of every grid test script.

Run as root, the gatekeepers map the user to the unprivileged account 'nobody' (so the
processes really change account); otherwise to the account running the test.
"""

import os
import pwd
import re
import shutil
import signal
import subprocess
import sys
import time

from strata_test.harness import GUARD, Ctx, check, run_scenario, scenario_parser

USER_DN = "/O=Strata Grid/OU=Users/CN=Jane Doe"


class Gatekeeper:
    def __init__(self, grid, name, gridmap, host="localhost", netns=None, adapters=("fork",), env=None, extra="",
                 user=None, relative=False):
        self.dir = os.path.join(grid.ctx.tmp, name)
        os.mkdir(self.dir)
        hosts = os.path.join(grid.home, ".strata", "hosts", host)
        certdir = grid.certdir
        program = grid.gatekeeper
        if user is not None:
            # Run as `user`: its own copies of the credential, the program and a directory.
            shutil.copytree(hosts, os.path.join(self.dir, "host"))
            shutil.copytree(certdir, os.path.join(self.dir, "certificates"))
            hosts, certdir = os.path.join(self.dir, "host"), os.path.join(self.dir, "certificates")
            program = grid.publish(grid.gatekeeper, "bin")
        with open(os.path.join(self.dir, "grid-mapfile"), "w") as f:
            f.write(gridmap)
        self.config = os.path.join(self.dir, "gatekeeper.yaml")
        with open(self.config, "w") as f:
            listen = "listen: 127.0.0.1\nport: 0" if netns is None else f"listen: {host}"  # there: port 2119
            f.write(f"{listen}\nca_dir: {certdir}\ncert: {hosts}/hostcert.pem\n"
                    f"key: {hosts}/hostkey.pem\ngridmap: grid-mapfile\n"
                    f"scratch: {'scratch' if relative else self.dir + '/scratch'}\n"
                    f"adapters: [{', '.join(adapters)}]\n{extra}")
        os.mkdir(os.path.join(self.dir, "scratch"))
        os.chmod(self.dir, 0o755)
        self.scratch = os.path.join(self.dir, "scratch")
        if user is not None:
            ids = pwd.getpwnam(user)
            for root, dirs, files in os.walk(self.dir):
                for entry in [root, *(os.path.join(root, f) for f in files)]:
                    os.chown(entry, ids.pw_uid, ids.pw_gid)
        self.log_path = os.path.join(self.dir, "log")
        port_file = os.path.join(self.dir, "port")
        with open(self.log_path, "w") as log:
            prefix = [] if netns is None else ["ip", "netns", "exec", netns]
            if user is not None:
                prefix = ["setpriv", f"--reuid={user}", f"--regid={pwd.getpwnam(user).pw_gid}", "--clear-groups"]
            # relative: named from the test's directory, in which the gatekeeper runs.
            config = os.path.relpath(self.config, grid.ctx.tmp) if relative else self.config
            self.proc = subprocess.Popen([*prefix, program, "-c", config, "--port-file", port_file],
                                         cwd=grid.ctx.tmp if relative else None,
                                         stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                         env=None if env is None else {**os.environ, **env})
        deadline = time.monotonic() + GUARD
        while not os.path.exists(port_file):
            check(self.proc.poll() is None, f"gatekeeper {name} exited at start:\n{self.log()}")
            check(time.monotonic() < deadline, f"gatekeeper {name} did not start")
            time.sleep(0.02)
        with open(port_file) as f:
            self.port = int(f.read())
        self.contact = f"{host}:{self.port}/fork"

    def log(self):
        with open(self.log_path) as f:
            return f.read()

    def expect_log(self, pattern):
        # The gatekeeper may log an event just after mpirun saw its effect.
        deadline = time.monotonic() + GUARD
        while re.search(pattern, self.log(), re.M) is None and time.monotonic() < deadline:
            time.sleep(0.05)
        check(re.search(pattern, self.log(), re.M) is not None, f"gatekeeper log should match /{pattern}/:\n{self.log()}")

    def log_count(self, pattern):
        return len(re.findall(pattern, self.log(), re.M))

    def expect_log_count(self, pattern, n):
        """Waits for the n-th log line matching `pattern`; there must be no more than n."""
        deadline = time.monotonic() + GUARD
        while self.log_count(pattern) < n and time.monotonic() < deadline:
            time.sleep(0.05)
        check(self.log_count(pattern) == n, f"gatekeeper log should match /{pattern}/ {n} times:\n{self.log()}")

    def signal_and_expect(self, sig, pattern):
        """Sends `sig` and waits for one more log line matching `pattern` than there was before."""
        n = self.log_count(pattern) + 1
        self.proc.send_signal(sig)
        self.expect_log_count(pattern, n)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=GUARD)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class Grid:
    def __init__(self, ctx, args):
        self.ctx = ctx
        self.gatekeeper = os.path.abspath(args.gatekeeper)
        self.strata_ca = os.path.abspath(args.strata_ca)
        self.slurm_scripts = os.path.abspath(args.slurm_scripts)
        self.ring_source = os.path.abspath(args.ring)
        self.home = os.path.join(ctx.tmp, "home")
        os.mkdir(self.home)
        self.certdir = os.path.join(self.home, ".strata", "certificates")
        self.account = "nobody" if os.geteuid() == 0 else pwd.getpwuid(os.geteuid()).pw_name
        # Processes may run as another account: give them a directory they can write.
        self.shared = os.path.join(ctx.tmp, "shared")
        os.mkdir(self.shared)
        os.chmod(self.shared, 0o777)
        os.chmod(ctx.tmp, 0o755)
        # The account may not be able to read the build tree: the programs it
        # runs are copied out, keeping their layout ($ORIGIN/../mpi finds libstrata).
        self.fake_rank = self.publish(ctx.fake_rank, "bin")
        self.ring = self.publish(os.path.abspath(args.ring), "bin")
        self.alltoall = self.publish(os.path.abspath(args.alltoall), "t/x")
        # Where the integration test programs are built (publish() those a scenario runs).
        self.built = os.path.dirname(os.path.abspath(args.alltoall))
        self.slurm_task = self.publish(os.path.abspath(args.slurm_task), "bin")
        libdir = os.path.join(os.path.dirname(os.path.dirname(self.ring_source)), "mpi")
        for name in os.listdir(libdir):
            if name.startswith("libstrata.so") and os.path.isfile(os.path.join(libdir, name)):
                self.publish(os.path.join(libdir, name), "mpi")
        self.ca("create-ca")
        self.ca("host", "--name", "localhost")
        self.ca("user", "--name", "Jane Doe")
        self.gatekeepers = []

    def publish(self, path, sub):
        """A copy of `path` in a directory any account can read."""
        where = os.path.join(self.ctx.tmp, "pub", sub)
        os.makedirs(where, exist_ok=True)
        walk = where
        while walk != self.ctx.tmp:
            os.chmod(walk, 0o755)
            walk = os.path.dirname(walk)
        target = os.path.join(where, os.path.basename(path))
        if os.path.exists(target):  # once: a running copy cannot be replaced
            return target
        shutil.copy2(path, target, follow_symlinks=True)
        os.chmod(target, 0o755)
        return target

    def env(self, home=None):
        return {"HOME": home or self.home, "X509_USER_CERT": "", "X509_USER_KEY": "", "X509_CERT_DIR": "",
                "X509_USER_PROXY": ""}

    def ca(self, *args, home=None):
        env = dict(os.environ)
        env.update(self.env(home))
        r = subprocess.run([self.strata_ca, *args], capture_output=True, text=True, env=env, timeout=GUARD)
        check(r.returncode == 0, f"strata-ca {' '.join(args)} failed:\n{r.stderr}")

    def other_user(self, name):
        """A home of its own for another user of this grid's CA: a certificate for `name`
        and trust in the CA. Returns the home and the user's .strata directory."""
        home = os.path.join(self.ctx.tmp, "home-" + name.replace(" ", "-"))
        os.mkdir(home)
        shutil.copytree(self.certdir, os.path.join(home, ".strata", "certificates"))
        strata = os.path.join(home, ".strata")
        self.ca("user", "--name", name, "--out", strata)
        return home, strata

    def start(self, name, gridmap=None, host="localhost", netns=None, adapters=("fork",), env=None, extra="",
              user=None, relative=False):
        g = Gatekeeper(self, name, gridmap if gridmap is not None else f'"{USER_DN}" {self.account}\n', host, netns,
                       adapters, env, extra, user, relative)
        self.gatekeepers.append(g)
        return g

    def stop(self):
        for g in self.gatekeepers:
            g.stop()

    def job(self, name, subjobs, arguments, executable=None):
        """A YAML job file; subjobs are (contact, count[, executable[, site]])."""
        lines = [f"executable: {executable or self.fake_rank}",
                 "arguments: [" + ", ".join(f'"{a}"' for a in arguments) + "]",
                 f"directory: {self.shared}", "subjobs:"]
        for s in subjobs:
            lines += [f"  - contact: {s[0]}", f"    count: {s[1]}"]
            if len(s) > 2 and s[2]:
                lines.append(f"    executable: {s[2]}")
            if len(s) > 3:
                lines.append(f"    site: {s[3]}")
        return self.ctx.file(name, "\n".join(lines) + "\n")

    def private_files(self, input_text):
        """The fake rank as `app` and `input_text` as `input.dat` in a directory only root can
        read (a site's account cannot): what a job stages. Returns their paths."""
        private = os.path.join(self.ctx.tmp, "private")
        os.mkdir(private, 0o700)
        program = os.path.join(private, "app")
        shutil.copy2(self.fake_rank, program)
        data = os.path.join(private, "input.dat")
        with open(data, "w") as f:
            f.write(input_text)
        return program, data

    def run(self, args, stdin_text=None, home=None):
        return self.ctx.run(args, stdin_text=stdin_text, env_extra=self.env(home))

    def popen(self, args, env_extra=None):
        env = dict(os.environ)
        env.update(self.env())
        env.update(env_extra or {})
        # The signals a test sends must reach mpirun even if this test runs
        # with them ignored (nohup, a background job): mpirun keeps those.
        def default_signals():
            for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
                signal.signal(sig, signal.SIG_DFL)

        return subprocess.Popen([self.ctx.mpirun, *args], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=env, preexec_fn=default_signals)


def fake_args(ctx, *actions):
    return ctx.fake(*actions)[1:]  # the executable is the job file's


class Namespaces:
    """Three sites and the user, each in its own network namespace with its own address
    on one bridge (in a fifth namespace): nothing of the machine's own network changes.

    A site named in `compute` also gets a private cluster behind it: a namespace "<site>c"
    linked to the site's namespace alone (10.88.K.2, the site's end 10.88.K.1, its default
    route), which the site's namespace does not forward for. Its nodes reach their login node
    and nothing else; no other site reaches them (compute_addr[site]).

    `isolated`: the sites cannot reach each other at all (their bridge ports are isolated),
    only the user's namespace, and the user's namespace reaches every site: sites whose
    firewalls let in the user's ssh and nothing from another site."""

    def __init__(self, ctx, compute=(), isolated=False):
        self.tag = ctx.marker[-5:]
        self.names = []
        self.hub = self.add("hub")
        run_ip("-n", self.hub, "link", "add", "br0", "type", "bridge")
        run_ip("-n", self.hub, "link", "set", "br0", "up")
        self.addr = {}
        for k, name in enumerate(["s1", "s2", "s3", "user"]):
            ns = self.add(name)
            inside, outside = f"v{self.tag}{k}", f"h{self.tag}{k}"
            run_ip("link", "add", "name", inside, "netns", ns, "type", "veth", "peer", "name", outside, "netns", self.hub)
            run_ip("-n", self.hub, "link", "set", outside, "master", "br0", "up")
            self.addr[name] = f"10.77.0.{k + 1 if name != 'user' else 10}"
            run_ip("-n", ns, "addr", "add", self.addr[name] + "/24", "dev", inside)
            run_ip("-n", ns, "link", "set", inside, "up")
            run_ip("-n", ns, "link", "set", "lo", "up")
        if isolated:
            self.isolate(["s1", "s2", "s3"])
        self.compute_addr = {}
        for site in compute:
            self.add_compute(site)

    def isolate(self, sites, on=True):
        """Sites cut off from each other (their bridge ports isolated), each still reaching the
        user's namespace; on=False joins them again."""
        for site in sites:
            port = f"h{self.tag}{['s1', 's2', 's3'].index(site)}"
            r = subprocess.run(["bridge", "-n", self.hub, "link", "set", "dev", port, "isolated", "on" if on else "off"],
                               capture_output=True, text=True, timeout=GUARD)
            check(r.returncode == 0, f"bridge link set dev {port} isolated: {r.stderr.strip()}")

    def add_compute(self, site):
        k = ["s1", "s2", "s3"].index(site) + 1
        ns = self.add(site + "c")
        inside, outside = f"c{self.tag}{k}", f"g{self.tag}{k}"
        run_ip("link", "add", "name", inside, "netns", ns, "type", "veth", "peer", "name", outside, "netns",
               self.ns(site))
        run_ip("-n", self.ns(site), "addr", "add", f"10.88.{k}.1/24", "dev", outside)
        run_ip("-n", self.ns(site), "link", "set", outside, "up")
        self.compute_addr[site] = f"10.88.{k}.2"
        run_ip("-n", ns, "addr", "add", self.compute_addr[site] + "/24", "dev", inside)
        run_ip("-n", ns, "link", "set", inside, "up")
        run_ip("-n", ns, "link", "set", "lo", "up")
        run_ip("-n", ns, "route", "add", "default", "via", f"10.88.{k}.1")
        forward = subprocess.run(["ip", "netns", "exec", self.ns(site), "sysctl", "-n", "net.ipv4.ip_forward"],
                                 capture_output=True, text=True, timeout=GUARD).stdout.strip()
        check(forward == "0", f"{site}'s login node must not forward for its cluster (ip_forward={forward})")

    def add(self, name):
        ns = f"strata-{self.tag}-{name}"
        run_ip("netns", "add", ns)
        self.names.append(ns)
        return ns

    def ns(self, name):
        return f"strata-{self.tag}-{name}"

    def remove(self):
        for ns in reversed(self.names):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)


def run_ip(*args):
    r = subprocess.run(["ip", *args], capture_output=True, text=True, timeout=GUARD)
    check(r.returncode == 0, f"ip {' '.join(args)}: {r.stderr.strip()}")


class Slurm:
    """A private single-node Slurm for one scenario (skips where it cannot run)."""

    def __init__(self, grid, nodes=1, netns=None, address=None, port=None):
        """`nodes` > 1: nodes n1..nN, each its own slurmd on this machine. `netns`: the daemons
        run in that network namespace (a site's cluster behind its login node), on its loopback;
        jobs() and stop() reach them there. `address`: the daemons' address there instead of
        loopback, which a login node in another namespace reaches (one node). `port`: slurmctld's
        port (slurmd's the next), for a second cluster."""
        self.scripts = grid.slurm_scripts
        self.prefix = ["ip", "netns", "exec", netns] if netns else []
        env = {**os.environ, "STRATA_TEST_SLURM_NODES": str(nodes)}
        if address:
            env["STRATA_TEST_SLURM_ADDR"] = address
        if port:
            env["STRATA_TEST_SLURM_PORT"] = str(port)
        r = subprocess.run([*self.prefix, os.path.join(self.scripts, "start_slurm.sh")], capture_output=True,
                           text=True, timeout=GUARD * 2, env=env)
        if r.returncode == 77:
            print("SKIP: " + r.stderr.strip())
            sys.exit(77)
        check(r.returncode == 0, f"start_slurm.sh failed:\n{r.stdout}{r.stderr}")
        self.dir = r.stdout.strip().splitlines()[-1]
        self.env = {"SLURM_CONF": os.path.join(self.dir, "slurm.conf"), "STRATA_SLURM_TASK": grid.slurm_task}

    def jobs(self):
        r = subprocess.run([*self.prefix, "squeue", "-h", "-o", "%i %T"], capture_output=True, text=True, timeout=GUARD,
                           env={**os.environ, **self.env})
        return r.stdout.strip()

    def expect_no_jobs(self):
        deadline = time.monotonic() + GUARD
        while self.jobs() and time.monotonic() < deadline:
            time.sleep(0.2)
        check(self.jobs() == "", f"no Slurm job is left: {self.jobs()}")

    def stop(self):
        subprocess.run([*self.prefix, os.path.join(self.scripts, "stop_slurm.sh"), self.dir], capture_output=True,
                       timeout=GUARD, env={**os.environ, **self.env})


def when_ready(grid, job, ranks, act):
    """Runs mpirun on `job` (whose ranks print a line once ready, then sleep), calls
    act(mpirun) once `ranks` lines came, and returns how mpirun ended."""
    p = grid.popen(["-jobfile", job])
    try:
        for _ in range(ranks):
            check(p.stdout.readline() != "", "mpirun ended before every rank was ready")
        act(p)
    except BaseException:
        p.kill()
        p.wait()
        raise
    return finish(p)


def finish(p, timeout=GUARD):
    """Waits (bounded) for mpirun `p` to end, killing it if it does not, and returns how it ended."""
    try:
        out, err = p.communicate(timeout=timeout)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    return subprocess.CompletedProcess(p.args, p.returncode, out, err)


def grid_main(scenarios, more_options=(), prepare=None):
    """Parses the options of a grid test (those below and `more_options`), calls
    prepare(args), and runs the named scenario with a fresh Grid; returns the exit
    status for meson."""
    ap = scenario_parser(scenarios)
    for name in ("mpirun", "fake-rank", "gatekeeper", "strata-ca", "ring", "alltoall", "slurm-task", "slurm-scripts",
                 *more_options):
        ap.add_argument("--" + name, required=True)
    args = ap.parse_args()
    args.mpiexec = args.mpirun
    if prepare is not None:
        prepare(args)
    ctx = Ctx(args)
    grids = []

    def scenario():
        grids.append(Grid(ctx, args))
        scenarios[args.scenario](grids[0])

    return run_scenario(ctx, scenario, lambda: [g.stop() for g in grids])
