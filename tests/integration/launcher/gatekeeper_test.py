#!/usr/bin/env python3
"""End-to-end tests of mpirun with real strata-gatekeepers, one scenario per run.

    gatekeeper_test.py SCENARIO --mpirun PATH --fake-rank PATH --gatekeeper PATH
                       --strata-ca PATH --ring PATH

Each scenario makes a CA, a host certificate for localhost and a user
certificate with strata-ca in a fresh HOME, starts the gatekeepers it needs on
loopback (port 0, read back from --port-file), runs mpirun with that HOME, and
stops the gatekeepers (strata_test.grid). Every process started carries the
test's marker, so the test proves nothing is left anywhere afterwards.
Timeouts are only hang guards: no verdict depends on timing.
"""

import os
import pwd
import re
import shutil
import signal
import socket
import ssl
import struct
import subprocess
import sys
import time

from strata_test.grid import USER_DN, Namespaces, Slurm, fake_args, grid_main, when_ready
from strata_test.harness import GUARD, check, expect_code, expect_nobody_left, expect_stderr, mpirun_lines


# ---- runs across sites --------------------------------------------------------


def two_sites(grid):
    ctx = grid.ctx
    a = grid.start("siteA")
    b = grid.start("siteB")
    job = grid.job("two.yaml", [("localhost/fork", 1), (a.contact, 2, None, "anl"), (b.contact, 1, None, "uc")],
                   fake_args(ctx, "init", "print:hello from {rank} of {size}", "print-env:USER",
                             "print-env:STRATA_SUBJOB", "print-labels:site", "print-labels:subjob", "finalize"))
    r = grid.run(["-l", "-jobfile", job])
    expect_code(r, 0)
    # Rank 0 runs here, with mpirun's environment; the others as the mapped account.
    # Every process gets every rank's topology labels at the startup barrier
    # (a subjob without a site label is the site of its contact's host).
    lines = sorted(l for l in r.stdout.splitlines() if not l.startswith("[0] USER"))
    want = sorted([f"[{i}] hello from {i} of 4" for i in range(4)] +
                  [f"[{i}] USER={grid.account}" for i in (1, 2, 3)] +
                  [f"[{i}] STRATA_SUBJOB={s}" for i, s in ((0, 0), (1, 1), (2, 1), (3, 2))] +
                  [f"[{i}] site: localhost anl anl uc" for i in range(4)] +
                  [f"[{i}] subjob: 0 1 1 2" for i in range(4)])
    check(lines == want, f"every rank's lines (want {want})", r)
    for g in (a, b):
        g.expect_log(rf'authenticated "{re.escape(USER_DN)}"$')
        g.expect_log(rf"subjob \d: ranks \d\.\.\d of '{re.escape(grid.fake_rank)}' as '{grid.account}' via fork$")
        g.expect_log(r"subjob DONE$")
    expect_nobody_left(ctx)
    # Output that ends with the process: every line, in order per rank, and the
    # last line without its newline, even at another site.
    job = grid.job("many.yaml", [(a.contact, 2), (b.contact, 1)],
                   fake_args(ctx, "print-many:3000:line from {rank}", "print-partial:last of {rank}"))
    r = grid.run(["-l", "-jobfile", job])
    expect_code(r, 0)
    for rank in range(3):
        lines = [l for l in r.stdout.splitlines() if l.startswith(f"[{rank}] ")]
        check(lines == [f"[{rank}] line from {rank} {k}" for k in range(3000)] + [f"[{rank}] last of {rank}"],
              f"rank {rank}'s 3001 lines in order", r)
    # The communicator file reaches every site with the startup data: one
    # mpirun writes from the job (-gencomm), and one only mpirun can read.
    labels = fake_args(ctx, "init", "print-commfile", "finalize")
    job = grid.job("comm.yaml", [("localhost/fork", 1), (a.contact, 2, None, "anl"), (b.contact, 1, None, "uc")],
                   labels)
    r = grid.run(["-l", "-gencomm", "-jobfile", job])
    expect_code(r, 0)
    texts = ["\n".join(l[4:] for l in r.stdout.splitlines() if l.startswith(f"[{rank}] commfile")) for rank in range(4)]
    check(all(t == texts[0] for t in texts), "every rank received the same communicator file", r)
    check(texts[0].startswith("commfile: mpirun -gencomm\n") and '<comm name="anl">' in texts[0] and
          "<processor>fake-1</processor>" in texts[0] and '<intercomm name="anl_uc">' in texts[0],
          "the file written from the job", r)
    private = os.path.join(ctx.tmp, "private-comm")
    os.makedirs(private, mode=0o700, exist_ok=True)
    path = os.path.join(private, "comms.xml")
    with open(path, "w") as f:
        f.write("<communicators>\n  <comm name='R'><processor>fake-.*</processor></comm>\n</communicators>\n")
    r = grid.run(["-l", "-commfile", path, "-jobfile", job])
    expect_code(r, 0)
    for rank in range(4):
        got = [l for l in r.stdout.splitlines() if l.startswith(f"[{rank}] commfile")]
        check(got == [f"[{rank}] commfile: {path}", f"[{rank}] commfile| <communicators>",
                      f"[{rank}] commfile|   <comm name='R'><processor>fake-.*</processor></comm>",
                      f"[{rank}] commfile| </communicators>"], f"rank {rank} received -commfile's text", r)
    # A real MPI program across both sites: the ring checks every byte it passes on.
    job = grid.job("ring.yaml", [(a.contact, 2), (b.contact, 2)], [], executable=grid.ring)
    r = grid.run(["-jobfile", job])
    expect_code(r, 0)
    check("1 MB message passed around 4 ranks intact" in r.stdout, "the ring's data check", r)


def stdin_to_remote_rank0(grid):
    a = grid.start("siteA")
    job = grid.job("stdin.yaml", [(a.contact, 2), ("localhost/fork", 1)],
                   fake_args(grid.ctx, "init", "echo-stdin", "finalize"))
    lines = [f"line {i} " + "x" * (i % 61) for i in range(3000)]
    r = grid.run(["-l", "-jobfile", job], stdin_text="\n".join(lines) + "\n")
    expect_code(r, 0)
    got = [l for l in r.stdout.splitlines() if l.startswith("[0] ")]
    check(got == [f"[0] stdin: {l}" for l in lines] + ["[0] stdin: EOF"], "rank 0 at the site read all of stdin", r)
    others = sorted(l for l in r.stdout.splitlines() if not l.startswith("[0] "))
    check(others == ["[1] stdin: EOF", "[2] stdin: EOF"], "the other ranks read an empty stdin", r)
    expect_nobody_left(grid.ctx)


def staging(grid, relative=False):
    """stage: the program and an input file go to the site, into a per-job directory of the
    mapped account, checked by SHA-256, and are removed after the job."""
    ctx = grid.ctx
    a = grid.start("siteA", relative=relative)
    program, data = grid.private_files("staged line 1\nstaged line 2\n")  # the mapped account cannot read them
    private = os.path.dirname(program)
    args = ", ".join(f'"{x}"' for x in fake_args(ctx, "init", "print-cwd", "print-file:input.dat", "finalize"))
    job = ctx.file("stage.yaml", f"""\
executable: {program}
arguments: [{args}]
subjobs:
  - contact: {a.contact}
    count: 2
    stage: [{data}]
""")
    r = grid.run(["-l", "-jobfile", job])
    check(r.returncode == 0, f"the staged job ran; gatekeeper log:\n{a.log()}", r)
    uid = pwd.getpwnam(grid.account).pw_uid
    cwds = set()
    for rank in (0, 1):
        lines = [l[4:] for l in r.stdout.splitlines() if l.startswith(f"[{rank}] ")]
        check(len(lines) == 3 and lines[1:] == ["input.dat: staged line 1", "input.dat: staged line 2"],
              f"rank {rank} read the staged file in its directory", r)
        m = re.fullmatch(rf"cwd=({re.escape(a.scratch)}/strata-job-{grid.account}-\w+) owner={uid}", lines[0])
        check(m is not None, f"rank {rank} ran in a job directory of '{grid.account}' under the scratch directory", r)
        cwds.add(m.group(1))
    check(len(cwds) == 1, "one job directory", r)
    a.expect_log(r"staged 2 file\(s\) into ")
    a.expect_log(rf"removed the job directory {re.escape(cwds.pop())}$")
    check(os.listdir(a.scratch) == [], "the job directory is gone", r)
    expect_nobody_left(ctx)
    # A file that cannot be staged: nothing is submitted.
    job = ctx.file("stage-missing.yaml", f"""\
executable: {program}
arguments: [{args}]
subjobs:
  - contact: {a.contact}
    count: 2
    stage: [{private}/no-such-file]
""")
    r = grid.run(["-jobfile", job])
    expect_code(r, 1)
    expect_stderr(r, rf"failed: cannot stage '{re.escape(private)}/no-such-file': No such file or directory; ending the job$")
    expect_nobody_left(ctx)


def login_environment(grid):
    """Processes at a site get a login's environment (HOME, USER, LOGNAME, SHELL, PATH), the
    site's additions and the job's variables: nothing of the gatekeeper's own."""
    ctx = grid.ctx
    a = grid.start("siteA", env={"GATEKEEPER_ONLY": "leak", "PYENV_ROOT": "/root/.pyenv"},
                   extra="environment: {SITE_ADDED: 'from the site', PATH: '/opt/site/bin:/usr/bin:/bin'}\n")
    names = ["HOME", "USER", "LOGNAME", "SHELL", "PATH", "SITE_ADDED", "JOB_VAR", "GATEKEEPER_ONLY", "PYENV_ROOT"]
    args = ", ".join(f'"{x}"' for x in fake_args(ctx, "init", *(f"print-env:{n}" for n in names), "finalize"))
    job = ctx.file("env.yaml", f"""\
executable: {grid.fake_rank}
arguments: [{args}]
directory: {grid.shared}
environment: {{JOB_VAR: from the job}}
subjobs:
  - contact: {a.contact}
    count: 1
""")
    r = grid.run(["-jobfile", job])
    expect_code(r, 0)
    account = pwd.getpwnam(grid.account)
    check(r.stdout.splitlines() == [f"HOME={account.pw_dir}", f"USER={grid.account}", f"LOGNAME={grid.account}",
                                    f"SHELL={account.pw_shell}", "PATH=/opt/site/bin:/usr/bin:/bin",
                                    "SITE_ADDED=from the site", "JOB_VAR=from the job", "GATEKEEPER_ONLY unset",
                                    "PYENV_ROOT unset"], "a login's environment, the site's, the job's", r)
    expect_nobody_left(ctx)


def staging_relative_config(grid):
    """The same with the gatekeeper started as `-c siteA/gatekeeper.yaml` (from another
    directory) and `scratch: scratch`: the paths are the configuration file's."""
    staging(grid, relative=True)


def netns_three_sites(grid):
    """Three sites, each in its own network namespace with its own address and a gatekeeper
    on the default port: 2 + 2 + 4 ranks run a ring and the all-to-all checks, over shared
    memory inside a site and TCP between sites."""
    ctx = grid.ctx
    if os.geteuid() != 0 or shutil.which("ip") is None:
        print("SKIP: network namespaces need root and iproute2")
        sys.exit(77)
    nets = Namespaces(ctx)
    try:
        sites = []
        for name in ("s1", "s2", "s3"):
            grid.ca("host", "--name", nets.addr[name])
            sites.append(grid.start(name, host=nets.addr[name], netns=nets.ns(name)))
        contacts = [sites[0].contact.replace(":2119/fork", ""), sites[1].contact.replace(":2119", ""),
                    sites[2].contact.replace("/fork", "/jobmanager-fork")]
        check([g.port for g in sites] == [2119] * 3, "the gatekeepers listen on the default port")

        def job(name, program):
            lines = [f"executable: {program}", f"directory: {grid.shared}", "subjobs:"]
            for contact, count, site in zip(contacts, (2, 2, 4), ("site1", "site2", "site3")):
                lines.append(f"  - {{contact: '{contact}', count: {count}, site: {site}}}")
            return ctx.file(name, "\n".join(lines) + "\n")

        env = dict(os.environ)
        env.update(grid.env())
        for program, expect in ((grid.ring, "1 MB message passed around 8 ranks intact"),
                                (grid.alltoall, "ok (8 processes)")):
            r = subprocess.run(["ip", "netns", "exec", nets.ns("user"), ctx.mpirun, "-v", "-l", "-jobfile",
                                job("job.yaml", program), "--marker=" + ctx.marker][:-1],
                               stdin=subprocess.DEVNULL, capture_output=True, text=True, env=env, timeout=GUARD * 2)
            expect_code(r, 0)
            check(expect in r.stdout, f"the program's own check: '{expect}'", r)
            # The start's trace (mpirun -v), for docs/PERFORMANCE.md's figures.
            for line in r.stderr.splitlines():
                if "startup" in line or "MPI_Init phases" in line:
                    print(line)
            # Shared memory inside each site, TCP across sites.
            for rank, methods in ((0, "shm: 1; tcp: 2-7"), (2, "shm: 3; tcp: 0-1,4-7"), (4, "shm: 5-7; tcp: 0-3")):
                expect_stderr(r, rf"^\[{rank}\] strata: rank {rank}: methods: self: {rank}; {methods}$")
            for k, g in enumerate(sites):
                g.expect_log(rf"\[\d+ {re.escape(nets.addr['user'])}:\d+ \"{re.escape(USER_DN)}\"\] subjob DONE$")
        expect_nobody_left(ctx)
    finally:
        grid.stop()
        nets.remove()


def slurm_subjob(grid):
    """A subjob through a gatekeeper's slurm adapter, on a single-node Slurm the test starts,
    beside a subjob on this machine: the ring passes its data through both."""
    ctx = grid.ctx
    slurm = Slurm(grid)
    try:
        a = grid.start("siteA", adapters=("fork", "slurm"), env={**slurm.env, "GATEKEEPER_ONLY": "leak"})
        contact = f"localhost:{a.port}/slurm"
        job = grid.job("ring.yaml", [("localhost/fork", 1), (contact, 2)], [], executable=grid.ring)
        r = grid.run(["-v", "-jobfile", job])
        expect_code(r, 0)
        check("1 MB message passed around 3 ranks intact" in r.stdout, "the ring's data check", r)
        subjob1 = re.escape(f"subjob 1 (localhost:{a.port}/jobmanager-slurm)")
        expect_stderr(r, rf"^mpirun: {subjob1}: PENDING: slurm job \d+$")
        expect_stderr(r, rf"^mpirun: {subjob1}: ACTIVE$")
        expect_stderr(r, rf"^mpirun: {subjob1}: DONE$")
        a.expect_log(rf"of '{re.escape(grid.ring)}' as '{grid.account}' via slurm$")
        # The processes ran as the mapped account, with their ranks and the labels.
        job = grid.job("fake.yaml", [("localhost/fork", 1), (contact, 2)],
                       fake_args(ctx, "init", "print-env:USER", "print-env:GATEKEEPER_ONLY", "print-labels:subjob",
                                 "finalize"))
        r = grid.run(["-l", "-jobfile", job])
        expect_code(r, 0)
        lines = sorted(l for l in r.stdout.splitlines() if not l.startswith(("[0] USER", "[0] GATEKEEPER_ONLY")))
        check(lines == sorted([f"[{i}] subjob: 0 1 1" for i in range(3)] +
                              [f"[{i}] USER={grid.account}" for i in (1, 2)] +
                              [f"[{i}] GATEKEEPER_ONLY unset" for i in (1, 2)]),
              "ranks 1 and 2 ran through Slurm, with nothing of the gatekeeper's environment", r)
        expect_nobody_left(ctx)
    finally:
        grid.stop()
        slurm.stop()


# ---- refusals and failures ----------------------------------------------------


def tls_client(grid, g):
    """A TLS connection to gatekeeper `g` with the user's credential, as mpirun makes it."""
    ctx = ssl.create_default_context(capath=grid.certdir)
    strata = os.path.join(grid.home, ".strata")
    ctx.load_cert_chain(os.path.join(strata, "usercert.pem"), os.path.join(strata, "userkey.pem"))
    raw = socket.create_connection(("127.0.0.1", g.port), timeout=GUARD)
    return ctx.wrap_socket(raw, server_hostname="localhost")


def read_state(conn):
    """The gatekeeper's State frame after its Hello: (state, detail); then the connection must end."""
    data = b""
    while True:
        chunk = conn.recv(65536)
        if not chunk:
            break
        data += chunk
    # The gatekeeper's Hello comes first, whatever the client sent.
    check(len(data) >= 5 and data[4] == 14, f"the gatekeeper's Hello first, got {data!r}")
    data = data[5 + struct.unpack("<I", data[:4])[0]:]
    check(len(data) >= 13, f"a State frame, got {data!r}")
    length, kind = struct.unpack("<IB", data[:5])
    check(kind == 2 and len(data) == 5 + length, f"exactly one State frame, got {data!r}")
    state, n = struct.unpack("<II", data[5:13])
    return state, data[13:13 + n].decode()


def hostile_clients(grid):
    """Clients that do not speak the protocol: each is refused with the reason and logged,
    nothing starts, and the gatekeeper serves the next one."""
    ctx = grid.ctx
    a = grid.start("siteA", extra="limits: {handshake_timeout: 1, max_request_bytes: 65536}\n")
    version = subprocess.run([grid.gatekeeper, "--version"], capture_output=True, text=True,
                             timeout=GUARD).stdout.split()[-1]

    def hello(v):
        return struct.pack("<IBI", 4 + len(v), 14, len(v)) + v.encode()

    ours = hello(version)
    cases = [
        (struct.pack("<IB", 65537, 1), "the request is malformed or larger than this site's limit of 65536 bytes"),
        (struct.pack("<IB", 4, 99) + b"abcd", "the request is malformed or larger than this site's limit of 65536 bytes"),
        (struct.pack("<IB", 3, 1) + b"xyz", f"mpirun sent no Hello first (is it an older Strata than {version}?)"),
        (hello("0.0.1"), f"mpirun is Strata 0.0.1 but this site runs Strata {version}; use the same version at both ends"),
        (ours + ours, "a second Hello"),
        (ours + struct.pack("<IB", 3, 1) + b"xyz",
         "a malformed Submit ('subjob': cut short at byte 0: a 4-byte integer needs 4, 3 left)"),
        (ours + struct.pack("<IB", 4, 11) + struct.pack("<I", 0), "staged data nobody announced"),
        (ours + struct.pack("<IB", 0, 2), "an unexpected message"),
    ]
    for frame, reason in cases:
        with tls_client(grid, a) as conn:
            conn.sendall(frame)
            state, detail = read_state(conn)
        check((state, detail) == (3, reason), f"FAILED with '{reason}', got {state} '{detail}'")
        a.expect_log(rf"refused: {re.escape(reason)}$")
    # Silence after the handshake: dropped after handshake_timeout.
    with tls_client(grid, a) as conn:
        data = b""
        while chunk := conn.recv(65536):
            data += chunk
        check(data == ours, f"the gatekeeper says Hello and closes a silent connection, got {data!r}")
    a.expect_log(r"closed: no request within 1 s$")
    # A client without a certificate never gets past TLS.
    plain = ssl.create_default_context(capath=grid.certdir)
    try:
        with plain.wrap_socket(socket.create_connection(("127.0.0.1", a.port), timeout=GUARD),
                               server_hostname="localhost") as conn:
            conn.sendall(struct.pack("<IB", 0, 1))
            conn.recv(1)
        refused = False
    except (ssl.SSLError, ConnectionResetError):
        refused = True
    check(refused, "a client without a certificate is refused")
    a.expect_log(r"refused: TLS handshake failed: .*certificate")
    # And a real job still runs there.
    job = grid.job("job.yaml", [(a.contact, 2)], fake_args(ctx, "init", "print:ok {rank}", "finalize"))
    r = grid.run(["-jobfile", job])
    expect_code(r, 0)
    check(sorted(r.stdout.splitlines()) == ["ok 0", "ok 1"], "the job ran", r)
    check(a.proc.poll() is None, "the gatekeeper keeps running")
    expect_nobody_left(ctx)


def log_flood(grid):
    """A stranger's connections fill at most 20 log lines a minute; the rest are counted, and
    an authenticated user's job is logged in full meanwhile."""
    ctx = grid.ctx
    a = grid.start("siteA")
    for _ in range(60):
        with socket.create_connection(("127.0.0.1", a.port), timeout=GUARD) as s:
            s.sendall(b"not TLS at all\r\n")
            s.shutdown(socket.SHUT_WR)
            s.recv(100)
    a.expect_log(r"too many unauthenticated connections from 127\.0\.0\.1: their lines are dropped for the rest "
                 r"of this minute$")
    stranger_lines = [l for l in a.log().splitlines() if re.search(r"\[\d+ 127\.0\.0\.1:\d+\] ", l)]
    check(len(stranger_lines) <= 20, f"at most 20 lines about the stranger: {len(stranger_lines)}")
    r = grid.run(["-jobfile", grid.job("job.yaml", [(a.contact, 1)], fake_args(ctx, "init", "finalize"))])
    expect_code(r, 0)
    a.expect_log(rf"\[\d+ 127\.0\.0\.1:\d+ \"{re.escape(USER_DN)}\"\] subjob DONE$")
    expect_nobody_left(ctx)


def out_of_descriptors(grid):
    """A gatekeeper out of file descriptors says so once, waits instead of spinning, and
    accepts again when connections close."""
    ctx = grid.ctx
    if shutil.which("prlimit") is None:
        print("SKIP: prlimit (util-linux) is needed")
        sys.exit(77)
    if os.environ.get("STRATA_TEST_SANITIZED"):
        # UBSan's vptr check proves memory readable through a pipe, which a
        # process out of descriptors cannot make: it then reports every virtual
        # call (here boost's error_category) as a bad object and stops it.
        print("SKIP: a sanitized process cannot run out of descriptors")
        sys.exit(77)
    a = grid.start("siteA")
    r = subprocess.run(["prlimit", "--pid", str(a.proc.pid), "--nofile=48:48"], capture_output=True, text=True)
    check(r.returncode == 0, f"prlimit: {r.stderr}")
    idle = [socket.create_connection(("127.0.0.1", a.port), timeout=GUARD) for _ in range(60)]
    a.expect_log(r"cannot accept connections: Too many open files; retrying, less often while it lasts$")
    for s in idle:
        s.close()
    r = grid.run(["-jobfile", grid.job("job.yaml", [(a.contact, 1)], fake_args(ctx, "init", "finalize"))])
    expect_code(r, 0)
    a.expect_log(r"accepting connections again$")
    check(a.proc.poll() is None, "the gatekeeper keeps running")
    expect_nobody_left(ctx)


def gatekeeper_down(grid):
    ctx = grid.ctx
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()  # nothing listens there now
    job = grid.job("down.yaml", [("localhost/fork", 1), (f"localhost:{port}/fork", 2)],
                   fake_args(ctx, "init", "sleep"))
    r = grid.run(["-jobfile", job])
    expect_code(r, 1)
    expect_stderr(r, rf"^mpirun: subjob 1 \(site localhost, contact localhost:{port}/jobmanager-fork\) failed: cannot reach "
                     rf"gatekeeper localhost:{port}: Connection refused \(is strata-gatekeeper running there\?\); "
                     r"ending the job$")
    expect_nobody_left(ctx)
    # The same through a machine file's contact line.
    mf = ctx.file("down.machines", f"localhost\n127.0.0.1:{port}/fork 2\n")
    r = grid.run(["-f", mf, *ctx.fake("init", "sleep")])
    expect_code(r, 1)
    expect_stderr(r, rf"^mpirun: subjob 1 \(site 127\.0\.0\.1, contact 127\.0\.0\.1:{port}/jobmanager-fork\) failed: "
                     r"cannot reach gatekeeper 127\.0\.0\.1")
    expect_nobody_left(ctx)


def unknown_ca(grid):
    """A user whose certificate another CA signed is refused in the handshake."""
    ctx = grid.ctx
    a = grid.start("siteA")
    other = os.path.join(ctx.tmp, "other-home")
    os.mkdir(other)
    grid.ca("create-ca", "--subject", "/O=Elsewhere/CN=Other CA", home=other)
    grid.ca("user", "--name", "Jane Doe", home=other)
    # This user trusts the site's CA too, so only the site's refusal can stop it.
    copied = os.listdir(grid.certdir)
    for name in copied:
        shutil.copy(os.path.join(grid.certdir, name), os.path.join(other, ".strata", "certificates", name))
    job = grid.job("job.yaml", [(a.contact, 2)], fake_args(ctx, "touch:" + os.path.join(grid.shared, "started")))
    r = grid.run(["-jobfile", job], home=other)
    expect_code(r, 1)
    expect_stderr(r, rf"^mpirun: subjob 0 \(site localhost, contact localhost:{a.port}/jobmanager-fork\) failed: TLS handshake "
                     rf"with gatekeeper localhost:{a.port} failed: .*unknown ca \(does the site trust the CA that "
                     r"signed your certificate\?\); ending the job$")
    a.expect_log(r"refused: TLS handshake failed: certificate refused: .+$")
    check(not os.listdir(grid.shared), "nothing started", r)
    expect_nobody_left(ctx)
    # And mpirun refuses a gatekeeper whose certificate it cannot trust.
    for name in copied:
        os.unlink(os.path.join(other, ".strata", "certificates", name))
    r = grid.run(["-jobfile", job], home=other)
    expect_code(r, 1)
    expect_stderr(r, r"failed: TLS handshake with gatekeeper localhost:\d+ failed: its certificate was refused: .+; "
                     r"ending the job$")
    check(not os.listdir(grid.shared), "nothing started", r)
    expect_nobody_left(ctx)
    # A gatekeeper whose certificate names another host than the contact: the
    # certificate is for "localhost", the contact says 127.0.0.1.
    job = grid.job("by-address.yaml", [(f"127.0.0.1:{a.port}/fork", 2)],
                   fake_args(ctx, "touch:" + os.path.join(grid.shared, "started")))
    r = grid.run(["-jobfile", job])
    expect_code(r, 1)
    expect_stderr(r, rf"failed: TLS handshake with gatekeeper 127\.0\.0\.1:{a.port} failed: its certificate does not name "
                     r"127\.0\.0\.1; ending the job$")
    check(not os.listdir(grid.shared), "nothing started", r)
    expect_nobody_left(ctx)


def revoked(grid):
    """Certificates on the CA's revocation list: a user's is refused by the gatekeeper,
    a gatekeeper's by mpirun; a certificate not on the list still works."""
    ctx = grid.ctx
    eve_home, eve_dir = grid.other_user("Eve Revoked")
    eve_dn = "/O=Strata Grid/OU=Users/CN=Eve Revoked"
    # Eve is in the grid-mapfile: only the revocation can stop her.
    a = grid.start("siteA", gridmap=f'"{USER_DN}" {grid.account}\n"{eve_dn}" {grid.account}\n')
    grid.ca("revoke", os.path.join(eve_dir, "usercert.pem"))
    check(any(n.endswith(".r0") for n in os.listdir(grid.certdir)), "strata-ca revoke installs <hash>.r0")
    job = grid.job("job.yaml", [(a.contact, 2)], fake_args(ctx, "touch:" + os.path.join(grid.shared, "started")))
    r = grid.run(["-jobfile", job], home=eve_home)
    expect_code(r, 1)
    expect_stderr(r, rf"^mpirun: subjob 0 \(site localhost, contact localhost:{a.port}/jobmanager-fork\) failed: TLS "
                     rf"handshake with gatekeeper localhost:{a.port} failed: .*certificate revoked \(your certificate is on "
                     r"its CA's revocation list; ask the CA for a new one\); ending the job$")
    # The refusal names who presented the certificate.
    a.expect_log(r'presented "/O=Strata Grid/OU=Users/CN=Eve Revoked"\] refused: TLS handshake failed: certificate '
                 r"refused: certificate revoked$")
    check(not os.listdir(grid.shared), "nothing started", r)
    expect_nobody_left(ctx)
    # With the list in place, a certificate that is not on it still works.
    ok = grid.job("ok.yaml", [(a.contact, 2)], fake_args(ctx, "init", "print:ok {rank}", "finalize"))
    r = grid.run(["-jobfile", ok])
    expect_code(r, 0)
    check(sorted(l for l in r.stdout.splitlines() if l.startswith("ok")) == ["ok 0", "ok 1"], "both ranks ran", r)
    # The gatekeeper's own certificate revoked: mpirun refuses the site.
    grid.ca("revoke", os.path.join(grid.home, ".strata", "hosts", "localhost", "hostcert.pem"))
    r = grid.run(["-jobfile", job])
    expect_code(r, 1)
    expect_stderr(r, rf"failed: TLS handshake with gatekeeper localhost:{a.port} failed: its certificate was refused: "
                     r"certificate revoked; ending the job$")
    check(not os.listdir(grid.shared), "nothing started", r)
    expect_nobody_left(ctx)


def unmapped_user(grid):
    ctx = grid.ctx
    a = grid.start("siteA", gridmap='"/O=Strata Grid/OU=Users/CN=Someone Else" someone\n')
    job = grid.job("job.yaml", [("localhost/fork", 1), (a.contact, 2)], fake_args(ctx, "init", "sleep"))
    r = grid.run(["-jobfile", job])
    expect_code(r, 1)
    expect_stderr(r, rf'^mpirun: subjob 1 \(site localhost, contact localhost:{a.port}/jobmanager-fork\) failed: not authorized: '
                     rf'"{re.escape(USER_DN)}" is not in this site\'s grid-mapfile; ending the job$')
    a.expect_log(rf'refused: not authorized: "{re.escape(USER_DN)}" is not in this site\'s grid-mapfile$')
    expect_nobody_left(ctx)


def job_limit(grid):
    """max_jobs: while one subjob runs at a site that allows one, another is refused; once
    it ended, the next is accepted."""
    ctx = grid.ctx
    a = grid.start("siteA", extra="limits: {max_jobs: 1}\n")
    busy = grid.job("busy.yaml", [(a.contact, 1)], fake_args(ctx, "init", "print:ready {rank}", "sleep"))
    other = grid.job("other.yaml", [(a.contact, 1)], fake_args(ctx, "init", "print:ok", "finalize"))
    refused = []
    first = when_ready(grid, busy, 1, lambda p: (refused.append(grid.run(["-jobfile", other])),
                                                 p.send_signal(signal.SIGINT)))
    expect_code(first, 130)
    expect_code(refused[0], 1)
    expect_stderr(refused[0], r"failed: this site already runs its limit of 1 subjobs; ending the job$")
    r = grid.run(["-jobfile", other])
    expect_code(r, 0)
    check(r.stdout == "ok\n", "the next subjob ran", r)
    expect_nobody_left(ctx)


def job_limit_per_user(grid):
    """max_jobs_per_user: while Jane's subjob runs at a site that allows one per user,
    her next is refused and someone else's runs."""
    ctx = grid.ctx
    eve_home, _ = grid.other_user("Eve")
    a = grid.start("siteA", gridmap=f'"{USER_DN}" {grid.account}\n"/O=Strata Grid/OU=Users/CN=Eve" {grid.account}\n',
                   extra="limits: {max_jobs_per_user: 1}\n")
    busy = grid.job("busy.yaml", [(a.contact, 1)], fake_args(ctx, "init", "print:ready {rank}", "sleep"))
    other = grid.job("other.yaml", [(a.contact, 1)], fake_args(ctx, "init", "print:ok", "finalize"))
    results = []
    first = when_ready(grid, busy, 1, lambda p: (results.append(grid.run(["-jobfile", other])),
                                                 results.append(grid.run(["-jobfile", other], home=eve_home)),
                                                 p.send_signal(signal.SIGINT)))
    expect_code(first, 130)
    expect_code(results[0], 1)
    expect_stderr(results[0], rf'failed: this site already runs its limit of 1 subjobs for "{re.escape(USER_DN)}"; '
                              r"ending the job$")
    expect_code(results[1], 0)
    check(results[1].stdout == "ok\n", "another user's subjob ran meanwhile", results[1])
    expect_nobody_left(ctx)


def account_rules(grid):
    """Never root; and a gatekeeper that is not root starts processes only as itself."""
    ctx = grid.ctx
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        print("SKIP: running a gatekeeper as another account needs root and setpriv")
        sys.exit(77)
    job_args = fake_args(ctx, "init", "print-env:USER", "finalize")
    a = grid.start("siteA", gridmap=f'"{USER_DN}" root\n')
    r = grid.run(["-jobfile", grid.job("root.yaml", [(a.contact, 1)], job_args)])
    expect_code(r, 1)
    expect_stderr(r, r"failed: not authorized: the grid-mapfile maps to root, which never runs jobs; ending the job$")
    b = grid.start("siteB", gridmap=f'"{USER_DN}" daemon\n', user="nobody")
    r = grid.run(["-jobfile", grid.job("daemon.yaml", [(b.contact, 1)], job_args)])
    expect_code(r, 1)
    expect_stderr(r, r"failed: not authorized: this gatekeeper runs as 'nobody' and can start processes only as that "
                     r"account, not as 'daemon'; ending the job$")
    c = grid.start("siteC", gridmap=f'"{USER_DN}" nobody\n', user="nobody")
    r = grid.run(["-jobfile", grid.job("nobody.yaml", [(c.contact, 2)], job_args)])
    expect_code(r, 0)
    check(r.stdout.splitlines() == ["USER=nobody"] * 2, "both ran as nobody", r)
    expect_nobody_left(ctx)


def account_choice(grid):
    """A grid-mapfile line with several accounts: the first by default, another when the job
    names it (YAML `account`, RSL `(account=...)`), and never one the line does not list."""
    ctx = grid.ctx
    if os.geteuid() != 0:
        print("SKIP: starting processes as several accounts needs root")
        sys.exit(77)
    a = grid.start("siteA", gridmap=f'"{USER_DN}" nobody,daemon\n')
    job_args = fake_args(ctx, "init", "print-env:USER", "finalize")
    for account, expect in ((None, "nobody"), ("daemon", "daemon")):
        job = grid.job("job.yaml", [(a.contact, 1)], job_args)
        if account is not None:
            with open(job, "a") as f:
                f.write(f"account: {account}\n")
        r = grid.run(["-jobfile", job])
        expect_code(r, 0)
        check(r.stdout.splitlines() == [f"USER={expect}"], f"ran as {expect}", r)
    args = " ".join(f'"{x}"' for x in job_args)
    rsl = ctx.file("job.rsl", f'+(&(resourceManagerContact="{a.contact}")(count=1)(executable={grid.fake_rank})'
                              f'(arguments={args})(directory={grid.shared})(account=daemon))\n')
    r = grid.run(["-jobfile", rsl])
    expect_code(r, 0)
    check(r.stdout.splitlines() == ["USER=daemon"], "RSL's (account=daemon)", r)
    job = grid.job("bin.yaml", [(a.contact, 1)], job_args)
    with open(job, "a") as f:
        f.write("account: bin\n")
    r = grid.run(["-jobfile", job])
    expect_code(r, 1)
    expect_stderr(r, rf"failed: not authorized: the grid-mapfile does not map \"{re.escape(USER_DN)}\" to 'bin'; "
                     r"ending the job$")
    expect_nobody_left(ctx)


def missing_executable(grid):
    ctx = grid.ctx
    a = grid.start("siteA")
    b = grid.start("siteB")
    job = grid.job("job.yaml", [(a.contact, 2), (b.contact, 1, "/nonexistent/app")], fake_args(ctx, "init", "sleep"))
    r = grid.run(["-jobfile", job])
    expect_code(r, 127)
    expect_stderr(r, rf"^mpirun: cannot start '/nonexistent/app' for rank 2 at localhost:{b.port}/jobmanager-fork: No "
                     r"such file or directory$")
    b.expect_log(r"rank 2 could not start: No such file or directory$")
    expect_nobody_left(ctx)


def inaccessible_directory(grid):
    """A directory the mapped account cannot enter is named in the refusal, for the fork and
    the slurm adapter alike (both check as the account)."""
    ctx = grid.ctx
    if os.geteuid() != 0:
        print("SKIP: a directory only root can enter needs root")
        sys.exit(77)
    private = os.path.join(ctx.tmp, "root-only")
    os.mkdir(private, 0o700)
    a = grid.start("siteA")
    job = grid.job("job.yaml", [(a.contact, 1)], fake_args(ctx, "init", "finalize"))
    with open(job) as f:
        text = f.read().replace(f"directory: {grid.shared}", f"directory: {private}")
    with open(job, "w") as f:
        f.write(text)
    r = grid.run(["-jobfile", job])
    expect_code(r, 127)
    expect_stderr(r, rf"^mpirun: cannot start '{re.escape(grid.fake_rank)}' for rank 0 at localhost:{a.port}/"
                     rf"jobmanager-fork: cannot change to directory '{re.escape(private)}': Permission denied$")
    expect_nobody_left(ctx)


def rank_crash(grid):
    ctx = grid.ctx
    a = grid.start("siteA")
    b = grid.start("siteB")
    job = grid.job("job.yaml", [(a.contact, 2), (b.contact, 2)], fake_args(ctx, "init", "@3:signal:9", "sleep"))
    r = grid.run(["-jobfile", job])
    expect_code(r, 137)
    expect_stderr(r, r"^mpirun: rank 3 \(pid \d+\) was killed by signal 9 \(Killed\) before MPI_Finalize; ending the job$")
    expect_nobody_left(ctx)


def interrupt(grid):
    ctx = grid.ctx
    a = grid.start("siteA")
    b = grid.start("siteB")
    job = grid.job("job.yaml", [("localhost/fork", 1), (a.contact, 2), (b.contact, 1)],
                   fake_args(ctx, "init", "print:ready {rank}", "sleep"))
    r = when_ready(grid, job, 4, lambda p: p.send_signal(signal.SIGINT))
    expect_code(r, 130)
    expect_stderr(r, r"^mpirun: interrupted by signal 2 \(Interrupt\); ending the job$")
    for g in (a, b):
        g.expect_log(r"cancel requested \(terminate\)$")
    expect_nobody_left(ctx)


def mpirun_killed(grid):
    """A SIGKILLed mpirun cannot cancel anything: each gatekeeper notices the lost connection."""
    ctx = grid.ctx
    a = grid.start("siteA")
    b = grid.start("siteB")
    job = grid.job("job.yaml", [(a.contact, 2), (b.contact, 2)], fake_args(ctx, "init", "print:ready {rank}", "sleep"))
    when_ready(grid, job, 4, lambda p: p.kill())
    deadline = time.monotonic() + GUARD
    while ctx.leftovers() and time.monotonic() < deadline:
        time.sleep(0.05)
    expect_nobody_left(ctx)
    for g in (a, b):
        # The ranks lose mpirun at the same moment as their gatekeeper: it kills
        # the subjob, or the ranks end first (Client's watch) and it finds it done.
        g.expect_log(r"(connection lost \(.*\); killing the subjob|\] subjob DONE)$")
        check(g.proc.poll() is None, f"the gatekeeper keeps running (exit {g.proc.poll()}):\n{g.log()}")


# ---- live reconfiguration and shutdown -----------------------------------------


def reload_gridmap(grid):
    """SIGHUP re-reads the configuration and the grid-mapfile for new connections: a user
    added to the grid-mapfile runs at once, a subjob that was running goes on, and a
    configuration, grid-mapfile or CA directory that does not load leaves the previous one
    in place; a new port waits for a restart."""
    ctx = grid.ctx
    bob_home, _ = grid.other_user("Bob Later")
    bob_dn = "/O=Strata Grid/OU=Users/CN=Bob Later"
    a = grid.start("siteA")
    gridmap = os.path.join(a.dir, "grid-mapfile")
    with open(a.config) as f:
        config = f.read()
    busy = grid.job("busy.yaml", [(a.contact, 2)], fake_args(ctx, "init", "print:ready {rank}", "sleep"))
    ok = grid.job("ok.yaml", [(a.contact, 1)], fake_args(ctx, "init", "print:ok", "finalize"))
    hup = "strata-gatekeeper: signal 1: "
    reloaded = hup + r"reloaded: 2 grid-mapfile entries, adapters: fork$"
    failed = hup + "reload failed: {}; keeping the previous configuration$"

    def bob_runs(why):
        r = grid.run(["-jobfile", ok], home=bob_home)
        expect_code(r, 0)
        check(r.stdout == "ok\n", why, r)

    def while_busy(p):
        r = grid.run(["-jobfile", ok], home=bob_home)
        expect_code(r, 1)
        expect_stderr(r, rf'failed: not authorized: "{re.escape(bob_dn)}" is not in this site\'s grid-mapfile; '
                         r"ending the job$")
        with open(gridmap, "a") as f:
            f.write(f'"{bob_dn}" {grid.account}\n')
        a.signal_and_expect(signal.SIGHUP, reloaded)
        bob_runs("the user added to the grid-mapfile runs after SIGHUP")
        # Junk in the configuration file.
        with open(a.config, "w") as f:
            f.write("port: [junk\n")
        a.signal_and_expect(signal.SIGHUP, failed.format(re.escape(a.config) + r":\d+:\d+: .+"))
        bob_runs("the previous configuration still serves")
        # A grid-mapfile that does not parse: the old mapping stays.
        with open(a.config, "w") as f:
            f.write(config)
        with open(gridmap, "a") as f:
            f.write("not a subject\n")
        a.signal_and_expect(signal.SIGHUP, failed.format(re.escape(gridmap) + ":3: 'not' is not a subject; expected a "
                                                         r'quoted DN such as "/O=Grid/CN=Jane Doe"'))
        bob_runs("the previous grid-mapfile still serves")
        with open(gridmap) as f:
            lines = f.read().splitlines()
        with open(gridmap, "w") as f:
            f.write("\n".join(lines[:2]) + "\n")
        # A trusted-CA directory that is not there.
        with open(a.config, "w") as f:
            f.write(config.replace(f"ca_dir: {grid.certdir}", "ca_dir: /nonexistent/certificates"))
        a.signal_and_expect(signal.SIGHUP, failed.format(r"the trusted-CA directory /nonexistent/certificates does not "
                                                         r"exist \(strata-ca create-ca makes one; X509_CERT_DIR names "
                                                         r"another\)"))
        bob_runs("the previous trusted-CA directory still serves")
        # A new port: noted, kept; everything else reloads.
        with open(a.config, "w") as f:
            f.write(config.replace("port: 0", "port: 1"))
        a.signal_and_expect(signal.SIGHUP, reloaded)
        a.expect_log(r"strata-gatekeeper: the new listen address or port \(127\.0\.0\.1, port 1\) takes effect only "
                     rf"at a restart; still listening on 127\.0\.0\.1:{a.port}$")
        bob_runs("a job runs on the port the gatekeeper listens on")
        check(p.poll() is None, "the job that ran before the first reload still runs")
        p.send_signal(signal.SIGINT)

    first = when_ready(grid, busy, 2, while_busy)
    expect_code(first, 130)
    check(mpirun_lines(first) == ["mpirun: interrupted by signal 2 (Interrupt); ending the job"],
          "the first job ended only by its interrupt", first)
    a.expect_log(r"cancel requested \(terminate\)$")
    a.expect_log_count(hup, 5)
    check(a.proc.poll() is None, f"the gatekeeper keeps running:\n{a.log()}")
    expect_nobody_left(ctx)


def reload_revocation(grid):
    """A revocation list rewritten in place while the gatekeeper runs (a second `strata-ca
    revoke`) holds from the next connection on, without SIGHUP, and after one; a running
    job of a user who is not on it goes on."""
    ctx = grid.ctx
    users = {}
    for name in ("Eve Revoked", "Mallory Revoked"):
        home, strata = grid.other_user(name)
        users[name] = (home, os.path.join(strata, "usercert.pem"), f"/O=Strata Grid/OU=Users/CN={name}")
    # Everyone is in the grid-mapfile: only the revocation can stop them.
    a = grid.start("siteA", gridmap="".join(f'"{dn}" {grid.account}\n'
                                            for dn in [USER_DN, *(u[2] for u in users.values())]))
    busy = grid.job("busy.yaml", [(a.contact, 1)], fake_args(ctx, "init", "print:ready {rank}", "sleep"))
    probe = grid.job("probe.yaml", [(a.contact, 1)], fake_args(ctx, "init", "print:ok", "finalize"))
    changed = (r"strata-gatekeeper: the trusted-CA directory changed \({}\); new connections use its certificates and "
               r"revocation lists$")

    def runs(name):
        r = grid.run(["-jobfile", probe], home=users[name][0] if name else None)
        expect_code(r, 0)
        check(r.stdout == "ok\n", f"{name or 'Jane'}'s job ran", r)

    def refused(name):
        home, _, dn = users[name]
        r = grid.run(["-jobfile", probe], home=home)
        expect_code(r, 1)
        expect_stderr(r, rf"^mpirun: subjob 0 \(site localhost, contact localhost:{a.port}/jobmanager-fork\) failed: "
                         rf"TLS handshake with gatekeeper localhost:{a.port} failed: .*certificate revoked \(your "
                         r"certificate is on its CA's revocation list; ask the CA for a new one\); ending the job$")
        check(r.stdout == "", f"{name}'s job did not start", r)
        return dn

    def refusals(dn, n):
        a.expect_log_count(rf'presented "{re.escape(dn)}"\] refused: TLS handshake failed: certificate refused: '
                           r"certificate revoked$", n)

    def while_busy(p):
        runs("Mallory Revoked")  # no list yet
        grid.ca("revoke", users["Eve Revoked"][1])
        lists = [n for n in os.listdir(grid.certdir) if re.fullmatch(r"[0-9a-f]{8}\.r\d+", n)]
        check(len(lists) == 1, f"strata-ca revoke installed one list: {lists}")
        crl = lists[0]
        refusals(refused("Eve Revoked"), 1)
        a.expect_log_count(changed.format(re.escape(crl)), 1)
        runs("Mallory Revoked")  # the gatekeeper has read the list now, without Mallory
        with open(os.path.join(grid.certdir, crl), "rb") as f:
            first_list = f.read()
        grid.ca("revoke", users["Mallory Revoked"][1])
        with open(os.path.join(grid.certdir, crl), "rb") as f:
            rewritten = f.read() != first_list
        check(rewritten and [n for n in os.listdir(grid.certdir) if re.fullmatch(r"[0-9a-f]{8}\.r\d+", n)] == [crl],
              f"the second revocation rewrote {crl} and made no other list")
        refusals(refused("Mallory Revoked"), 1)  # at the next connection, and without a signal
        a.expect_log_count(changed.format(re.escape(crl)), 2)
        check(a.log_count(r"strata-gatekeeper: signal ") == 0, "no signal was sent")
        # After a reload both stay refused, and Jane (on no list) runs another job.
        a.signal_and_expect(signal.SIGHUP, "strata-gatekeeper: signal 1: reloaded: 3 grid-mapfile entries, "
                                           "adapters: fork$")
        for name in users:
            refusals(refused(name), 2)
        runs(None)
        check(p.poll() is None, "Jane's first job still runs")
        p.send_signal(signal.SIGINT)

    first = when_ready(grid, busy, 1, while_busy)
    expect_code(first, 130)
    check(mpirun_lines(first) == ["mpirun: interrupted by signal 2 (Interrupt); ending the job"],
          "Jane's job ended only by its interrupt", first)
    check(a.proc.poll() is None, f"the gatekeeper keeps running:\n{a.log()}")
    expect_nobody_left(ctx)


def shutdown_tells_mpirun(grid):
    """SIGTERM to a gatekeeper: every connected mpirun hears why its subjob ended ("site
    shutting down") instead of a broken connection, and ends its job; nothing is left."""
    ctx = grid.ctx
    a = grid.start("siteA")
    jobs = [grid.job(f"job{k}.yaml", [("localhost/fork", 1), (a.contact, 2)],
                     fake_args(ctx, "init", "print:ready {rank}", "sleep")) for k in (1, 2)]
    procs = [grid.popen(["-jobfile", job]) for job in jobs]
    results = []
    try:
        for p in procs:
            for _ in range(3):
                check(p.stdout.readline() != "", "mpirun ended before every rank was ready")
        a.proc.send_signal(signal.SIGTERM)
        for p in procs:
            out, err = p.communicate(timeout=GUARD)
            results.append(subprocess.CompletedProcess(p.args, p.returncode, out, err))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    for r in results:
        expect_code(r, 1)
        check(mpirun_lines(r) == [f"mpirun: subjob 1 (site localhost, contact localhost:{a.port}/jobmanager-fork) "
                                  "failed: site shutting down; ending the job"], "mpirun says why the job ended", r)
        check("stream truncated" not in r.stderr, "no broken connection", r)
    check(a.proc.wait(timeout=GUARD) == 0, f"the gatekeeper exits 0:\n{a.log()}")
    a.expect_log(r"strata-gatekeeper: signal 15: stopping; telling every mpirun and killing every subjob$")
    a.expect_log_count(r"\] ending: site shutting down$", 2)
    a.expect_log(r"strata-gatekeeper: stopped$")
    expect_nobody_left(ctx)


SCENARIOS = {f.__name__: f for f in [
    two_sites, stdin_to_remote_rank0, staging, staging_relative_config, login_environment, netns_three_sites,
    slurm_subjob, hostile_clients, log_flood, out_of_descriptors, revoked, gatekeeper_down,
    unknown_ca, unmapped_user, account_rules, account_choice, inaccessible_directory, job_limit, job_limit_per_user,
    missing_executable, rank_crash, interrupt, mpirun_killed, reload_gridmap, reload_revocation, shutdown_tells_mpirun,
]}


def main():
    return grid_main(SCENARIOS)


if __name__ == "__main__":
    sys.exit(main())
