#!/usr/bin/env python3
"""Private sites: traffic between sites through each site's relay (docs/RELAYS.md), one
scenario per run, with real strata-gatekeepers on loopback (strata_test.grid).

    relay_test.py SCENARIO --mpirun PATH ... (the options of every grid test)

A subjob with `network: private` gets a relay from its gatekeeper; its processes publish it,
and every pair of processes routes by the two ends' cards (wireup/routes.hpp). On loopback
every process could reach every other directly, so what these scenarios prove is that the
route the cards say is the one taken: the relays' own counts (in the gatekeepers' logs) show
the bytes they carried. Timeouts are only hang guards: no verdict depends on timing.
"""

import os
import re
import signal
import socket
import subprocess
import sys
import threading

from ssh_sites_test import fault_run, with_ssh_grid
from strata_test.grid import fake_args, grid_main, when_ready
from strata_test.harness import GUARD, check, expect_code, expect_nobody_left, expect_stderr


def job_file(grid, name, program, subjobs, top="", arguments=()):
    """A YAML job: subjobs are (contact, count, site, network). Each site is a host of its own
    (the `host` identity), so its processes share memory with each other and with no other
    site's: what crosses sites goes over TCP, as between real sites."""
    lines = [f"executable: {program}", f"directory: {grid.shared}", top,
             "arguments: [" + ", ".join(f'"{a}"' for a in arguments) + "]", "subjobs:"]
    for contact, count, site, network in subjobs:
        lines.append(f"  - {{contact: '{contact}', count: {count}, site: {site}, host: h{site}, network: {network}}}")
    return grid.ctx.file(name, "\n".join(l for l in lines if l) + "\n")


def relay_bytes(g):
    """The bytes a gatekeeper's relay said it forwarded, from its summary line."""
    m = re.findall(r"strata-relay: stopped: \d+ streams opened, (\d+) bytes from ranks", g.log())
    return sum(int(x) for x in m)


def two_private(grid):
    """Two private sites: the ring and the all-to-all checks across both relays; mpirun -v
    names the route; each relay starts with its subjob and ends with it, having carried the
    traffic between the sites."""
    a = grid.start("siteA")
    b = grid.start("siteB")
    subjobs = [(a.contact, 2, "A", "private"), (b.contact, 2, "B", "private")]
    for program, expect in ((grid.ring, "1 MB message passed around 4 ranks intact"),
                            (grid.alltoall, "ok (4 processes)")):
        r = grid.run(["-v", "-jobfile", job_file(grid, "two.yaml", program, subjobs)])
        expect_code(r, 0)
        check(expect in r.stdout, f"the program's own check: '{expect}'", r)
        expect_stderr(r, r"^mpirun: routes: A <-> B through both relays \(127\.0\.0\.1:\d+, 127\.0\.0\.1:\d+\)$")
    for g in (a, b):
        g.expect_log(r"started the relay of this private site, pid \d+, at 127\.0\.0\.1:\d+$")
        g.expect_log(r"ended the relay$")
        check(relay_bytes(g) > 2 * 1024 * 1024, f"the relay carried the ring's megabyte both ways:\n{g.log()}")
    expect_nobody_left(grid.ctx)


def private_and_public(grid):
    """A private site and a public one: every connection between them passes the private
    site's relay, whichever end opens it (the ring's messages go both ways between the
    sites); the public site has no relay."""
    a = grid.start("siteA")
    b = grid.start("siteB")
    subjobs = [(a.contact, 2, "A", "private"), (b.contact, 2, "B", "public")]
    r = grid.run(["-v", "-x", "STRATA_STATS=1", "-jobfile", job_file(grid, "mixed.yaml", grid.ring, subjobs)])
    expect_code(r, 0)
    check("1 MB message passed around 4 ranks intact" in r.stdout, "the ring's data check", r)
    # The ranks that pass the message across (1 to 2, 3 to 0) count its megabyte as passing the
    # relay; the others only the empty message of the ring's end.
    for rank in (1, 3):
        expect_stderr(r, rf"^strata: rank {rank}: sent: .*; through relays: \d+ messages, [1-9]\d{{6,}} bytes$")
    for rank in (0, 2):
        expect_stderr(r, rf"^strata: rank {rank}: sent: .*; through relays: 1 messages, 0 bytes$")
    expect_stderr(r, r"^mpirun: routes: A <-> B through A's relay \(127\.0\.0\.1:\d+\)$")
    a.expect_log(r"ended the relay$")
    check(relay_bytes(a) > 2 * 1024 * 1024, f"the relay carried the ring's megabyte both ways:\n{a.log()}")
    check("started the relay" not in b.log(), "the public site has no relay")
    expect_nobody_left(grid.ctx)


def refused(grid):
    """A private site mpirun would start itself has no gatekeeper to run its relay, and a site
    whose subjobs disagree cannot be both: mpirun refuses each before anything starts, naming
    the site."""
    a = grid.start("siteA")
    r = grid.run(["-jobfile", job_file(grid, "local.yaml", grid.ring, [("localhost/fork", 1, "L", "private"),
                                                                       (a.contact, 1, "A", "public")])])
    expect_code(r, 2)
    expect_stderr(r, r"^mpirun: subjob 0 \(site L\) is private \(network: private\), but mpirun starts it itself: ")
    r = grid.run(["-jobfile", job_file(grid, "split.yaml", grid.ring, [(a.contact, 1, "A", "private"),
                                                                       (a.contact, 1, "A", "public")])])
    expect_code(r, 2)
    expect_stderr(r, r"^mpirun: site A: subjob 0 is private but subjob 1 is not; ")
    check("subjob" not in a.log(), f"nothing reached the gatekeeper:\n{a.log()}")
    expect_nobody_left(grid.ctx)


def ssh_job(sg, name, program, subjobs):
    """A YAML job for the ssh sites; subjobs are (contact, count, site, network)."""
    lines = [f"executable: {program}", f"directory: {sg.grid.shared}", f"strata: {sg.prefix}", "subjobs:"]
    for contact, count, site, network in subjobs:
        lines.append(f"  - {{contact: '{contact}', count: {count}, site: {site}, network: {network}}}")
    return sg.ctx.file(name, "\n".join(lines) + "\n")


def expect_clean(sg):
    """Nothing of the job at any site or cluster, and no Slurm job."""
    sg.expect_nothing_left()
    for cluster in sg.clusters.values():
        cluster.expect_no_jobs()


def ssh_private_sites(grid):
    """Three ssh sites; s1's and s2's processes run on clusters behind their login nodes
    (Slurm in a namespace that reaches its login node and nothing else), s3's on its login
    node. Everything a process of s1 or s2 says leaves through its site's relay: its check-in
    with mpirun, its links to the other private site (through both relays) and to s3
    through its own relay alone). The ring and the all-to-all check their data across all
    three."""
    run = with_ssh_grid(ssh_private_scenario, private=("s1", "s2"))
    run(grid)


def ssh_relays_through_mpirun(grid):
    """Two private ssh sites whose login nodes cannot reach each other (their firewalls let
    in the user's ssh alone): neither relay accepts the other's link, so the link goes
    through mpirun's hub, which both relays reach as they reach mpirun. The ring and the
    all-to-all check their data, and mpirun -v says the link went through mpirun."""
    run = with_ssh_grid(relays_through_mpirun_scenario, private=("s1", "s2"), isolated=True)
    run(grid)


def relays_through_mpirun_scenario(sg):
    # The emulation first: s1's login node cannot open a connection to s2's sshd.
    probe = subprocess.run(["ip", "netns", "exec", sg.nets.ns("s1"), "python3", "-c",
                            "import socket; socket.create_connection(('10.77.0.2', 22), timeout=2)"],
                           capture_output=True, text=True, timeout=GUARD)
    check(probe.returncode != 0, "s1's login node must not reach s2's", probe)
    subjobs = [("s1/ssh+slurm", 2, "A", "private"), ("s2/ssh+slurm", 2, "B", "private")]
    ring_and_alltoall(sg, "isolated.yaml", subjobs, [
        r"^mpirun: routes: A <-> B through both relays \(10\.77\.0\.1:\d+, 10\.77\.0\.2:\d+\)$",
        r"^mpirun: relay hub: the relay at 10\.77\.0\.[12]:\d+ cannot reach relay "
        r"10\.77\.0\.[12]:\d+ directly: their link goes through mpirun$",
        r"^mpirun: s[12]: .*linked to relay 10\.77\.0\.[12]:\d+ through mpirun's hub$"])


def ssh_private_faults(grid):
    """The fault matrix of the ssh sites, at two private sites whose processes run on their
    clusters: Ctrl-C, mpirun killed, s1's relay killed and s1's login node cut off the network
    mid-job each end the job, and leave no process at any site or cluster and no Slurm job."""
    run = with_ssh_grid(ssh_faults_scenario, private=("s1", "s2"))
    run(grid)


def ssh_faults_scenario(sg):
    args = fake_args(sg.ctx, "init", "print:ready {rank}", "sleep")
    subjobs = [("s1/ssh+slurm", 2, "A", "private"), ("s2/ssh+slurm", 2, "B", "private")]
    text = open(ssh_job(sg, "faults.yaml", sg.grid.fake_rank, subjobs)).read()
    text = text.replace("subjobs:", "arguments: [" + ", ".join(f'"{a}"' for a in args) + "]\n"
                        'environment: {STRATA_PEER_TIMEOUT_S: "6"}\nsubjobs:')
    job = sg.ctx.file("faults.yaml", text)
    for fault in ("interrupt", "mpirun", "strata-relay --relay", "network"):
        p = sg.popen(["-jobfile", job], extra_env={"STRATA_PEER_TIMEOUT_S": "6"})
        r = fault_run(sg, p, 4, fault)
        check(r.returncode != 0, f"mpirun fails the job ({fault})", r)
        if fault == "strata-relay --relay":
            expect_stderr(r, r"^mpirun: subjob 0 \(site A, contact s1/ssh\+slurm\) failed: this site's relay "
                             r"\(10\.77\.0\.1:\d+\) was killed by signal 9 \(Killed\): ")
        expect_clean(sg)


def ssh_relays_partitioned(grid):
    """Two private ssh sites whose relays lose each other mid-job (a partition between the
    sites; both still reach mpirun), while the ranks of a real MPI program have links through
    them: the silent link fails within the job's peer timeout, the relay that notices reports
    it to its gatekeeper before it closes the ranks' streams, and mpirun ends the job naming
    both sites and the cause. Nothing is left anywhere."""
    run = with_ssh_grid(relays_partitioned_scenario, private=("s1", "s2"))
    run(grid)


def relays_partitioned_scenario(sg):
    failing = sg.grid.publish(os.path.join(sg.grid.built, "failures", "failing"), "t/x/y")
    subjobs = [("s1/ssh+slurm", 2, "A", "private"), ("s2/ssh+slurm", 2, "B", "private")]
    text = open(ssh_job(sg, "partition.yaml", failing, subjobs)).read()
    text = text.replace("subjobs:", f'arguments: ["{sg.ctx.marker}", "wait"]\n'
                        'environment: {STRATA_PEER_TIMEOUT_S: "6"}\nsubjobs:')
    job = sg.ctx.file("partition.yaml", text)
    p = sg.popen(["-jobfile", job], extra_env={"STRATA_PEER_TIMEOUT_S": "6"})
    r = fault_run(sg, p, 4, "partition")
    check(r.returncode != 0, "mpirun fails the job", r)
    expect_stderr(r, r"^mpirun: subjob [01] \(site [AB], contact s[12]/ssh\+slurm\) failed: this site's relay "
                     r"\(10\.77\.0\.[12]:\d+\) lost its link to relay 10\.77\.0\.[12]:\d+ \(site [AB]\): "
                     r".* \(\d+ streams reset\); ending the job$")
    expect_clean(sg)


def ssh_private_scenario(sg):
    subjobs = [("s1/ssh+slurm", 2, "A", "private"), ("s2/ssh+slurm", 2, "B", "private"), ("s3/ssh", 2, "C", "public")]
    ring_and_alltoall(sg, "private.yaml", subjobs, [
        r"^mpirun: routes: A <-> B through both relays \(10\.77\.0\.1:\d+, 10\.77\.0\.2:\d+\)$",
        r"^mpirun: routes: A <-> C through A's relay \(10\.77\.0\.1:\d+\)$",
        r"^mpirun: routes: B <-> C through B's relay \(10\.77\.0\.2:\d+\)$",
        r"^mpirun: s1: .* started the relay of this private site, pid \d+, at 10\.77\.0\.1:\d+$"])


def ring_and_alltoall(sg, name, subjobs, lines):
    """The ring and the all-to-all across the ssh sites' `subjobs` with mpirun -v: each passes
    its own check, mpirun's stderr has every one of `lines` (patterns), nothing is left."""
    n = sum(count for _, count, _, _ in subjobs)
    for program, expect in ((sg.grid.ring, f"1 MB message passed around {n} ranks intact"),
                            (sg.grid.alltoall, f"ok ({n} processes)")):
        r = sg.run(["-v", "-jobfile", ssh_job(sg, name, program, subjobs)])
        expect_code(r, 0)
        check(expect in r.stdout, f"the program's own check: '{expect}'", r)
        for line in lines:
            expect_stderr(r, line)
        expect_clean(sg)


class LoopbackCapture:
    """Every packet on the loopback interface while it runs (a raw packet socket; root)."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.ntohs(0x0003))
        # Room for everything a burst sends before this thread reads it (SO_RCVBUFFORCE: root).
        self.sock.setsockopt(socket.SOL_SOCKET, 33, 256 << 20)
        self.sock.bind(("lo", 0))
        self.sock.settimeout(0.1)
        self.packets = []
        self.done = threading.Event()
        self.thread = threading.Thread(target=self.run)
        self.thread.start()

    def run(self):
        while not self.done.is_set():
            try:
                self.packets.append(self.sock.recv(1 << 18))
            except socket.timeout:
                continue

    def payloads(self, ports):
        """The TCP payloads of the IPv4 packets to or from one of `ports`, joined: the rest of
        the machine's loopback traffic (other programs') is left out."""
        out = []
        for p in self.packets:
            ip = p[14:]  # loopback's Ethernet header is 14 zero bytes
            if len(ip) < 20 or ip[0] >> 4 != 4 or ip[9] != 6:
                continue
            tcp = ip[(ip[0] & 15) * 4:]
            if len(tcp) < 20 or not {int.from_bytes(tcp[0:2], "big"), int.from_bytes(tcp[2:4], "big")} & ports:
                continue
            out.append(tcp[(tcp[12] >> 4) * 4:])
        return b"".join(out)

    def stop(self):
        self.done.set()
        self.thread.join()
        # What is still queued in the socket is part of the run too.
        while True:
            try:
                self.packets.append(self.sock.recv(1 << 18, socket.MSG_DONTWAIT))
            except (BlockingIOError, socket.timeout):
                break
        self.sock.close()


def ring_pattern_in(blob):
    """Whether the ring's payload (bytes rising by one, examples/ring.c) shows in `blob`: any
    run of 32 of them."""
    return any(bytes((v + i) & 255 for i in range(32)) in blob for v in range(256))


def tls_through_relays(grid):
    """With security: {data: tls} the TLS session is between the two ranks: the relays forward
    ciphertext only. Every packet to or from a relay is captured on loopback while the ring
    passes its megabyte through two relays: with TLS the ring's bytes show nowhere; without it,
    the same capture finds them (the check can fail)."""
    if os.geteuid() != 0:
        print("SKIP: capturing loopback packets needs root")
        sys.exit(77)
    a = grid.start("siteA")
    b = grid.start("siteB")
    subjobs = [(a.contact, 2, "A", "private"), (b.contact, 2, "B", "private")]
    for tls in (True, False):
        job = job_file(grid, f"tls-{tls}.yaml", grid.ring, subjobs, top="security: {data: tls}" if tls else "")
        before = relay_bytes(a)
        capture = LoopbackCapture()
        try:
            r = grid.run(["-jobfile", job])
        finally:
            capture.stop()
        expect_code(r, 0)
        ports = {int(p) for g in (a, b) for p in re.findall(r"started the relay of this private site, pid \d+, at "
                                                             r"127\.0\.0\.1:(\d+)$", g.log(), re.M)}
        blob = capture.payloads(ports)
        check("1 MB message passed around 4 ranks intact" in r.stdout, "the ring's data check", r)
        carried = relay_bytes(a) - before
        check(carried > 1024 * 1024 and len(blob) > carried,
              f"the capture saw what the relays carried ({len(capture.packets)} packets, {len(blob)} bytes; "
              f"site A's relay carried {carried} bytes)")
        check(ring_pattern_in(blob) != tls, "the ring's bytes " + ("do not show on the wire with TLS" if tls else
                                                                   "show on the wire without TLS"))
    expect_nobody_left(grid.ctx)


def conformance_programs():
    """The point-to-point and collective conformance programs (their areas' ranks.txt) as
    (name, process count): each plain entry once, at its largest count of 2 or more."""
    here = os.path.dirname(os.path.abspath(__file__))
    found = {}
    for area in ("pt2pt", "coll"):
        with open(os.path.join(here, "..", area, "ranks.txt")) as f:
            for line in f:
                words = line.split()
                if not words or words[0].startswith("#") or any("=" in w for w in words[1:]):
                    continue
                counts = [int(w) for w in words[1:] if int(w) >= 2]
                if counts and words[0] not in found:
                    found[words[0]] = max(counts)
    return sorted(found.items())


def conformance(grid):
    """Every point-to-point and collective conformance program across two private sites (its
    processes split between them), all traffic between the sites through both relays: each
    checks its own results."""
    a = grid.start("siteA")
    b = grid.start("siteB")
    for name, n in conformance_programs():
        program = grid.publish(os.path.join(grid.built, name), "t/x")
        subjobs = [(a.contact, (n + 1) // 2, "A", "private"), (b.contact, n // 2, "B", "private")]
        r = grid.run(["-jobfile", job_file(grid, "conformance.yaml", program, subjobs)])
        expect_code(r, 0)
        check(f"{name}: ok ({n} processes)" in r.stdout, f"{name} checked itself across two private sites", r)
    for g in (a, b):
        check(relay_bytes(g) > 0, f"the relay carried the programs' traffic:\n{g.log()}")
    expect_nobody_left(grid.ctx)


def relay_killed(grid):
    """A relay killed mid-job ends the job: its gatekeeper fails the subjob naming the relay and
    how it ended, mpirun says which site, and nothing of the job is left anywhere."""
    a = grid.start("siteA")
    b = grid.start("siteB")
    args = fake_args(grid.ctx, "init", "print:ready {rank}", "sleep")
    job = job_file(grid, "killed.yaml", grid.fake_rank, [(a.contact, 2, "A", "private"), (b.contact, 2, "B", "private")],
                   arguments=args)

    def kill_relay(_):
        pid = int(re.search(r"started the relay of this private site, pid (\d+)", b.log())[1])
        os.kill(pid, signal.SIGKILL)

    r = when_ready(grid, job, 4, kill_relay)
    check(r.returncode != 0, "mpirun fails the job", r)
    # The cause, not its effect: site B's ranks exit when their control connections through
    # the relay close, but their gatekeeper reports the relay's end first.
    expect_stderr(r, r"^mpirun: subjob 1 \(site B, contact .*\) failed: this site's relay \(127\.0\.0\.1:\d+\) was "
                     r"killed by signal 9 \(Killed\): its processes lost their way to other sites and to mpirun; "
                     r"ending the job$")
    b.expect_log(r"this site's relay \(127\.0\.0\.1:\d+\) was killed by signal 9")
    a.expect_log(r"ended the relay$")
    expect_nobody_left(grid.ctx)


SCENARIOS = {f.__name__: f for f in [two_private, private_and_public, refused, ssh_private_sites, relay_killed,
                                     tls_through_relays, conformance, ssh_private_faults, ssh_relays_through_mpirun,
                                     ssh_relays_partitioned]}


def main():
    return grid_main(SCENARIOS)


if __name__ == "__main__":
    sys.exit(main())
