#!/usr/bin/env python3
"""The login nodes of strata_test.ssh on their own: sshd for three sites in network
namespaces, reached from the user's namespace with the fixture's key and client config,
refusing a wrong key and an unknown host, sharing a connection under ControlMaster, and
leaving no process, account or file behind.

    ssh_fixture_test.py SCENARIO [the options of gatekeeper_test.py]

meson passes the options every grid test takes; no scenario here uses them, so a scenario
also runs by hand, without a build:

    PYTHONPATH=tests/pylib python3 tests/integration/launcher/ssh_fixture_test.py logins

Timeouts are only hang guards: no verdict depends on timing.
"""

import os
import sys

from strata_test.grid import Namespaces
from strata_test.harness import Ctx, check, expect_code, expect_stderr, run_scenario, scenario_parser
from strata_test.ssh import PRIVSEP_DIR, SshLogins, account_exists, keygen, processes, skip_unless_possible

GRID_OPTIONS = ("mpirun", "fake-rank", "gatekeeper", "strata-ca", "ring", "alltoall", "slurm-task", "slurm-scripts")


def logins(ctx):
    """ssh s1..s3 by name and by address; the wrong key and an unknown host key refused by
    ssh itself; a ControlMaster connection reused; after stop(), nothing of it is left."""
    skip_unless_possible()
    nets = Namespaces(ctx)
    sites = None
    try:
        sites = SshLogins(ctx, nets, ["s1", "s2", "s3"])
        expect_logins(ctx, nets, sites)
        expect_refusals(ctx, sites)
        expect_shared_connection(ctx, sites)
        check(sites.home_files() == [], f"the remote side wrote into the account's home: {sites.home_files()}")
        check(sites.leftovers() != [], "the ControlMaster connection's session shows among the account's processes")
        sites.stop()
        expect_nothing_left(ctx, sites)
        sites.stop()  # idempotent
    finally:
        if sites is not None:
            sites.stop()
        nets.remove()


def expect_logins(ctx, nets, sites):
    r = sites.ssh("s1", "id", "-un")
    expect_code(r, 0)
    check(r.stdout.strip() == sites.account, f"ssh s1 logs in as {sites.account}", r)
    r = sites.ssh("s2", "sh", "-c", "echo $SSH_CONNECTION")
    expect_code(r, 0)
    check(r.stdout.split()[0::2] == [nets.addr["user"], nets.addr["s2"]] and r.stdout.split()[3] == "22",
          f"s2 sees the user's namespace ({nets.addr['user']}) as the client, itself on port 22", r)
    r = sites.ssh(nets.addr["s3"], "id", "-un")  # Host *: a bare address
    expect_code(r, 0)
    check(r.stdout.strip() == sites.account, f"ssh {nets.addr['s3']} logs in as {sites.account}", r)
    check(f"Accepted publickey for {sites.account} from {nets.addr['user']}" in sites.log("s3"),
          f"s3's sshd logs the login:\n{sites.log('s3')}")


def expect_refusals(ctx, sites):
    wrong_key = keygen(os.path.join(ctx.tmp, "wrong_key"), "wrong")
    with open(sites.config) as f:
        wrong_config = ctx.file("ssh_config.wrong_key", f.read().replace(sites.key, wrong_key))
    r = sites.ssh("s1", "true", config=wrong_config)
    expect_code(r, 255)
    expect_stderr(r, r"Permission denied \(publickey\)")
    empty = ctx.file("known_hosts.empty", "")
    r = sites.ssh("s2", "true", options=["-o", "UserKnownHostsFile=" + empty])
    expect_code(r, 255)
    expect_stderr(r, r"^Host key verification failed\.$")


def expect_shared_connection(ctx, sites):
    config = sites.controlmaster(os.path.join(ctx.tmp, "cm"))
    r = sites.ssh("s3", "echo", "one", config=config)
    expect_code(r, 0)
    check(r.stdout == "one\n", "the first command over the master", r)
    logins = sites.log("s3").count("Accepted publickey")
    r = sites.ssh("s3", "echo", "two", config=config)
    expect_code(r, 0)
    check(r.stdout == "two\n", "the second command over the master", r)
    check(sites.log("s3").count("Accepted publickey") == logins,
          f"the second command logged in again instead of reusing the master:\n{sites.log('s3')}")
    r = sites.ssh("s3", config=config, options=["-O", "check"])
    expect_code(r, 0)
    expect_stderr(r, r"^Master running \(pid=\d+\)")
    check(sites.client_processes() != [], "the ControlPersist master runs in the background")


def expect_nothing_left(ctx, sites):
    check(sites.sshd_processes() == [], f"sshd left after stop(): {sites.sshd_processes()}")
    check(sites.leftovers() == [], f"processes of the account left after stop(): {sites.leftovers()}")
    check(sites.client_processes() == [], f"ssh clients left after stop(): {sites.client_processes()}")
    named = [f"{p.pid} {p.cmdline}" for p in processes() if ctx.tmp in p.cmdline]
    check(named == [], f"processes naming the test's directory left after stop(): {named}")
    check(not account_exists(sites.account), f"the account {sites.account} outlived stop()")
    check(not os.path.exists(sites.home), f"the account's home outlived stop(): {sites.home}")
    # sshd's privilege separation directory stays (other tests' sshds may be using it).
    check(os.path.isdir(PRIVSEP_DIR), f"{PRIVSEP_DIR} should still exist after stop()")


SCENARIOS = {f.__name__: f for f in [logins]}


def main():
    ap = scenario_parser(SCENARIOS)
    for name in GRID_OPTIONS:
        ap.add_argument("--" + name)
    args = ap.parse_args()
    args.mpiexec = args.mpirun
    args.fake_rank = args.fake_rank or os.devnull  # Ctx wants one; no scenario runs it
    ctx = Ctx(args)
    return run_scenario(ctx, lambda: SCENARIOS[args.scenario](ctx))


if __name__ == "__main__":
    sys.exit(main())
