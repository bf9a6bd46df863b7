#!/usr/bin/env python3
"""Sites reached with ssh: sshd in each site's network namespace (strata_test.ssh), mpirun
in the user's namespace running the system's ssh client, a user-level strata-gatekeeper
started over each ssh session. No root-owned process of ours anywhere; every scenario
proves that nothing of the job is left at any site (no process of the account, nothing in
its home).

    ssh_sites_test.py SCENARIO [the options of gatekeeper_test.py]

Timeouts are only hang guards: no verdict depends on timing.
"""

import functools
import os
import pwd
import re
import signal
import subprocess
import sys
import time

from strata_test.grid import Namespaces, Slurm, fake_args, finish, grid_main, run_ip
from strata_test.harness import GUARD, check, expect_code, expect_nobody_left, expect_stderr
from strata_test.ssh import SshLogins, netns_id, processes, skip_unless_possible


class SshGrid:
    """Three sites s1..s3 behind sshd, the user's namespace for mpirun, and Strata published
    where the sites' account can run it (PREFIX/bin/strata-gatekeeper)."""

    def __init__(self, grid, slurm=False, ports=None, private=(), isolated=False):
        """`slurm`: a private Slurm behind s1's login node (in its namespace), which the
        logins reach through SLURM_CONF. `ports`: sshd's ports besides 22 (SshLogins).
        `private`: sites whose processes run on a cluster behind the login node that no
        other site reaches (Namespaces' compute namespaces), each with its own Slurm there
        (clusters[site]), which that site's logins reach through SLURM_CONF. `isolated`: the
        sites' login nodes cannot reach each other, only mpirun's namespace (Namespaces)."""
        skip_unless_possible()
        self.grid, self.ctx = grid, grid.ctx
        self.prefix = os.path.dirname(os.path.dirname(grid.publish(grid.gatekeeper, "bin")))
        self.nets = Namespaces(grid.ctx, compute=private, isolated=isolated)
        self.logins = self.slurm = None
        self.clusters = {}
        try:
            # Strata on the login's PATH too, for machine files (which have no `strata` key).
            env = {"PATH": f"{self.prefix}/bin:/usr/local/bin:/usr/bin:/bin"}
            if slurm:
                self.slurm = Slurm(grid, netns=self.nets.ns("s1"))
                os.chmod(self.slurm.dir, 0o755)
                env.update(self.slurm.env)
            for k, site in enumerate(private):
                cluster = Slurm(grid, netns=self.nets.ns(site + "c"), address=self.nets.compute_addr[site],
                                port=16827 + 10 * k)
                self.clusters[site] = cluster
                os.chmod(cluster.dir, 0o755)
            self.logins = SshLogins(grid.ctx, self.nets, ["s1", "s2", "s3"], environment=env, ports=ports,
                                    site_environment={s: c.env for s, c in self.clusters.items()})
        except BaseException:
            self.stop()
            raise

    def stop(self):
        if self.logins is not None:
            self.logins.stop()
        for cluster in [self.slurm, *self.clusters.values()]:
            if cluster is not None:
                cluster.stop()
        self.nets.remove()

    def env(self, config=None, extra=None):
        env = dict(os.environ)
        env.update(self.grid.env())
        env["STRATA_SSH"] = f"ssh -F {config or self.logins.config}"
        env.update(extra or {})
        return env

    def job(self, name, subjobs, arguments, executable=None, strata=True):
        """A YAML job; subjobs are (contact, count[, site]); strata: True (the published
        prefix), False (none: the login's PATH) or a prefix."""
        lines = [f"executable: {executable or self.grid.fake_rank}",
                 "arguments: [" + ", ".join(f'"{a}"' for a in arguments) + "]",
                 f"directory: {self.grid.shared}"]
        if strata:
            lines.append(f"strata: {self.prefix if strata is True else strata}")
        lines.append("subjobs:")
        for s in subjobs:
            lines.append(f"  - {{contact: '{s[0]}', count: {s[1]}" + (f", site: {s[2]}" if len(s) > 2 else "") + "}")
        return self.ctx.file(name, "\n".join(lines) + "\n")

    def mpirun(self, args, config=None):
        return ["ip", "netns", "exec", self.nets.ns("user"), self.ctx.mpirun, *args]

    def run(self, args, config=None):
        return subprocess.run(self.mpirun(args), stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              env=self.env(config), timeout=GUARD * 2)

    def popen(self, args, config=None, extra_env=None):
        return subprocess.Popen(self.mpirun(args), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=self.env(config, extra_env))

    def expect_nothing_left(self):
        """Within 60 s: no process of the job here or at any site, nothing in the account's home."""
        deadline = time.monotonic() + 60
        while (self.logins.leftovers() or self.ctx.leftovers()) and time.monotonic() < deadline:
            time.sleep(0.1)
        check(self.logins.leftovers() == [], f"processes left at the sites: {self.logins.leftovers()}")
        expect_nobody_left(self.ctx)
        check(self.logins.home_files() == [], f"files left in the account's home: {self.logins.home_files()}")


def fault_run(sg, p, ranks, fault):
    """Once the `ranks` ranks of the running job `p` (mpirun) said they are ready, `fault`:
    "interrupt" (Ctrl-C), "mpirun" (killed), "network" (s1's login node cut off the network
    until mpirun ends), "partition" (s1 and s2 cut off from each other, each still reaching
    mpirun) or the process at s1's login node whose command line contains it (killed);
    returns how mpirun ended."""
    veth = f"v{sg.nets.tag}0"  # s1's end of its link
    try:
        ready = [p.stdout.readline() for _ in range(ranks)]
        check(all(ready), f"every rank was ready before the fault ({fault}): {ready}")
        if fault == "interrupt":
            p.send_signal(signal.SIGINT)
        elif fault == "mpirun":
            p.kill()
        elif fault == "network":
            run_ip("-n", sg.nets.ns("s1"), "link", "set", veth, "down")
        elif fault == "partition":
            sg.nets.isolate(["s1", "s2"])
        else:
            s1 = netns_id(sg.nets.ns("s1"))
            victims = [q for q in processes() if q.netns == s1 and fault in q.cmdline]
            check(len(victims) == 1, f"one '{fault}' at s1: {[q.cmdline for q in victims]}")
            os.kill(victims[0].pid, signal.SIGKILL)
        return finish(p, timeout=GUARD * 2)
    except BaseException:
        p.kill()
        p.wait()
        raise
    finally:
        if fault == "network":
            run_ip("-n", sg.nets.ns("s1"), "link", "set", veth, "up")
        if fault == "partition":
            sg.nets.isolate(["s1", "s2"], on=False)


def say_failure(r):
    """Prints mpirun's failure line, for the log."""
    for line in r.stderr.splitlines():
        if " failed: " in line:
            print(line)


def with_ssh_grid(scenario, slurm=False, ports=None, private=(), isolated=False):
    @functools.wraps(scenario)
    def run(grid):
        sg = SshGrid(grid, slurm=slurm, ports=ports, private=private, isolated=isolated)
        try:
            scenario(sg)
        finally:
            sg.stop()

    return run


@with_ssh_grid
def three_sites(sg):
    """2 + 2 + 4 ranks at three ssh sites (by ssh host alias, user@address, address:port):
    the ring passes its message, every rank runs as the sites' account with its site's
    labels, and the ranks reach mpirun at the address each ssh session came from."""
    grid, ctx, nets = sg.grid, sg.ctx, sg.nets
    contacts = [("s1/ssh", 2, "site1"), (f"{sg.logins.account}@{nets.addr['s2']}/ssh+fork", 2, "site2"),
                (f"{nets.addr['s3']}:22/ssh", 4, "site3")]
    r = sg.run(["-v", "-l", "-jobfile", sg.job("ring.yaml", contacts, [], executable=grid.ring)])
    expect_code(r, 0)
    check("1 MB message passed around 8 ranks intact" in r.stdout, "the ring's own check", r)
    for line in r.stderr.splitlines():
        if "startup" in line or "MPI_Init phases" in line:
            print(line)
    # mpirun -v shows each site's gatekeeper log.
    expect_stderr(r, r"^mpirun: s1: .* strata-gatekeeper: \[1 ssh from 10\.77\.0\.10 '" + sg.logins.account +
                  r"'\] ssh login as '" + sg.logins.account + "'$")
    for rank, methods in ((0, "shm: 1; tcp: 2-7"), (2, "shm: 3; tcp: 0-1,4-7"), (4, "shm: 5-7; tcp: 0-3")):
        expect_stderr(r, rf"^\[{rank}\] strata: rank {rank}: methods: self: {rank}; {methods}$")
    job = sg.job("labels.yaml", contacts,
                 fake_args(ctx, "init", "print-env:USER", "print-labels:site", "print-labels:subjob", "finalize"))
    r = sg.run(["-l", "-jobfile", job])
    expect_code(r, 0)
    lines = sorted(r.stdout.splitlines())
    want = sorted([f"[{i}] USER={sg.logins.account}" for i in range(8)] +
                  [f"[{i}] site: site1 site1 site2 site2 site3 site3 site3 site3" for i in range(8)] +
                  [f"[{i}] subjob: 0 0 1 1 2 2 2 2" for i in range(8)])
    check(lines == want, f"every rank's lines (want {want})", r)
    sg.expect_nothing_left()


@with_ssh_grid
def formats(sg):
    """The same 1 + 2 + 2 ranks from a machine file (a plain host, which is started over ssh,
    and an ssh contact line; Strata from the login's PATH), from RSL, and from the YAML that
    -dumprsl's RSL came from."""
    grid, ctx, nets = sg.grid, sg.ctx, sg.nets
    args = fake_args(ctx, "init", "print-env:USER", "print-labels:site", "finalize")
    mf = ctx.file("machines", f"localhost\ns1 2\n{sg.logins.account}@{nets.addr['s2']}/ssh 2\n")
    r = sg.run(["-l", "-np", "5", "-machinefile", mf, grid.fake_rank, *args])
    expect_code(r, 0)
    users = sorted(l for l in r.stdout.splitlines() if "] USER=" in l and not l.startswith("[0]"))
    check(users == [f"[{i}] USER={sg.logins.account}" for i in range(1, 5)], "ranks 1-4 ran at the ssh sites", r)
    check(f"[0] site: localhost s1 s1 {nets.addr['s2']} {nets.addr['s2']}" in r.stdout, "the sites' labels", r)
    rsl = ctx.file("job.rsl", "+\n" + "".join(
        f"( &(resourceManagerContact=\"{c}\")(count={n})(executable=\"{grid.fake_rank}\")"
        f"(arguments={' '.join(chr(34) + a + chr(34) for a in args)})(directory=\"{grid.shared}\")"
        f"(strata=\"{sg.prefix}\"){site} )\n"
        for c, n, site in (("s1/ssh", 2, "(environment=(GLOBUS_LAN_ID a))"), ("s3/ssh+fork", 2, "(site=b)"))))
    r = sg.run(["-l", "-jobfile", rsl])
    expect_code(r, 0)
    check("[3] site: a a b b" in r.stdout and f"[3] USER={sg.logins.account}" in r.stdout, "the RSL job ran", r)
    dumped = sg.run(["-dumprsl", "-jobfile", rsl])
    expect_code(dumped, 0)
    check("(resourceManagerContact=\"s1/ssh+fork\")" in dumped.stdout and f"(strata=\"{sg.prefix}\")" in dumped.stdout,
          "-dumprsl keeps the ssh contact and the strata key", dumped)
    r = sg.run(["-l", "-jobfile", ctx.file("dumped.rsl", dumped.stdout)])
    expect_code(r, 0)
    check("[3] site: a a b b" in r.stdout, "the dumped RSL runs alike", r)
    sg.expect_nothing_left()


@with_ssh_grid
def staging_gencomm_network(sg):
    """What the gatekeeper path has, over ssh: the program and an input file staged to two ssh
    sites (from a directory their account cannot read) into a job directory of the account,
    removed afterwards; the communicator file mpirun writes (-gencomm) at every rank; the
    emulated wide area of the job file (network:) between the ssh sites."""
    ctx = sg.ctx
    program, data = sg.grid.private_files("staged line 1\n")
    args = ", ".join(f'"{x}"' for x in fake_args(ctx, "init", "print-cwd", "print-file:input.dat",
                                                   "print-env:STRATA_EMULATION", "print-commfile", "finalize"))
    job = ctx.file("stage.yaml", f"""\
executable: {program}
arguments: [{args}]
stage: [{data}]
network: {{wan: {{latency_ms: 1}}}}
subjobs:
  - {{contact: s1/ssh, count: 2, site: a}}
  - {{contact: s2/ssh, count: 1, site: b}}
""")
    r = sg.run(["-v", "-l", "-gencomm", "-jobfile", job])
    expect_code(r, 0)
    # The sites' last log lines, written after the subjob's end, still reach mpirun -v.
    for site in ("s1", "s2"):
        expect_stderr(r, rf"^mpirun: {site}: .* strata-gatekeeper: \[1 ssh from [0-9.]+ '{sg.logins.account}'\] "
                         rf"removed the job directory /tmp/strata-job-{sg.logins.account}-\w+$")
    uid = pwd.getpwnam(sg.logins.account).pw_uid
    for rank in range(3):
        lines = [l[4:] for l in r.stdout.splitlines() if l.startswith(f"[{rank}] ")]
        check(re.fullmatch(rf"cwd=/tmp/strata-job-{sg.logins.account}-\w+ owner={uid}", lines[0]) is not None,
              f"rank {rank} ran in a job directory of the account", r)
        check("input.dat: staged line 1" in lines, f"rank {rank} read the staged file", r)
        check(any(l.startswith("STRATA_EMULATION=") and "wan" in l for l in lines),
              f"rank {rank} runs with the job's emulated wide area", r)
        check('<intercomm name="a_b">' in "\n".join(lines), f"rank {rank} got the communicator file", r)
    left = [n for n in os.listdir("/tmp") if n.startswith(f"strata-job-{sg.logins.account}-")]
    check(left == [], f"the job directories are removed: {left}")
    sg.expect_nothing_left()


@with_ssh_grid
def refused(sg):
    """Each way an ssh start fails stops mpirun before any rank runs, naming the subjob, the
    host and ssh's own words: an unknown host key, a refused login, no Strata there, another
    Strata version there (both versions named)."""
    grid, ctx, nets = sg.grid, sg.ctx, sg.nets
    args = fake_args(ctx, "init", "print:ran {rank}", "finalize")
    # The site's host key is not in known_hosts.
    empty = ctx.file("known_hosts_empty", "")
    strict = ctx.file("ssh_config_strict", f"UserKnownHostsFile {empty}\nInclude {sg.logins.config}\n")
    r = sg.run(["-jobfile", sg.job("a.yaml", [("s1/ssh", 1)], args)], config=strict)
    check(r.returncode == 1 and r.stdout == "", "mpirun fails and nothing ran", r)
    say_failure(r)
    expect_stderr(r, r"^mpirun: subjob 0 \(site s1, contact s1/ssh\+fork\) failed: ssh to s1 failed: "
                     r".*Host key verification failed\.")
    # A login ssh refuses: an account with no key there.
    r = sg.run(["-jobfile", sg.job("b.yaml", [(f"nobody@{nets.addr['s2']}/ssh", 1)], args)])
    check(r.returncode == 1 and r.stdout == "", "mpirun fails and nothing ran", r)
    say_failure(r)
    expect_stderr(r, rf"failed: ssh to nobody@{re.escape(nets.addr['s2'])} failed: .*Permission denied")
    # No Strata where the job says it is.
    r = sg.run(["-jobfile", sg.job("c.yaml", [("s3/ssh", 1)], args, strata="/nonexistent/strata")])
    check(r.returncode == 1 and r.stdout == "", "mpirun fails and nothing ran", r)
    say_failure(r)
    expect_stderr(r, r"failed: no Strata at s3 \(.*/nonexistent/strata/bin/strata-gatekeeper.*\): put "
                     r"strata-gatekeeper on the login's PATH there")
    # Another Strata version there: a gatekeeper that only says Hello as 0.0.1.
    other = os.path.join(ctx.tmp, "other-strata")
    os.makedirs(os.path.join(other, "bin"))
    for d in (other, os.path.join(other, "bin")):
        os.chmod(d, 0o755)
    fake = os.path.join(other, "bin", "strata-gatekeeper")
    with open(fake, "w") as f:
        f.write("#!/usr/bin/python3\nimport struct, sys\nv = b'0.0.1'\n"
                "sys.stdout.buffer.write(struct.pack('<IBI', 4 + len(v), 14, len(v)) + v)\n"
                "sys.stdout.flush()\nsys.stdin.buffer.read()\n")
    os.chmod(fake, 0o755)
    version = subprocess.run([grid.gatekeeper, "--version"], capture_output=True, text=True,
                             timeout=GUARD).stdout.split()[-1]
    r = sg.run(["-jobfile", sg.job("e.yaml", [("s2/ssh", 1)], args, strata=other)])
    check(r.returncode == 1 and r.stdout == "", "mpirun fails and nothing ran", r)
    say_failure(r)
    expect_stderr(r, rf"failed: ssh site s2 runs Strata 0\.0\.1 but this mpirun is Strata {re.escape(version)}; use "
                     r"the same version at both ends; ending the job$")
    sg.expect_nothing_left()


@with_ssh_grid
def ssh_killed(sg):
    """The ssh client of one site killed mid-job: mpirun names the site and ends the job, and
    every process at every site is gone."""
    p = running_job(sg, "job.yaml")
    clients = [c for c in sg.logins.client_processes() if " s2 " in c + " "]
    if len(clients) != 1:
        p.kill()
        check(False, f"one ssh client for s2: {sg.logins.client_processes()}")
    os.kill(int(clients[0].split()[0]), 9)
    r = finish(p)
    check(r.returncode != 0, "mpirun fails the job", r)
    expect_stderr(r, r"^mpirun: subjob 1 \(site s2, contact s2/ssh\+fork\) failed: lost the ssh session to s2 before "
                     r"its gatekeeper reported the subjob's end \(ssh killed by signal 9\)")
    sg.expect_nothing_left()


def running_job(sg, name, extra_env=None):
    """mpirun on a 2 + 2-rank job at s1 and s2 whose ranks print a line once ready, then
    sleep; returns it once every rank is ready. `extra_env` goes to mpirun and the ranks."""
    job = sg.job(name, [("s1/ssh", 2), ("s2/ssh", 2)], fake_args(sg.ctx, "init", "print:ready {rank}", "sleep"))
    if extra_env:
        env = ", ".join(f'{k}: "{v}"' for k, v in extra_env.items())
        job = sg.ctx.file(name, open(job).read().replace("subjobs:", f"environment: {{{env}}}\nsubjobs:"))
    p = sg.popen(["-jobfile", job], extra_env=extra_env)
    try:
        for _ in range(4):
            if p.stdout.readline() == "":
                check(False, "mpirun ended before every rank was ready:\n" + p.stderr.read())
    except BaseException:
        p.kill()
        p.wait()
        raise
    return p


@with_ssh_grid
def gatekeeper_killed(sg):
    """SIGKILL of the user-level gatekeeper at s2: its ranks die with it, mpirun names the
    site and ends the job, and nothing is left anywhere."""
    p = running_job(sg, "job.yaml")
    s2 = netns_id(sg.nets.ns("s2"))
    gatekeepers = [q for q in processes() if q.netns == s2 and "strata-gatekeeper --stdio" in q.cmdline]
    check(len(gatekeepers) == 1, f"one gatekeeper at s2: {[q.cmdline for q in gatekeepers]}")
    os.kill(gatekeepers[0].pid, 9)
    r = finish(p)
    check(r.returncode != 0, "mpirun fails the job", r)
    expect_stderr(r, r"^mpirun: subjob 1 \(site s2, contact s2/ssh\+fork\) failed: lost the ssh session to s2 before "
                     r"its gatekeeper reported the subjob's end \(ssh exit status 255\)")
    sg.expect_nothing_left()


@with_ssh_grid
def network_cut(sg):
    """s2 cut off the network mid-job (its link down): within the peer timeout mpirun ends the
    job naming the site (ssh's keepalive, or the ranks' control connections), the ranks there
    end themselves and the gatekeeper with them; once the link is back nothing is left."""
    timeout = {"STRATA_PEER_TIMEOUT_S": "6"}
    p = running_job(sg, "job.yaml", timeout)
    veth = f"v{sg.nets.tag}1"  # s2's end of its link
    run_ip("-n", sg.nets.ns("s2"), "link", "set", veth, "down")
    try:
        r = finish(p, timeout=GUARD * 2)
    finally:
        run_ip("-n", sg.nets.ns("s2"), "link", "set", veth, "up")
    expect_code(r, 1)
    expect_stderr(r, r"^mpirun: (subjob 1 \(site s2, contact s2/ssh\+fork\) failed: |rank [23]('s| \(pid)).*; "
                     r"ending the job$")
    say_failure(r)
    sg.expect_nothing_left()


@with_ssh_grid
def interrupted(sg):
    """Ctrl-C (SIGINT) to mpirun: every site's subjob is cancelled in order and mpirun exits
    130; then SIGKILL of mpirun: its ssh clients die with it and the sites end their subjobs."""
    p = running_job(sg, "a.yaml")
    p.send_signal(2)
    r = finish(p)
    expect_code(r, 130)
    expect_stderr(r, r"^mpirun: interrupted by signal 2 \(Interrupt\); ending the job")
    sg.expect_nothing_left()
    p = running_job(sg, "b.yaml")
    p.kill()
    finish(p)
    sg.expect_nothing_left()
    check(sg.logins.client_processes() == [], f"ssh clients left: {sg.logins.client_processes()}")


def slurm_site(sg):
    """s1 runs its subjob through the Slurm behind its login node (/ssh+slurm), with the job's
    queue, project and wall time as sbatch's partition, account and time limit; a queue
    the cluster does not have stops mpirun before any rank runs, with sbatch's own words;
    Ctrl-C, a killed gatekeeper on the login node, a killed mpirun and the login node cut off
    the network each leave no process, no Slurm job and nothing in the account's home."""
    ctx, slurm = sg.ctx, sg.slurm
    args = fake_args(ctx, "init", "print-env:SLURM_JOB_PARTITION", "print:ready {rank}", "sleep")
    job = sg.job("slurm.yaml", [("s1/ssh+slurm", 2), ("s2/ssh", 1)], args)
    text = open(job).read().replace("subjobs:", "queue: debug\nmax_wall_time: 5\nsubjobs:")
    # GRAM's hostCount and maxMemory, as YAML keys: Slurm's nodes and memory per process at s1;
    # the fork site s2 has no scheduler to ask for memory, which mpirun says once.
    gram = text.replace("subjobs:", "host_count: 1\nmax_memory: 100\nsubjobs:")
    p = sg.popen(["-l", "-jobfile", ctx.file("slurm2.yaml", gram)])
    try:
        ready = [p.stdout.readline() for _ in range(6)]
        check(all(ready), f"mpirun ended before every rank was ready: {ready}\n" + (p.stderr.read() if
                                                                                  p.poll() is not None else ""))
        check("[0] SLURM_JOB_PARTITION=debug\n" in ready, f"rank 0 runs in a Slurm job of partition debug: {ready}")
        limits = subprocess.run([*slurm.prefix, "squeue", "-h", "-o", "%P %l %D %m"], capture_output=True,
                                text=True, timeout=GUARD, env={**os.environ, **slurm.env}).stdout.split()
        check(limits == ["debug", "5:00", "1", "100M"],
              f"the Slurm job's partition, time limit, nodes and memory per CPU: {limits}")
        p.send_signal(2)
    except BaseException:
        p.kill()
        p.wait()
        raise
    r = finish(p)
    expect_code(r, 130)
    expect_stderr(r, r"^mpirun: .*slurm2\.yaml:8:13: 'max_memory': memory is asked of Slurm; the fork adapter sets no "
                     r"limit \(accepted and ignored\)$")
    sg.expect_nothing_left()
    slurm.expect_no_jobs()
    # The gatekeeper on the login node killed, mpirun killed, the login node cut off the network:
    # the Slurm job ends each way.
    timeout = {"STRATA_PEER_TIMEOUT_S": "6"}
    cut = text.replace("subjobs:", 'environment: {STRATA_PEER_TIMEOUT_S: "6"}\nsubjobs:')
    for victim in ("strata-gatekeeper --stdio", "mpirun", "network"):
        p = sg.popen(["-l", "-jobfile", ctx.file("slurm-fault.yaml", cut)], extra_env=timeout)
        r = fault_run(sg, p, 6, victim)
        check(r.returncode != 0, f"mpirun fails the job ({victim} killed)", r)
        if victim == "network":
            expect_stderr(r, r"^mpirun: (subjob 0 \(site s1, contact s1/ssh\+slurm\) failed: |rank [01]('s| \(pid)).*; "
                             r"ending the job$")
            say_failure(r)
        sg.expect_nothing_left()
        slurm.expect_no_jobs()
    text = text.replace("queue: debug", "queue: nosuch")
    r = sg.run(["-jobfile", ctx.file("slurm3.yaml", text)])
    check(r.returncode != 0 and "ready" not in r.stdout, "mpirun fails and nothing ran", r)
    expect_stderr(r, r"^mpirun: cannot start '.*fake_rank' for rank 0 at s1/ssh\+slurm: sbatch refused the job: "
                     r"sbatch: error: invalid partition specified: nosuch")
    sg.expect_nothing_left()
    slurm.expect_no_jobs()


slurm_site = with_ssh_grid(slurm_site, slurm=True)


@with_ssh_grid
def wall_time(sg):
    """max_wall_time at a fork site: when it runs out the subjob fails with that reason and
    its processes are killed (the only scenario that waits: one minute)."""
    job = sg.job("wall.yaml", [("s1/ssh", 1), ("s2/ssh", 1)], fake_args(sg.ctx, "init", "print:ready {rank}",
                                                                        "sleep"))
    text = open(job).read()
    text = text.replace("  - {contact: 's2/ssh', count: 1}", "  - {contact: 's2/ssh', count: 1, max_wall_time: 1}")
    p = sg.popen(["-jobfile", sg.ctx.file("wall2.yaml", text)])
    r = finish(p, timeout=150)
    check(r.returncode == 1, "mpirun fails the job", r)
    expect_stderr(r, r"^mpirun: subjob 1 \(site s2, contact s2/ssh\+fork\) failed: its wall time of 1 minute\(s\) ran "
                     r"out; ending the job$")
    sg.expect_nothing_left()

def readme(sg):
    """README's "From nothing to a 2-site job", the shell block as written, run by sh in the
    user's namespace. Only what names another machine's things is mapped: the hosts
    anl.example.org and uc.example.org are s1 and s2 in the ssh client's configuration (`ssh`
    on the PATH runs the system client with it, for the block and for mpirun alike), s2's sshd
    listens on port 2222 too, and the account jdoe, /home/jane/ring and /opt/strata become the
    test's account, the ring example and the published Strata."""
    grid, ctx, nets = sg.grid, sg.ctx, sg.nets
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "README.md")) as f:
        text = f.read()
    start = text.index("From nothing to a 2-site job:")
    begin = text.index("```sh\n", start) + len("```sh\n")
    block = text[begin:text.index("\n```", begin)]
    for old, new in (("jdoe@", sg.logins.account + "@"), ("/home/jane/ring", grid.ring),
                     ("/opt/strata", sg.prefix)):
        check(old in block, f"the README's block names {old}:\n{block}")
        block = block.replace(old, new)
    config = ctx.file("readme_ssh_config", f"""\
Host anl.example.org
    HostName {nets.addr['s1']}
Host uc.example.org
    HostName {nets.addr['s2']}
Host *
Include {sg.logins.config}
""")
    bin_dir = os.path.join(ctx.tmp, "readme-bin")
    os.mkdir(bin_dir)
    wrapper = os.path.join(bin_dir, "ssh")
    with open(wrapper, "w") as f:
        f.write(f"#!/bin/sh\nexec /usr/bin/ssh -F {config} \"$@\"\n")
    os.chmod(wrapper, 0o755)
    env = sg.env()
    del env["STRATA_SSH"]  # mpirun runs `ssh` from the PATH, as it does for a user
    env["PATH"] = os.pathsep.join([bin_dir, os.path.dirname(os.path.abspath(ctx.mpirun)), env["PATH"]])
    work = os.path.join(ctx.tmp, "readme-work")
    os.mkdir(work)
    r = subprocess.run(["ip", "netns", "exec", nets.ns("user"), "sh", "-e", "-c", block], cwd=work,
                       stdin=subprocess.DEVNULL, capture_output=True, text=True, env=env, timeout=GUARD * 2)
    expect_code(r, 0)
    check("1 MB message passed around 8 ranks intact" in r.stdout, "the ring's own check", r)
    for host in ("anl.example.org", "uc.example.org"):
        expect_stderr(r, rf"^mpirun: {host}: .* strata-gatekeeper: \[1 ssh from 10\.77\.0\.10 '"
                         rf"{sg.logins.account}'\] ssh login as '{sg.logins.account}'$")
    check(f"on {nets.addr['s2']} port 2222" in sg.logins.log("s2"), "uc.example.org:2222 reached s2's sshd on "
          "that port", r)
    sg.expect_nothing_left()


readme = with_ssh_grid(readme, ports={"s2": [2222]})

SCENARIOS = {f.__name__: f for f in (three_sites, formats, refused, ssh_killed, gatekeeper_killed, interrupted,
                                     slurm_site, wall_time, network_cut, staging_gencomm_network, readme)}

if __name__ == "__main__":
    sys.exit(grid_main(SCENARIOS))
