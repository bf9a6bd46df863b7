#!/usr/bin/env python3
"""A site that fails mid-job: its gatekeeper killed, the site and mpirun both gone, the
network to it cut. Every scenario ends with nothing of the job left on either side.

    site_failures_test.py SCENARIO [the options of gatekeeper_test.py]

Timeouts are only hang guards: no verdict depends on timing.
"""

import os
import re
import shutil
import subprocess
import sys
import time

from strata_test.grid import Namespaces, Slurm, fake_args, finish, grid_main, run_ip, when_ready
from strata_test.harness import GUARD, check, expect_code, expect_nobody_left, expect_stderr


def wait_nobody_left(ctx):
    deadline = time.monotonic() + GUARD
    while ctx.leftovers() and time.monotonic() < deadline:
        time.sleep(0.05)
    expect_nobody_left(ctx)


def ready(p, ranks):
    for _ in range(ranks):
        if p.stdout.readline() == "":
            check(False, "mpirun ended before every rank was ready:\n" + p.stderr.read())


def slurm_gatekeeper_killed(grid):
    """SIGKILL of the gatekeeper that runs a Slurm subjob: mpirun names the site and ends the
    job; the ranks, their tasks and the Slurm job end with it."""
    ctx = grid.ctx
    slurm = Slurm(grid)
    try:
        a = grid.start("siteA", adapters=("fork", "slurm"), env=slurm.env)
        job = grid.job("job.yaml", [("localhost/fork", 1), (f"localhost:{a.port}/slurm", 2)],
                       fake_args(ctx, "init", "print:ready {rank}", "sleep"))
        r = when_ready(grid, job, 3, lambda p: a.proc.kill())
        check(r.returncode != 0, "mpirun fails the job", r)
        expect_stderr(r, rf"^mpirun: subjob 1 \(site localhost, contact localhost:{a.port}/jobmanager-slurm\) failed: "
                         rf"lost the connection to gatekeeper localhost:{a.port}")
        wait_nobody_left(ctx)
        slurm.expect_no_jobs()
    finally:
        grid.stop()
        slurm.stop()


def slurm_site_lost(grid):
    """The gatekeeper and mpirun both SIGKILLed: nobody is left to cancel anything, and the
    ranks end themselves when their connection to mpirun ends; so do the Slurm job's tasks."""
    ctx = grid.ctx
    slurm = Slurm(grid)
    try:
        a = grid.start("siteA", adapters=("slurm",), env=slurm.env)
        job = grid.job("job.yaml", [(f"localhost:{a.port}/slurm", 2)],
                       fake_args(ctx, "init", "print:ready {rank}", "sleep"))
        when_ready(grid, job, 2, lambda p: (a.proc.kill(), p.kill()))
        wait_nobody_left(ctx)
        slurm.expect_no_jobs()
    finally:
        grid.stop()
        slurm.stop()


def partition(grid):
    """A site cut off the network (its link down) mid-job: within the peer timeout mpirun names
    the site and ends the job, the site's gatekeeper ends its subjob, and the ranks there end
    themselves; once the network returns nothing is left on either side."""
    ctx = grid.ctx
    if os.geteuid() != 0 or shutil.which("ip") is None:
        print("SKIP: network namespaces need root and iproute2")
        sys.exit(77)
    nets = Namespaces(ctx)
    try:
        timeout = {"STRATA_PEER_TIMEOUT_S": "6"}
        sites = []
        for name in ("s1", "s2"):
            grid.ca("host", "--name", nets.addr[name])
            sites.append(grid.start(name, host=nets.addr[name], netns=nets.ns(name), env=timeout))
        args = ", ".join(f'"{x}"' for x in fake_args(ctx, "init", "print:ready {rank}", "sleep"))
        job = ctx.file("job.yaml", f"""\
executable: {grid.fake_rank}
arguments: [{args}]
directory: {grid.shared}
environment: {{STRATA_PEER_TIMEOUT_S: "6"}}
subjobs:
  - {{contact: '{sites[0].contact}', count: 2, site: site1}}
  - {{contact: '{sites[1].contact}', count: 2, site: site2}}
""")
        env = dict(os.environ)
        env.update(grid.env())
        env.update(timeout)
        p = subprocess.Popen(["ip", "netns", "exec", nets.ns("user"), ctx.mpirun, "-jobfile", job],
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=env)
        ready(p, 4)
        veth = f"v{nets.tag}1"  # site 2's end of its link
        run_ip("-n", nets.ns("s2"), "link", "set", veth, "down")
        try:
            r = finish(p)
            expect_code(r, 1)
            # The reason is the kernel's: a timeout, or the routing error its last probe met (the
            # site's side has no route once its link is down; the user's may lose the neighbour).
            lost = "(Connection timed out|Network is unreachable|No route to host)"
            expect_stderr(r, rf"^mpirun: subjob 1 \(site site2, contact {re.escape(nets.addr['s2'])}:2119/"
                             r"jobmanager-fork\) failed: lost the connection to gatekeeper "
                             rf"{re.escape(nets.addr['s2'])}:2119: {lost}; ending the job$")
            # The site's gatekeeper and its ranks lose mpirun within the same
            # timeout: the gatekeeper kills the subjob, or the ranks end first
            # (Client's watch) and it finds the subjob done.
            sites[1].expect_log(rf"(connection lost \({lost}\); killing the subjob|\] subjob DONE)$")
            # The ranks at site 2 lost mpirun too: they end themselves, or their gatekeeper ends them.
            wait_nobody_left(ctx)
        finally:
            run_ip("-n", nets.ns("s2"), "link", "set", veth, "up")
        for g in sites:
            deadline = time.monotonic() + GUARD
            while os.listdir(g.scratch) and time.monotonic() < deadline:
                time.sleep(0.05)
            check(os.listdir(g.scratch) == [], f"nothing is left in {g.scratch}")
            check(g.proc.poll() is None, f"the gatekeeper keeps running:\n{g.log()}")
        expect_nobody_left(ctx)
    finally:
        grid.stop()
        nets.remove()


def restart(g, env=None):
    """Starts gatekeeper `g` again as it was started (same configuration), after its death."""
    port_file = g.proc.args[-1]
    if os.path.exists(port_file):
        os.unlink(port_file)
    with open(g.log_path, "a") as log:
        g.proc = subprocess.Popen(g.proc.args, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                  env=None if env is None else {**os.environ, **env})
    deadline = time.monotonic() + GUARD
    while not os.path.exists(port_file):
        check(g.proc.poll() is None, f"the gatekeeper exited at its restart:\n{g.log()}")
        check(time.monotonic() < deadline, "the gatekeeper did not restart")
        time.sleep(0.02)


def expect_reclaimed(g):
    """Nothing of the dead run's subjobs is left in the scratch or the state directory."""
    g.expect_log(r"orphan subjob-\S+ \(.*\): left by an earlier run; reclaiming it$")
    state = os.path.join(g.dir, "state")
    check(os.listdir(g.scratch) == [], f"the scratch directory is empty: {os.listdir(g.scratch)}\n{g.log()}")
    check(os.listdir(state) == [], f"no record is left: {os.listdir(state)}\n{g.log()}")


def fork_gatekeeper_restart(grid):
    """A fork gatekeeper SIGKILLed mid-job leaves the job directory (the staged program, the
    delegated proxy); the next start removes it."""
    ctx = grid.ctx
    a = grid.start("siteA")
    private = os.path.join(ctx.tmp, "private")
    os.mkdir(private, 0o700)
    program = os.path.join(private, "app")
    shutil.copy2(grid.fake_rank, program)
    args = ", ".join(f'"{x}"' for x in fake_args(ctx, "init", "print:ready {rank}", "sleep"))
    data = os.path.join(private, "input.dat")
    with open(data, "w") as f:
        f.write("input\n")
    job = ctx.file("stage.yaml", f"executable: {program}\narguments: [{args}]\nsubjobs:\n"
                                 f"  - {{contact: '{a.contact}', count: 2, stage: [{data}]}}\n")
    r = when_ready(grid, job, 2, lambda p: a.proc.kill())
    check(r.returncode != 0, "mpirun fails the job", r)
    wait_nobody_left(ctx)
    left = os.listdir(a.scratch)
    check(len(left) == 1 and os.path.exists(os.path.join(a.scratch, left[0], "x509up")),
          f"the dead gatekeeper left its job directory with the proxy: {left}")
    restart(a)
    a.expect_log(rf"removed the directory {re.escape(os.path.join(a.scratch, left[0]))}$")
    expect_reclaimed(a)
    # It works as before.
    r = grid.run(["-jobfile", grid.job("ok.yaml", [(a.contact.replace(str(a.port), str(port_of(a))), 1)],
                                       fake_args(ctx, "init", "finalize"))])
    expect_code(r, 0)
    expect_nobody_left(ctx)


def port_of(g):
    with open(g.proc.args[-1]) as f:
        return int(f.read())


def slurm_gatekeeper_restart(grid):
    """A Slurm gatekeeper and mpirun both SIGKILLed while the subjob's programs (which never
    call MPI_Init, so nothing else ends them) run: the next start of the gatekeeper ends the
    Slurm job and removes the work directory."""
    ctx = grid.ctx
    slurm = Slurm(grid)
    try:
        a = grid.start("siteA", adapters=("slurm",), env=slurm.env)
        job = grid.job("job.yaml", [(f"localhost:{a.port}/slurm", 2)],
                       fake_args(ctx, "print:ready {rank}", "sleep"))
        when_ready(grid, job, 2, lambda p: (a.proc.kill(), p.kill()))
        check(slurm.jobs() != "", "the Slurm job outlived its gatekeeper and mpirun")
        check(any(d.startswith("strata-slurm-") for d in os.listdir(a.scratch)),
              f"the work directory is left: {os.listdir(a.scratch)}")
        restart(a, slurm.env)
        a.expect_log(r"orphan subjob-\S+ \(.*\): ended slurm job \d+$")
        expect_reclaimed(a)
        slurm.expect_no_jobs()
        wait_nobody_left(ctx)
    finally:
        grid.stop()
        slurm.stop()


SCENARIOS = {f.__name__: f for f in [slurm_gatekeeper_killed, slurm_site_lost, partition, fork_gatekeeper_restart,
                                     slurm_gatekeeper_restart]}

if __name__ == "__main__":
    sys.exit(grid_main(SCENARIOS))
