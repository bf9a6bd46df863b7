#!/usr/bin/env python3
"""Client/server between two separately started jobs (MPI-2 5.4): a server job
opens a port and accepts, a client job started by a second mpirun connects, and
both check point-to-point, MPI_Intercomm_merge and collectives over what they
got (client_server.c), then disconnect. At one host, and across two emulated
sites (site labels and host identities of their own, TLS between sites); and
the port's errors.

    clientserver_test.py SCENARIO --mpirun PATH --program PATH --fortran-client PATH
"""

import hashlib
import hmac
import os
import re
import socket
import struct
import subprocess
import time

from strata_test.harness import GUARD, check, expect_nobody_left, program_main, show


def job(ctx, name, program, role, port_file, mode, count, extra=""):
    text = (f"executable: {program}\narguments: [{role}, {port_file}, {mode}, {ctx.marker}]\n{extra}"
            f"subjobs:\n  - {{count: {count}{', ' + extra_subjob(name) if name else ''}}}\n")
    return ctx.file(f"{role}.yaml", text)


def extra_subjob(name):
    return f"site: {name}, host: host-{name}"


def run_pair(ctx, args, server_np=3, client_np=2, mode="full", client_mode=None, sites=None, extra="", env=None):
    """Starts the server's mpirun, then the client's; returns both results."""
    env = dict(os.environ, **(env or {}))
    port_file = os.path.join(ctx.tmp, "port")
    server_site, client_site = sites or (None, None)
    server_job = job(ctx, server_site, args.program, "server", port_file, mode, server_np, extra)
    client_job = job(ctx, client_site, args.program, "client", port_file, client_mode or mode, client_np, extra)
    return server_beside(ctx, server_job, env, lambda: ctx.run(["-jobfile", client_job], guard=GUARD, env_extra=env))


def server_beside(ctx, server_job, env, client):
    """Runs the server job's mpirun (environment `env`) while client()
    runs; returns (server result, client's), the server never left behind."""
    server = subprocess.Popen([ctx.mpirun, "-jobfile", server_job], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              stdin=subprocess.DEVNULL, text=True, env=env)
    try:
        theirs = client()
        out, err = server.communicate(timeout=GUARD)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    return subprocess.CompletedProcess(server.args, server.returncode, out, err), theirs


def expect_ok(r, role, n, remote, lines=("merged size", "inter collectives")):
    check(r.returncode == 0, f"the {role} job failed", r)
    for rank in range(n):
        check(f"{role} {rank}: ok remote size {remote}" in r.stdout, f"{role} rank {rank} did not finish", r)
        for l in lines:
            check(f"{role} {rank}: ok {l}" in r.stdout, f"{role} rank {rank}: no '{l}' line", r)


def one_host(ctx, args):
    server, client = run_pair(ctx, args)
    expect_ok(server, "server", 3, 2)
    expect_ok(client, "client", 2, 3)
    check("server 0: ok merged size 5 rank 0 sum 10" in server.stdout, "merged ranks", server)
    check("client 1: ok merged size 5 rank 4 sum 10" in client.stdout, "merged ranks", client)
    expect_nobody_left(ctx, within=5)


def shared_memory(ctx, args):
    # Two jobs of one process each on one host: every byte between them
    # crosses shared memory (STRATA_STATS counts it per method), TCP carries
    # nothing; then again with the client excluding shm (-exclude), where
    # both sides agree on TCP.
    stats = "environment: {STRATA_STATS: \"1\"}\n"
    for excluded, carrier, other in ((False, "shm", "tcp"), (True, "tcp", "shm")):
        port_file = os.path.join(ctx.tmp, f"port-{carrier}")
        server_job = job(ctx, None, args.program, "server", port_file, "full", 1, stats)
        client_extra = stats[:-2] + ", STRATA_EXCLUDE_METHODS: shm}\n" if excluded else stats
        client_job = job(ctx, None, args.program, "client", port_file, "full", 1, client_extra)
        server, client = server_beside(ctx, server_job, dict(os.environ),
                                       lambda: ctx.run(["-jobfile", client_job], guard=GUARD))
        expect_ok(server, "server", 1, 1)
        expect_ok(client, "client", 1, 1)
        for r, role in ((server, "server"), (client, "client")):
            sent = re.search(r"^strata: rank 0: sent: (.*)$", r.stderr, re.M)
            check(sent is not None, f"the {role} printed no traffic", r)
            check(re.search(rf"(^|; ){carrier}: [1-9]\d* messages", sent.group(1)) is not None,
                  f"{carrier} carried nothing of the {role}'s", r)
            check(re.search(rf"(^|; ){other}: ", sent.group(1)) is None, f"{other} carried some of the {role}'s", r)
    expect_nobody_left(ctx, within=5)


def two_sites(ctx, args):
    # Different site labels and host identities: the links between the jobs
    # are wide-area links, encrypted (security: {data: tls}).
    server, client = run_pair(ctx, args, server_np=2, client_np=3, sites=("A", "B"),
                              extra="security: {data: tls}\n")
    expect_ok(server, "server", 2, 3)
    expect_ok(client, "client", 3, 2)
    expect_nobody_left(ctx, within=5)


def emulated_sites(ctx, args):
    # Both jobs emulate the same wide area between sites A and B: the links
    # between them are shaped too (STRATA_STATS proves packets were held;
    # never timing), and everything still arrives.
    server, client = run_pair(ctx, args, server_np=2, client_np=2, sites=("A", "B"),
                              extra="network:\n  wan: {latency_ms: 2, bandwidth_mbit: 500}\n"
                                    "environment: {STRATA_STATS: \"1\"}\n")
    expect_ok(server, "server", 2, 2)
    expect_ok(client, "client", 2, 2)
    for r, role in ((server, "server"), (client, "client")):
        held = [int(m) for m in re.findall(r"emulated links to other jobs: (\d+) packets held until due", r.stderr)]
        check(len(held) == 2 and all(n > 0 for n in held), f"every {role} rank held packets of the other job", r)
    expect_nobody_left(ctx, within=5)


def subject(ctx, args):
    # Grid credentials from strata-ca: the server's accept takes only Jane
    # Doe; a client without a credential and one of another subject are
    # refused (MPI_ERR_PORT) while the accept goes on waiting; then Jane
    # Doe's client joins and the server reads her subject (peer_subject).
    homes = {}
    for who in ("Jane Doe", "John Roe"):
        home = os.path.join(ctx.tmp, "home-" + who.split()[0].lower())
        os.makedirs(home)
        homes[who] = home
    env = lambda home: {"HOME": home, "X509_USER_PROXY": "", "X509_USER_CERT": "", "X509_USER_KEY": "",
                        "X509_CERT_DIR": os.path.join(homes["Jane Doe"], ".strata", "certificates")}
    def ca(home, *a):
        r = subprocess.run([args.strata_ca, *a], capture_output=True, text=True, env=dict(os.environ, **env(home)),
                           timeout=GUARD)
        check(r.returncode == 0, f"strata-ca {' '.join(a)}: {r.stderr}")
        return r.stdout
    ca(homes["Jane Doe"], "create-ca")
    ca_dir = os.path.join(homes["Jane Doe"], ".strata", "ca")
    line = ca(homes["Jane Doe"], "user", "--name", "Jane Doe")
    jane = re.search(r'"(/[^"]+)"', line)
    check(jane is not None, f"strata-ca user printed no grid-mapfile line: {line}")
    ca(homes["John Roe"], "user", "--name", "John Roe", "--ca", ca_dir)
    nobody = os.path.join(ctx.tmp, "home-nobody")
    os.makedirs(nobody)

    def clients(port_file):
        for home in (nobody, homes["John Roe"]):
            refused = ctx.run(["-jobfile", job(ctx, None, args.program, "client", port_file, "refused", 1)],
                              guard=GUARD, env_extra=env(home))
            check(refused.returncode == 0 and "client 0: ok subject refused" in refused.stdout,
                  "a client without Jane Doe's credential was refused", refused)
        return ctx.run(["-jobfile", job(ctx, None, args.program, "client", port_file, "subject", 2)],
                       guard=GUARD, env_extra=env(homes["Jane Doe"]))

    server, client = with_server(ctx, args, "subject", 2, clients,
                                 env=dict(STRATA_TEST_SUBJECT=jane[1], **env(homes["Jane Doe"])))
    expect_ok(server, "server", 2, 2)
    expect_ok(client, "client", 2, 2)
    for rank in range(2):
        check(f"server {rank}: ok peer subject {jane[1]}" in server.stdout, "the server read the client's subject", server)
    expect_nobody_left(ctx, within=5)


def wrong_secret(ctx, args):
    server, client = run_pair(ctx, args, server_np=2, client_np=2, mode="full", client_mode="badsecret")
    expect_ok(client, "client", 2, 2, lines=("wrong secret refused", "merged size", "inter collectives"))
    expect_ok(server, "server", 2, 2)
    expect_nobody_left(ctx, within=5)


def closed_port(ctx, args):
    server, client = run_pair(ctx, args, server_np=1, client_np=2, mode="closed")
    expect_ok(client, "client", 2, 1, lines=("closed port refused", "merged size", "inter collectives"))
    expect_ok(server, "server", 1, 2)
    expect_nobody_left(ctx, within=5)


def timeout(ctx, args):
    # The server accepts only after the client's connect with timeout=1 failed.
    server, client = run_pair(ctx, args, server_np=1, client_np=2, mode="timeout",
                              env={"STRATA_CONNECT_TIMEOUT": "1"})
    expect_ok(client, "client", 2, 1, lines=("timed out", "merged size", "inter collectives"))
    expect_ok(server, "server", 1, 2)
    expect_nobody_left(ctx, within=5)


def peer_dies(ctx, args):
    # The client job loses its rank 0 after connecting; the server's receives
    # from it fail, the server job finishes.
    server, client = run_pair(ctx, args, server_np=2, client_np=2, mode="peerdies")
    check(client.returncode != 0, "the client job should have failed", client)
    check(server.returncode == 0, "the server job failed", server)
    for rank in range(2):
        check(f"server {rank}: ok peer died" in server.stdout, f"server rank {rank}", server)
    expect_nobody_left(ctx, within=5)


def line_end(ctx, args):
    # Both roots pass the port name followed by a newline (a name read back
    # from a file with fgets): MPI_Comm_accept, MPI_Comm_connect and
    # MPI_Close_port ignore white space at its end.
    server, client = run_pair(ctx, args, server_np=1, client_np=2, mode="lineend")
    expect_ok(server, "server", 1, 2)
    expect_ok(client, "client", 2, 1)
    expect_nobody_left(ctx, within=5)


def fortran_client(ctx, args):
    # client.f connects to the C server once the port name is in the file.
    server, client = with_server(
        ctx, args, "fortran", 2, lambda port_file: ctx.run(["-np", "3", args.fortran_client, port_file, ctx.marker]))
    check(client.returncode == 0, "the Fortran client failed", client)
    check(server.returncode == 0, "the server failed", server)
    for rank in range(3):
        check(f"client {rank}: ok fortran" in client.stdout, f"Fortran client rank {rank}", client)
    for rank in range(2):
        check(f"server {rank}: ok fortran client, remote size 3" in server.stdout, f"server rank {rank}", server)
    expect_nobody_left(ctx, within=5)


def names(ctx, args):
    # mpirun's name service, in a name directory of the test's own.
    name_dir = os.path.join(ctx.tmp, "names")
    server, client = run_pair(ctx, args, server_np=2, client_np=2, mode="names", env={"STRATA_NAME_DIR": name_dir})
    expect_ok(server, "server", 2, 2, lines=("merged size",))
    check("server 0: ok published" in server.stdout and "server 0: ok unpublished" in server.stdout,
          "publish / unpublish", server)
    expect_ok(client, "client", 2, 2)
    check("client 0: ok looked up" in client.stdout, "lookup", client)
    check(os.listdir(name_dir) == [], f"names left behind: {os.listdir(name_dir)}")
    check(os.stat(name_dir).st_mode & 0o777 == 0o700, "the name directory is not private")
    expect_nobody_left(ctx, within=5)


def frame(kind, payload):
    return struct.pack("<IB", len(payload), kind) + payload


def blob(b):
    return struct.pack("<I", len(b)) + b


def read_frame(s):
    def exactly(n):
        got = b""
        while len(got) < n:
            more = s.recv(n - len(got))
            check(more, "the server closed the port's connection")
            got += more
        return got

    length, kind = struct.unpack("<IB", exactly(5))
    return kind, exactly(length)


def with_server(ctx, args, mode, np, client, env=None):
    """Starts a server job of `np` processes in `mode` (with `env` added to
    its mpirun's environment), waits for its port file, runs
    client(port_file) and returns (server result, client's)."""
    port_file = os.path.join(ctx.tmp, "port")
    server_job = job(ctx, None, args.program, "server", port_file, mode, np)

    def when_ready():
        deadline = time.monotonic() + GUARD
        while not os.path.exists(port_file) and time.monotonic() < deadline:
            time.sleep(0.02)
        return client(port_file)

    return server_beside(ctx, server_job, dict(os.environ, **(env or {})), when_ready)


def vanish(ctx, args):
    """The client's root proves the port's secret, takes the answer and leaves
    without confirming: the accept fails with MPI_ERR_OTHER at every rank of
    the server, which does not hang."""
    def client(port_file):
        name = open(port_file).read().strip()
        rest = name[len("strata-port:1:"):]
        address, ident, secret = rest.rsplit(":", 2)
        hosts, port = address.rsplit(":", 1)
        secret = bytes.fromhex(secret)
        s = socket.create_connection((hosts.split(",")[-1], int(port)), timeout=GUARD)
        mine = os.urandom(32)
        # Hello: port id, nonce, the client's site and STRATA_EMULATION (none).
        s.sendall(frame(1, struct.pack("<Q", int(ident, 16)) + blob(mine) + blob(b"") + blob(b"")))
        kind, payload = read_frame(s)
        check(kind == 2, f"expected a Challenge, got frame type {kind}")
        theirs = payload[4:36]
        proof = hmac.new(secret, b"strata port connector\0" + mine + theirs + struct.pack("<II", 0, 0),
                         hashlib.sha256).digest()
        # A card (wireup/protocol.hpp): hostname, host, vendor, site, machine,
        # processor_name, subjob, then its entries: only the TCP method's TLS mode.
        card = b"".join(blob(x) for x in (b"ghost", b"ghost", b"", b"", b"", b"ghost")) + struct.pack("<I", 0)
        card += struct.pack("<I", 1) + blob(b"tcp.tls") + blob(b"off")
        mask = blob(b"\xff" * 1024)
        # Offer: proof, free contexts, one card, no grid credential (certificates, signature).
        s.sendall(frame(3, blob(proof) + mask + struct.pack("<I", 1) + card + blob(b"") + blob(b"")))
        kind, _ = read_frame(s)
        check(kind == 4, f"expected an Answer, got frame type {kind}")
        s.close()

    r, _ = with_server(ctx, args, "vanish", 2, client)
    check(r.returncode == 0, "the server job failed", r)
    for rank in range(2):
        check(f"server {rank}: ok vanished client" in r.stdout, f"server rank {rank}", r)
    expect_nobody_left(ctx, within=5)


SCENARIOS = {
    "one_host": one_host,
    "shared_memory": shared_memory,
    "two_sites": two_sites,
    "emulated_sites": emulated_sites,
    "subject": subject,
    "wrong_secret": wrong_secret,
    "closed_port": closed_port,
    "timeout": timeout,
    "line_end": line_end,
    "fortran_client": fortran_client,
    "peer_dies": peer_dies,
    "names": names,
    "vanish": vanish,
}

if __name__ == "__main__":
    raise SystemExit(program_main(SCENARIOS, ["program", "fortran-client", "strata-ca"]))
