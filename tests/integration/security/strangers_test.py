#!/usr/bin/env python3
"""Strangers probing a running job: mpirun's control port and a rank's TCP port.

    strangers_test.py --mpirun PATH --waiter PATH --fake-rank PATH

Runs link_waiter on 2 ranks linked over TCP (shared memory excluded). While
the job waits, this script connects to mpirun's control listener and to rank
0's TCP listener as a stranger would: junk, a message out of order, a guessed
proof, a silent connection, and a replayed handshake. It reads the job key
from rank 0's environment (as any process of the same user could) only to
speak the protocol correctly once, which proves that the refusals are the
proofs' doing and lets it record a genuine handshake to replay. Every
refusal must be logged with its reason, nothing may reach the job, and the
job must then finish normally. Timeouts are hang guards only.
"""

import argparse
import hashlib
import hmac
import os
import re
import socket
import struct
import subprocess
import sys
import time

from strata_test.harness import GUARD, Ctx, Failure, check, expect_code, expect_nobody_left, run_scenario

# security/challenge.hpp: the role names and the proof layout.
ROLES = {
    "control_mpirun": b"strata control mpirun",
    "control_rank": b"strata control rank",
    "link_acceptor": b"strata link acceptor",
    "link_connector": b"strata link connector",
}


def proof(key, role, connector_nonce, acceptor_nonce, a, b, *more):
    message = ROLES[role] + b"\0" + connector_nonce + acceptor_nonce + struct.pack(f"<{2 + len(more)}I", a, b, *more)
    return hmac.new(key.encode(), message, hashlib.sha256).digest()


# wireup/protocol.hpp frames: u32 length, u8 type, payload.
HELLO, CHALLENGE, CHECKIN = 6, 7, 1


def frame(kind, payload):
    return struct.pack("<IB", len(payload), kind) + payload


def blob(b):
    return struct.pack("<I", len(b)) + b


def checkin_payload(rank, pid, proof_bytes):
    # wireup/protocol.hpp's card: hostname, host, vendor, site, machine,
    # processor_name, subjob, no entries.
    card = blob(b"stranger") + blob(b"") * 5 + struct.pack("<II", 0, 0)
    return struct.pack("<II", rank, pid) + blob(proof_bytes) + card


def recv_exact(s, n):
    data = b""
    while len(data) < n:
        chunk = s.recv(n - len(data))
        if not chunk:
            raise Failure(f"connection closed after {len(data)} of {n} bytes")
        data += chunk
    return data


def closed_by_peer(s):
    """True when the other end closes the connection (after any bytes it still sends)."""
    s.settimeout(GUARD)
    try:
        while s.recv(4096):
            pass
        return True
    except (ConnectionResetError, socket.timeout):
        return False


def read_challenge(s):
    length, kind = struct.unpack("<IB", recv_exact(s, 5))
    payload = recv_exact(s, length)
    check(kind == CHALLENGE and length == 2 * 36, f"expected a Challenge frame, got type {kind}, {length} bytes")
    return payload[4:36], payload[40:72]


def environ_of(pid):
    with open(f"/proc/{pid}/environ", "rb") as f:
        pairs = [e.split(b"=", 1) for e in f.read().split(b"\0") if b"=" in e]
    return {k.decode(): v.decode() for k, v in pairs}


def rank_pids(ctx):
    """{rank: pid} of the job's processes (they carry the test's marker)."""
    out = {}
    for pid in ctx.leftovers():
        try:
            env = environ_of(pid)
        except OSError:
            continue
        if "STRATA_RANK" in env:
            out[int(env["STRATA_RANK"])] = pid
    return out


def listening_ports(pid):
    """TCP ports a process listens on (its socket inodes in the LISTEN rows of /proc/PID/net/tcp)."""
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        m = re.match(r"socket:\[(\d+)\]", target)
        if m:
            inodes.add(m.group(1))
    ports = []
    with open(f"/proc/{pid}/net/tcp") as f:
        for line in f.readlines()[1:]:
            fields = line.split()
            if fields[3] == "0A" and fields[9] in inodes:
                ports.append(int(fields[1].split(":")[1], 16))
    return ports


def connect(host, port):
    s = socket.create_connection((host, port), timeout=GUARD)
    return s


def probe_control(host, port, key, log):
    # 0. Junk: no frame of the protocol at all.
    s = connect(host, port)
    s.sendall(b"\xffGET / HTTP/1.0\r\n\r\n" * 4)
    check(closed_by_peer(s), "control: junk must be answered by closing")
    log.append(r"^mpirun: dropping a control connection: a malformed frame \(unknown type or longer than the "
               r"protocol allows\)$")
    # 1. A Checkin without the Hello/Challenge before it.
    s = connect(host, port)
    s.sendall(frame(CHECKIN, checkin_payload(1, 4242, os.urandom(32))))
    check(closed_by_peer(s), "control: a Checkin before any Challenge must be answered by closing")
    log.append(r"^mpirun: dropping a control connection: a Checkin \(claiming rank 1, pid 4242\) before any "
               r"Challenge$")
    # 2. Hello, then a guessed proof. mpirun's own proof must be right.
    s = connect(host, port)
    nonce = os.urandom(32)
    s.sendall(frame(HELLO, blob(nonce)))
    theirs, mpirun_proof = read_challenge(s)
    check(hmac.compare_digest(mpirun_proof, proof(key, "control_mpirun", nonce, theirs, 0, 0)),
          "control: mpirun's Challenge does not prove the job key")
    s.sendall(frame(CHECKIN, checkin_payload(1, 4243, os.urandom(32))))
    check(closed_by_peer(s), "control: a guessed proof must be answered by closing")
    log.append(r"^mpirun: dropping a control connection: a Checkin \(claiming rank 1, pid 4243\) that fails the "
               r"job-key challenge$")
    # 3. A genuine handshake (the key is right; rank 1 is already in, so it is
    #    still refused, for that reason): the bytes to replay.
    s = connect(host, port)
    nonce = os.urandom(32)
    hello = frame(HELLO, blob(nonce))
    s.sendall(hello)
    theirs, _ = read_challenge(s)
    genuine = frame(CHECKIN, checkin_payload(1, 4244, proof(key, "control_rank", nonce, theirs, 1, 4244)))
    s.sendall(genuine)
    check(closed_by_peer(s), "control: a second Checkin for rank 1 must be refused")
    log.append(r"^mpirun: dropping a control connection: a second Checkin for rank 1 \(pid 4244\)$")
    # 4. The same bytes again on a new connection: mpirun's nonce is new.
    s = connect(host, port)
    s.sendall(hello)
    read_challenge(s)
    s.sendall(genuine)
    check(closed_by_peer(s), "control: a replayed Checkin must be refused")
    log.append(r"^mpirun: dropping a control connection: a Checkin \(claiming rank 1, pid 4244\) that fails the "
               r"job-key challenge$")


LINK_MAGIC = 0x34525453  # "STR4"


def link_hello(from_rank, to_rank, nonce, stream=0, link_set=0):
    """A TCP link's Hello (devices/tcp/handshake.hpp): set 0 is the job."""
    return struct.pack("<IIIIQ", LINK_MAGIC, from_rank, to_rank, stream, link_set) + nonce


def probe_link(port, key, log):
    where = r"refused a TCP connection from 127\.0\.0\.1:\d+: "
    # 1. Not the protocol at all.
    s = connect("127.0.0.1", port)
    s.sendall(b"GET / HTTP/1.0\r\n\r\n" + b"x" * 38)
    check(closed_by_peer(s), "link: junk must be answered by closing")
    log.append(r"^strata: rank 0: " + where + "not a Strata handshake$")
    # 1b. A Hello for a connection between jobs (MPI_Comm_accept) that rank 0 does not have.
    s = connect("127.0.0.1", port)
    s.sendall(link_hello(1, 0, os.urandom(32), link_set=0x5EED))
    check(closed_by_peer(s), "link: a Hello of an unknown connection between jobs must be answered by closing")
    log.append(r"^strata: rank 0: " + where + "it names a connection between jobs that this process does not have$")
    # 2. A Hello, then a guessed proof; rank 0's own proof must be right.
    s = connect("127.0.0.1", port)
    nonce = os.urandom(32)
    s.sendall(link_hello(1, 0, nonce))
    challenge = recv_exact(s, 64)
    check(hmac.compare_digest(challenge[32:], proof(key, "link_acceptor", nonce, challenge[:32], 1, 0)),
          "link: rank 0's challenge does not prove the job key")
    s.sendall(os.urandom(32))
    check(closed_by_peer(s), "link: a guessed proof must be answered by closing")
    log.append(r"^strata: rank 0: " + where + "it failed the job-key challenge$")
    # 3. A genuine handshake claiming rank 1, whose link is up: answered 0
    #    (keep the existing link) and closed, without a refusal.
    s = connect("127.0.0.1", port)
    nonce = os.urandom(32)
    hello = link_hello(1, 0, nonce)
    s.sendall(hello)
    challenge = recv_exact(s, 64)
    response = proof(key, "link_connector", nonce, challenge[:32], 1, 0)
    s.sendall(response)
    check(recv_exact(s, 4) == struct.pack("<I", 0), "link: a proven duplicate link must get answer 0")
    check(closed_by_peer(s), "link: the duplicate link must then be closed")
    # 4. Replay of that Hello and response.
    s = connect("127.0.0.1", port)
    s.sendall(hello)
    recv_exact(s, 64)
    s.sendall(response)
    check(closed_by_peer(s), "link: a replayed handshake must be refused")
    log.append(r"^strata: rank 0: " + where + "it failed the job-key challenge$")
    # 5. An extra stream's proofs bind its index: the challenge for stream 2
    #    proves it, and a proof made for stream 0 does not pass for it.
    s = connect("127.0.0.1", port)
    nonce = os.urandom(32)
    s.sendall(link_hello(1, 0, nonce, stream=2))
    challenge = recv_exact(s, 64)
    check(hmac.compare_digest(challenge[32:], proof(key, "link_acceptor", nonce, challenge[:32], 1, 0, 2)),
          "link: rank 0's challenge for stream 2 does not bind the stream")
    s.sendall(proof(key, "link_connector", nonce, challenge[:32], 1, 0))
    check(closed_by_peer(s), "link: a proof without the stream index must be refused")
    log.append(r"^strata: rank 0: " + where + "it failed the job-key challenge$")


def strangers(ctx, args):
    go = os.path.join(ctx.tmp, "go")
    out_path = os.path.join(ctx.tmp, "out")
    err_path = os.path.join(ctx.tmp, "err")
    with open(out_path, "w") as out, open(err_path, "w") as err:
        p = subprocess.Popen([args.mpirun, "-exclude", "shm", "-np", "2", args.waiter, go, "--marker=" + ctx.marker],
                             stdin=subprocess.DEVNULL, stdout=out, stderr=err)
    silent = []
    try:
        deadline = time.monotonic() + GUARD
        while "ready" not in open(out_path).read():
            check(p.poll() is None, "the job ended before it was ready:\n" + open(err_path).read())
            check(time.monotonic() < deadline, "the job did not get ready")
            time.sleep(0.05)
        pids = rank_pids(ctx)
        check(sorted(pids) == [0, 1], f"expected ranks 0 and 1, found {pids}")
        env = environ_of(pids[0])
        key = env["STRATA_JOB_KEY"]
        host, port = env["STRATA_WIREUP"].rsplit(":", 1)
        ports = listening_ports(pids[0])
        check(len(ports) == 1, f"rank 0 should listen on one TCP port, listens on {ports}")
        expected = []
        probe_control(host, int(port), key, expected)
        probe_link(ports[0], key, expected)
        # Silent strangers stay connected to the end: they must not hold anything up.
        silent.append(connect(host, int(port)))
        silent.append(connect("127.0.0.1", ports[0]))
        open(go, "w").close()
        p.wait(timeout=GUARD)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        for s in silent:
            s.close()
    stdout, stderr = open(out_path).read(), open(err_path).read()
    r = subprocess.CompletedProcess(p.args, p.returncode, stdout, stderr)
    expect_code(r, 0)
    check(sorted(l for l in stdout.splitlines() if l.startswith("done")) == ["done 0", "done 1"],
          "both ranks must finish", r)
    for pattern in expected:
        check(re.search(pattern, stderr, re.M) is not None, f"stderr should match /{pattern}/", r)
    refusals = [l for l in stderr.splitlines() if "refused" in l or "dropping" in l]
    check(len(refusals) == len(expected), f"expected exactly {len(expected)} refusals", r)
    expect_nobody_left(ctx)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mpirun", required=True)
    ap.add_argument("--waiter", required=True)
    ap.add_argument("--fake-rank", required=True)
    args = ap.parse_args()
    args.mpiexec = args.mpirun
    ctx = Ctx(args)
    return run_scenario(ctx, lambda: strangers(ctx, args))


if __name__ == "__main__":
    sys.exit(main())
