#!/usr/bin/env python3
"""Proxy credentials, forged certificates, delegation and encrypted links
between sites, against a real strata-gatekeeper.

    grid_security_test.py SCENARIO --forge PATH --proxy-init PATH --proxy-info PATH --marker PATH
                          [the options of gatekeeper_test.py]

Each refusal is checked word for word, on mpirun's side and in the gatekeeper's log, and
every scenario proves that nothing started. Proxies are always written inside the test's
directory and named by X509_USER_PROXY, never at the default /tmp/x509up_u<uid>.
"""

import base64
import os
import pwd
import re
import signal
import socket
import ssl
import stat
import subprocess
import time
import sys
import threading

from strata_test.grid import USER_DN, fake_args, grid_main
from strata_test.harness import GUARD, check, expect_code, expect_nobody_left, expect_stderr

TOOLS = {}


def tool(name, *args, env=None):
    r = subprocess.run([TOOLS[name], *args], capture_output=True, text=True, env=env, timeout=GUARD)
    check(r.returncode == 0, f"{name} {' '.join(args)} failed:\n{r.stdout}{r.stderr}")
    return r


def user_files(grid):
    strata = os.path.join(grid.home, ".strata")
    return os.path.join(strata, "usercert.pem"), os.path.join(strata, "userkey.pem")


def run_with(grid, job, **env):
    """mpirun on `job` with the grid's environment plus `env`."""
    return grid.ctx.run(["-jobfile", job], env_extra={**grid.env(), **env})


def refused_before_start(grid, r, site, mpirun_pattern, log_pattern):
    expect_code(r, 1)
    expect_stderr(r, mpirun_pattern)
    site.expect_log(log_pattern)
    check(not os.listdir(grid.shared), "nothing started", r)
    expect_nobody_left(grid.ctx)


def touch_job(grid, site):
    return grid.job("touch.yaml", [(site.contact, 2)],
                    fake_args(grid.ctx, "touch:" + os.path.join(grid.shared, "started")))


def failed_at(site):
    return rf"^mpirun: subjob 0 \(site localhost, contact localhost:{site.port}/jobmanager-fork\) failed: "


def proxy_run(grid):
    """A job runs on a proxy alone (the user's key is out of reach); the gatekeeper
    authorizes the identity behind it."""
    ctx = grid.ctx
    a = grid.start("siteA")
    cert, key = user_files(grid)
    proxy = os.path.join(ctx.tmp, "proxy.pem")
    tool("init", "-cert", cert, "-key", key, "-out", proxy, "-q")
    os.chmod(key, 0o000)  # mpirun must not need it
    os.rename(key, key + ".away")
    job = grid.job("job.yaml", [(a.contact, 2)], fake_args(ctx, "init", "print:ok {rank}", "finalize"))
    r = run_with(grid, job, X509_USER_PROXY=proxy)
    expect_code(r, 0)
    check(sorted(r.stdout.splitlines()) == ["ok 0", "ok 1"], "the job ran on the proxy", r)
    a.expect_log(rf'authenticated "{re.escape(USER_DN)}" through a chain of 1 proxy$')
    expect_nobody_left(ctx)
    # X509_USER_PROXY naming a missing file is an error, not a silent fallback.
    missing = os.path.join(ctx.tmp, "no-such-proxy")
    r = run_with(grid, job, X509_USER_PROXY=missing)
    expect_code(r, 1)
    expect_stderr(r, rf"X509_USER_PROXY names {re.escape(missing)}, which does not exist; make a proxy there with "
                     r"strata-proxy-init, or unset X509_USER_PROXY")
    expect_nobody_left(ctx)


def limited_proxy(grid):
    a = grid.start("siteA")
    cert, key = user_files(grid)
    for policy, reason in (("limited", "a limited proxy cannot start jobs; make a full proxy with strata-proxy-init"),
                           ("independent", "an independent proxy has none of its issuer's rights and cannot start "
                                           "jobs for it")):
        proxy = os.path.join(grid.ctx.tmp, policy + ".pem")
        tool("forge", "proxy", cert, key, proxy, "--policy", policy)
        r = run_with(grid, touch_job(grid, a), X509_USER_PROXY=proxy)
        refused_before_start(grid, r, a, failed_at(a) + re.escape("not authorized: " + reason) + "; ending the job$",
                             re.escape("refused: not authorized: " + reason) + "$")


def expired_proxy(grid):
    """mpirun will not use an expired proxy; a client that presents one anyway is refused
    by the gatekeeper in the handshake."""
    ctx = grid.ctx
    a = grid.start("siteA")
    cert, key = user_files(grid)
    proxy = os.path.join(ctx.tmp, "expired.pem")
    tool("forge", "proxy", cert, key, proxy, "--start", "-7200", "--end", "-60")
    r = run_with(grid, touch_job(grid, a), X509_USER_PROXY=proxy)
    expect_code(r, 1)
    expect_stderr(r, rf"the proxy {re.escape(proxy)} expired on \d{{4}}-\d\d-\d\d \d\d:\d\d:\d\d UTC; make a new one "
                     r"with strata-proxy-init")
    check(not os.listdir(grid.shared), "nothing started", r)
    expect_nobody_left(ctx)
    present_raw(grid, a, proxy)
    a.expect_log(r"refused: TLS handshake failed: certificate refused: certificate has expired$")


def present_raw(grid, site, proxy):
    """A TLS client that presents `proxy` whatever mpirun would think of it; the
    gatekeeper must refuse it in the handshake."""
    tls = ssl.create_default_context(capath=grid.certdir)
    tls.load_cert_chain(proxy, proxy)
    try:
        with tls.wrap_socket(socket.create_connection(("127.0.0.1", site.port), timeout=GUARD),
                             server_hostname="localhost") as conn:
            conn.sendall(b"\0\0\0\0\1")
            got = conn.recv(1)
        refused = got == b""
    except (ssl.SSLError, ConnectionResetError):
        refused = True
    check(refused, "the gatekeeper refuses the handshake")


FORGED = (r"TLS handshake with gatekeeper localhost:\d+ failed: tlsv1 alert decrypt error \(a signature in your "
          r"certificate chain does not verify: it is damaged or forged\); ending the job$")
SIGNATURE_FAILURE = r"refused: TLS handshake failed: certificate refused: certificate signature failure$"


def foreign_issuer(grid):
    """A proxy that claims to be Jane's, with Jane's (public) certificate as its issuer,
    but signed by another user's key: its signature does not verify against Jane's."""
    ctx = grid.ctx
    _, eve = grid.other_user("Eve")
    jane_cert, _ = user_files(grid)
    a = grid.start("siteA", gridmap=f'"{USER_DN}" {grid.account}\n"/O=Strata Grid/OU=Users/CN=Eve" {grid.account}\n')
    proxy = os.path.join(ctx.tmp, "claims-jane.pem")
    tool("forge", "proxy", os.path.join(eve, "usercert.pem"), os.path.join(eve, "userkey.pem"), proxy,
         "--claim", jane_cert)
    r = run_with(grid, touch_job(grid, a), X509_USER_PROXY=proxy)
    refused_before_start(grid, r, a, failed_at(a) + FORGED, SIGNATURE_FAILURE)


def tampered_certificate(grid):
    """A user certificate whose subject was edited after signing."""
    ctx = grid.ctx
    a = grid.start("siteA", gridmap=f'"{USER_DN}" {grid.account}\n"{USER_DN[:-1]}x" {grid.account}\n')
    cert, key = user_files(grid)
    tampered = os.path.join(ctx.tmp, "tampered.pem")
    # One byte of the signed subject changed in the DER: "Jane Doe" becomes "Jane Dox".
    with open(cert) as f:
        body = "".join(l for l in f.read().splitlines() if not l.startswith("-----"))
    der = base64.b64decode(body)
    check(der.count(b"Jane Doe") == 1, "the subject occurs once in the certificate")
    der = der.replace(b"Jane Doe", b"Jane Dox")
    text = base64.encodebytes(der).decode().replace("\n", "")
    with open(tampered, "w") as f:
        f.write("-----BEGIN CERTIFICATE-----\n" + "\n".join(text[i:i + 64] for i in range(0, len(text), 64)) +
                "\n-----END CERTIFICATE-----\n")
    r = run_with(grid, touch_job(grid, a), X509_USER_CERT=tampered, X509_USER_KEY=key)
    refused_before_start(grid, r, a, failed_at(a) + FORGED, SIGNATURE_FAILURE)


def delegation(grid):
    """Each site receives a proxy for a key it made itself: limited by default, full or
    none when asked; the processes find it in X509_USER_PROXY, owned by their account."""
    ctx = grid.ctx
    a = grid.start("siteA")
    job = grid.job("job.yaml", [(a.contact, 2)], fake_args(ctx, "print-env:X509_USER_PROXY", "sleep"))
    cert, _ = user_files(grid)
    for mode, kind in (("", "limited"), ("full", "impersonation"), ("none", None)):
        p = grid.popen(["-jobfile", job], env_extra={"STRATA_DELEGATION": mode} if mode else None)
        try:
            lines = [p.stdout.readline().strip() for _ in range(2)]
            if kind is None:
                check(lines == ["X509_USER_PROXY unset"] * 2, f"no delegation: nothing in the environment: {lines}")
            else:
                paths = {l.split("=", 1)[1] for l in lines if l.startswith("X509_USER_PROXY=")}
                check(len(paths) == 1, f"both ranks see one delegated proxy: {lines}")
                path = paths.pop()
                st = os.stat(path)
                check(stat.S_IMODE(st.st_mode) == 0o600 and st.st_uid == pwd.getpwnam(grid.account).pw_uid,
                      f"the proxy is 0600 and the account's ({oct(st.st_mode)}, uid {st.st_uid})")
                info = tool("info", "-file", path, "-identity", "-type", "-timeleft").stdout.splitlines()
                check(info[0] == USER_DN, f"it acts for the user: {info}")
                check(info[1] == f"RFC 3820 compliant {kind} proxy", f"a {kind} proxy: {info}")
                check(0 < int(info[2]) <= 12 * 3600, f"at most 12 hours: {info}")
                r = subprocess.run(["openssl", "verify", "-allow_proxy_certs", "-CApath", grid.certdir,
                                    "-untrusted", path, path], capture_output=True, text=True)
                check(r.returncode == 0, "openssl verifies the delegated proxy:\n" + r.stdout + r.stderr)
                with open(path) as f:
                    held = f.read()
                with open(os.path.join(grid.home, ".strata", "userkey.pem")) as f:
                    check(f.read() not in held, "the user's key did not travel")
                a.expect_log(rf'received a {"limited" if kind == "limited" else "full"} proxy for '
                             rf'"{re.escape(USER_DN)}", valid until .*: {re.escape(path)}$')
            p.send_signal(signal.SIGINT)
            out, err = p.communicate(timeout=GUARD)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
        check(p.returncode == 130, f"mpirun ends on SIGINT (exit {p.returncode}):\n{err}")
        if kind is not None:
            # The gatekeeper removes the job directory once the job's processes
            # are gone, which may be just after mpirun has ended.
            deadline = time.monotonic() + GUARD
            while os.path.exists(path) and time.monotonic() < deadline:
                time.sleep(0.05)
            check(not os.path.exists(path), "the delegated proxy goes with the job directory")
        expect_nobody_left(ctx)
    # A value mpirun does not know.
    r = run_with(grid, job, STRATA_DELEGATION="sometimes")
    expect_code(r, 1)
    expect_stderr(r, r"STRATA_DELEGATION='sometimes': expected limited, full or none; ending the job$")
    expect_nobody_left(ctx)


class LoopbackCapture:
    """Every packet on the loopback interface while it runs (AF_PACKET: needs root)."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0003))
        self.sock.bind(("lo", 0))
        self.sock.settimeout(0.05)
        self.data = bytearray()
        self.stopping = False
        self.thread = threading.Thread(target=self.run)
        self.thread.start()

    def run(self):
        while not self.stopping:
            try:
                self.data += self.sock.recv(65536)
            except socket.timeout:
                pass

    def stop(self):
        self.stopping = True
        self.thread.join()
        self.sock.close()
        return bytes(self.data)


def data_tls(grid):
    """security: {data: tls}: the links between sites carry TLS, the links within a site
    do not, and the data arrives intact either way. Seen on the wire: the loopback
    interface is captured while rank 0 sends each rank a text that names it."""
    ctx = grid.ctx
    if os.geteuid() != 0:
        print("SKIP: capturing the loopback interface needs root")
        sys.exit(77)
    a = grid.start("siteB")
    program = grid.publish(TOOLS["marker"], "bin")
    for security, crossing_visible in (("", True), ("security: {data: tls}\n", False)):
        # Ranks 0 and 2 at site A (here, by fork), rank 1 at site B (the gatekeeper);
        # shared memory is excluded so that every pair talks TCP over loopback. The
        # program finds the library through the job's environment, as a user's would.
        libs = os.path.join(ctx.tmp, "pub", "mpi")
        job = ctx.file("marker.yaml", f"executable: {program}\narguments: ['--marker={ctx.marker}']\n"
                                      f"directory: {grid.shared}\n"
                                      f"environment: {{STRATA_EXCLUDE_METHODS: shm, LD_LIBRARY_PATH: '{libs}'}}\n"
                                      f"{security}subjobs:\n"
                                      f"  - {{contact: localhost/fork, count: 1, site: A}}\n"
                                      f"  - {{contact: '{a.contact}', count: 1, site: B}}\n"
                                      f"  - {{contact: localhost/fork, count: 1, site: A}}\n")
        capture = LoopbackCapture()
        try:
            r = grid.run(["-v", "-jobfile", job])
        finally:
            wire = capture.stop()
        expect_code(r, 0)
        # mpirun -v shows which links run TLS: rank 1's, between the sites.
        tls0, tls1 = ("", "") if crossing_visible else (" (tls: 1)", " (tls: 0,2)")
        expect_stderr(r, rf"^strata: rank 0: methods: self: 0; tcp: 1-2{re.escape(tls0)}$")
        expect_stderr(r, rf"^strata: rank 1: methods: self: 1; tcp: 0,2{re.escape(tls1)}$")
        check(sorted(r.stdout.splitlines()) == ["marker ok 0", "marker ok 1", "marker ok 2"], "every rank ran", r)
        check((b"strata-wire-marker-to-1;" in wire) == crossing_visible,
              f"the link between sites {'carries' if crossing_visible else 'hides'} the text "
              f"({'no security setting' if crossing_visible else security.strip()})")
        check(b"strata-wire-marker-to-2;" in wire, "the link within site A stays plain (and the capture works)")
        expect_nobody_left(ctx)


def data_tls_disagreement(grid):
    """Subjobs whose STRATA_DATA_TLS differ would each wait for the other on their links:
    MPI_Init refuses it everywhere, naming both settings, and the job ends."""
    ctx = grid.ctx
    program = grid.publish(TOOLS["marker"], "bin")
    job = ctx.file("mixed.yaml", f"executable: {program}\narguments: ['--marker={ctx.marker}']\n"
                                 f"environment: {{STRATA_EXCLUDE_METHODS: shm}}\nsubjobs:\n"
                                 f"  - {{count: 1, environment: {{STRATA_DATA_TLS: all}}}}\n"
                                 f"  - {{count: 1}}\n")
    r = grid.run(["-jobfile", job])
    check(r.returncode != 0, "the job fails", r)
    expect_stderr(r, r"STRATA_DATA_TLS is '(all|off)' at rank [01] but '(off|all)' at rank [01]: the links between "
                     r"them cannot agree on TLS; set it once for the whole job")
    expect_nobody_left(ctx)


SCENARIOS = {f.__name__: f for f in [proxy_run, limited_proxy, expired_proxy, foreign_issuer, tampered_certificate,
                                     delegation, data_tls, data_tls_disagreement]}


def main():
    def prepare(args):
        for key, option in (("forge", "forge"), ("init", "proxy_init"), ("info", "proxy_info"), ("marker", "marker")):
            TOOLS[key] = os.path.abspath(getattr(args, option))

    return grid_main(SCENARIOS, ("forge", "proxy-init", "proxy-info", "marker"), prepare)


if __name__ == "__main__":
    sys.exit(main())
