#!/usr/bin/env python3
"""A hostile account against a gatekeeper that runs as root.

    root_races_test.py SCENARIO [the options of gatekeeper_test.py]

The gatekeeper maps the user to 'nobody'. Every round runs a job whose ranks
plant symbolic and hard links to a root-only file (and a root-owned directory)
under every name the gatekeeper or its slurm adapter uses in the job's
directories, while a watcher process, also running as 'nobody', keeps planting
them in every directory of the scratch area it can write. In /dev/shm, where
whoever reaps a rank removes the shared-memory segments it left (strata-PID-*,
adapters/leftovers.hpp), each rank leaves one of its own and plants links to a
root-only file there under such names, and a racer it starts keeps swapping a
name between its own file and a link to that file while the rank is reaped.
After each round the root-only files must have kept their owner, mode and
content, the root-owned directory its entries, nothing of the files may have
reached mpirun's output, and the rank's own leftover must be gone.
STRATA_RACE_ROUNDS sets the number of rounds (default: the scenario's).
Hard links to another account's file need fs.protected_hardlinks=0: the test
sets it for its duration when it can, and says when it cannot.
"""

import atexit
import os
import pwd
import re
import secrets
import stat
import subprocess
import sys
import time

from strata_test.grid import Slurm, grid_main
from strata_test.harness import GUARD, check, expect_code, expect_nobody_left

NAMES = ["x509up", "x509up.tmp", "app", "input.dat", "batch.sh", "batch.out", "batch.err", "task0.out", "task0.err",
         "task0.pid", "task0.status", "task1.out", "task1.status"]
# Planted before they appear: the names a root process might create or read.
EARLY = ["batch.sh", "batch.err", "task0.out", "task0.err", "task1.out", "task0.pid", "task0.status", "x509up.tmp"]

# Runs as the account, in every directory under the scratch area it can write:
# woken by inotify, it replaces a name the moment it appears (rename over it,
# atomic) by a link to the victims; the slurm adapter's names are planted
# before they appear.
WATCHER = r"""
import ctypes, os, select, struct, sys
scratch, secret, canary, stop, names, early = sys.argv[1:7]
names, early = set(names.split(",")), set(early.split(","))
libc = ctypes.CDLL(None, use_errno=True)
IN_CREATE, IN_MOVED_TO, IN_ATTRIB, IN_NONBLOCK = 0x100, 0x80, 0x4, 0x800
fd = libc.inotify_init1(IN_NONBLOCK)
watched = {}
k = 0

def plant(d, n):
    global k
    p = os.path.join(d, n)
    try:
        if os.path.islink(p):
            return
    except OSError:
        return
    k += 1
    link = os.path.join(d, ".plant%d" % k)
    try:
        if k % 3 == 0:
            os.link(secret, link)
        else:
            os.symlink(secret if k % 3 == 1 else canary, link)
        os.rename(link, p)
    except OSError:
        try:
            os.unlink(link)
        except OSError:
            pass

def look():
    try:
        dirs = [os.path.join(scratch, d) for d in os.listdir(scratch)]
    except OSError:
        return
    for d in dirs:
        if d in watched.values() or not os.access(d, os.W_OK | os.X_OK):
            continue
        wd = libc.inotify_add_watch(fd, d.encode(), IN_CREATE | IN_MOVED_TO)
        if wd < 0:
            continue
        watched[wd] = d
        for n in names:
            if n in early or os.path.lexists(os.path.join(d, n)):
                plant(d, n)

libc.inotify_add_watch(fd, scratch.encode(), IN_CREATE | IN_MOVED_TO | IN_ATTRIB)
while not os.path.exists(stop):
    look()
    select.select([fd], [], [], 0.01)
    try:
        data = os.read(fd, 65536)
    except OSError:
        continue
    at = 0
    while at < len(data):
        wd, mask, cookie, size = struct.unpack_from("iIII", data, at)
        name = data[at + 16:at + 16 + size].rstrip(b"\0").decode()
        at += 16 + size
        if wd in watched and name in names:
            plant(watched[wd], name)
"""

# A rank: links under the names of its own directory and of its own output files;
# with a fourth argument (a root-only file in /dev/shm), its shared-memory
# leftovers' names too, and a racer swapping one of them while it is reaped.
RANK = r"""#!/bin/sh
secret="$1"; canary="$2"; shmvictim="$4"
if [ -n "$shmvictim" ]; then
    tag=${shmvictim##*-}; shm=/dev/shm/strata-$$-
    : > "${shm}seg-$tag"
    ln "$shmvictim" "${shm}hard-$tag" 2>/dev/null
    ln -s "$shmvictim" "${shm}sym-$tag" 2>/dev/null
    # In the sticky /dev/shm a link to root's file cannot be renamed or removed by the
    # account once made: the racer swaps a symbolic link and a file of its own.
    ( i=0; while [ $i -lt 100 ]; do
        ln -s "$shmvictim" "${shm}swap-$tag.s" 2>/dev/null; mv -f "${shm}swap-$tag.s" "${shm}swap-$tag" 2>/dev/null
        : > "${shm}swap-$tag.f" && mv -f "${shm}swap-$tag.f" "${shm}swap-$tag" 2>/dev/null
        i=$((i + 1))
      done; rm -f "${shm}swap-$tag" "${shm}swap-$tag.s" "${shm}swap-$tag.f" ) >/dev/null 2>&1 &
fi
echo "rank $STRATA_RANK planted"
out=$(readlink /proc/$$/fd/1); err=$(readlink /proc/$$/fd/2)
for f in "$out" "$err"; do
    case "$f" in /*) rm -f "$f"; ln "$secret" "$f" 2>/dev/null || ln -s "$secret" "$f" ;; esac
done
for n in x509up app input.dat batch.sh task0.pid task0.status; do
    rm -f "$n" 2>/dev/null; ln -s "$secret" "$n" 2>/dev/null
done
ln "$secret" hard 2>/dev/null
mkdir -p sub/deeper 2>/dev/null && ln -s "$canary" sub/deeper/canary 2>/dev/null
ln -s "$canary" canary-dir 2>/dev/null
cat x509up 2>/dev/null
exit 0
"""


class Victims:
    """A root-only file and a root-owned directory, with what they must keep."""

    def __init__(self, ctx):
        self.canary = os.path.join(ctx.tmp, "canary")
        os.mkdir(self.canary, 0o755)
        self.secret = os.path.join(self.canary, "secret")
        self.text = "root-only-" + secrets.token_hex(16) + "\n"
        with open(self.secret, "w") as f:
            f.write(self.text)
        os.chmod(self.secret, 0o600)
        with open(os.path.join(self.canary, "keep"), "w") as f:
            f.write("keep\n")
        self.entries = sorted(os.listdir(self.canary))
        # The root-only file in /dev/shm; its name's last part tags what the ranks plant there.
        self.tag = secrets.token_hex(8)
        self.shm = f"/dev/shm/strata-victim-{self.tag}"
        with open(self.shm, "w") as f:
            f.write(self.text)
        os.chmod(self.shm, 0o600)
        atexit.register(self.remove_shm)  # after a failure too

    def shm_names(self):
        return [n for n in os.listdir("/dev/shm") if self.tag in n and n.startswith("strata-") and
                not n.startswith("strata-victim-")]

    def remove_shm(self):
        """What the ranks planted in /dev/shm, and the victim."""
        for n in self.shm_names() + [os.path.basename(self.shm)]:
            try:
                os.unlink(os.path.join("/dev/shm", n))
            except OSError:
                pass

    def check(self, r, round_no):
        st = os.lstat(self.secret)
        check(stat.S_ISREG(st.st_mode) and st.st_uid == 0 and st.st_gid == 0 and stat.S_IMODE(st.st_mode) == 0o600,
              f"round {round_no}: the root-only file kept its owner and mode (uid {st.st_uid}, {oct(st.st_mode)})")
        with open(self.secret) as f:
            check(f.read() == self.text, f"round {round_no}: the root-only file kept its content")
        st = os.lstat(self.canary)
        check(st.st_uid == 0 and stat.S_IMODE(st.st_mode) == 0o755,
              f"round {round_no}: the root-owned directory kept its owner and mode (uid {st.st_uid}, {oct(st.st_mode)})")
        entries = sorted(os.listdir(self.canary))
        check(entries == self.entries, f"round {round_no}: the root-owned directory kept its entries: {entries}")
        st = os.lstat(self.shm)
        check(stat.S_ISREG(st.st_mode) and st.st_uid == 0 and stat.S_IMODE(st.st_mode) == 0o600,
              f"round {round_no}: the root-only file in /dev/shm kept its owner and mode ({st.st_uid}, {oct(st.st_mode)})")
        with open(self.shm) as f:
            check(f.read() == self.text, f"round {round_no}: the root-only file in /dev/shm kept its content")
        # Each rank's own leftover was removed when it was reaped.
        left = [n for n in self.shm_names() if "-seg-" in n]
        check(left == [], f"round {round_no}: the ranks' own leftovers in /dev/shm were removed: {left}")
        check(self.text.strip() not in r.stdout + r.stderr, f"round {round_no}: the root-only file was not read", r)


class HardLinks:
    """fs.protected_hardlinks=0 while the test runs, when this machine lets it."""

    PATH = "/proc/sys/fs/protected_hardlinks"

    def __enter__(self):
        self.old = None
        try:
            with open(self.PATH) as f:
                self.old = f.read().strip()
            with open(self.PATH, "w") as f:
                f.write("0")
            print("fs.protected_hardlinks=0 for the test: hard links to root's files are planted too")
        except OSError as e:
            print(f"cannot set fs.protected_hardlinks=0 ({e}): hard links to root's files fail, symlinks are planted")
        return self

    def __exit__(self, *exc):
        if self.old is not None:
            with open(self.PATH, "w") as f:
                f.write(self.old)


def needs_root():
    if os.geteuid() != 0:
        print("SKIP: a gatekeeper running as root needs root")
        sys.exit(77)


def rounds(default):
    return int(os.environ.get("STRATA_RACE_ROUNDS", default))


def watcher(grid, scratch, victims, names=NAMES, early=EARLY):
    stop = os.path.join(grid.ctx.tmp, "stop-watcher")
    if os.path.exists(stop):
        os.unlink(stop)
    account = pwd.getpwnam(grid.account)
    # The account may not reach this interpreter (under /root): the system's.
    python = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else sys.executable
    p = subprocess.Popen([python, "-c", WATCHER, scratch, victims.secret, victims.canary, stop, ",".join(names), ",".join(early),
                          "--marker=" + grid.ctx.marker], user=account.pw_uid, group=account.pw_gid,
                         extra_groups=[], stdin=subprocess.DEVNULL)
    return p, stop


def stop_watcher(p, stop):
    with open(stop, "w"):
        pass
    try:
        p.wait(timeout=GUARD)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()


def hostile_program(grid):
    private = os.path.join(grid.ctx.tmp, "private")
    os.makedirs(private, 0o700, exist_ok=True)
    program = os.path.join(private, "hostile.sh")
    with open(program, "w") as f:
        f.write(RANK)
    os.chmod(program, 0o700)
    return program


def scratch_empty(g):
    deadline = time.monotonic() + GUARD
    while os.listdir(g.scratch) and time.monotonic() < deadline:
        time.sleep(0.05)
    check(os.listdir(g.scratch) == [], f"the scratch area is empty: {os.listdir(g.scratch)}\n{g.log()}")


def fork_gatekeeper(grid):
    """Staging and delegation into the job directory, its removal, with a hostile account."""
    needs_root()
    ctx = grid.ctx
    victims = Victims(ctx)
    a = grid.start("siteA")
    program = hostile_program(grid)
    data = os.path.join(os.path.dirname(program), "input.dat")
    with open(data, "w") as f:
        f.write("input\n")
    job = ctx.file("job.yaml", f"""\
executable: {program}
arguments: ["{victims.secret}", "{victims.canary}", "--marker={ctx.marker}", "{victims.shm}"]
subjobs:
  - contact: {a.contact}
    count: 2
    stage: [{data}]
""")
    n = rounds(300)
    with HardLinks():
        w, stop = watcher(grid, a.scratch, victims)
        try:
            for i in range(n):
                r = grid.run(["-jobfile", job])
                victims.check(r, i)
                # Nothing can be planted before the processes start: every job runs.
                expect_code(r, 0)
                check(sorted(r.stdout.splitlines()) == ["rank 0 planted", "rank 1 planted"], "both ranks ran", r)
                # Their symbolic links in /dev/shm stay (not a rank's file): both ranks planted there.
                planted = [n for n in victims.shm_names() if "-sym-" in n]
                check(len(planted) == 2 * (i + 1), f"round {i}: both ranks planted in /dev/shm: {planted}")
        finally:
            stop_watcher(w, stop)
    victims.check(subprocess.CompletedProcess([], 0, "", ""), n)
    victims.remove_shm()
    scratch_empty(a)
    check(re.search(r"cannot remove", a.log()) is None, f"every job directory was removed:\n{a.log()}")
    check(len(re.findall(r"removed the job directory", a.log())) == n, "one job directory per round")
    expect_nobody_left(ctx)
    print(f"{n} rounds")


def slurm_gatekeeper(grid):
    """The slurm adapter's work directory: the batch script, the task files it reads, its
    removal, with a hostile account whose ranks turn their own output files into links."""
    needs_root()
    ctx = grid.ctx
    slurm = Slurm(grid)
    try:
        victims = Victims(ctx)
        env = {**slurm.env, "STRATA_SLURM_POLL_MS": "20"}
        a = grid.start("siteA", adapters=("slurm",), env=env)
        program = grid.publish(hostile_program(grid), "bin")
        job = ctx.file("job.yaml", f"""\
executable: {program}
arguments: ["{victims.secret}", "{victims.canary}", "--marker={ctx.marker}", "{victims.shm}"]
directory: {grid.shared}
subjobs:
  - contact: localhost:{a.port}/slurm
    count: 2
""")
        n = rounds(20)
        refused = 0
        with HardLinks():
            # First half: the watcher plants the batch script's name ahead and links
            # over the output Slurm and the tasks write, which leaves the job to run;
            # the ranks turn their own output files into links.
            outputs = [x for x in NAMES if not x.endswith((".pid", ".status"))]
            w, stop = watcher(grid, a.scratch, victims, outputs, ["batch.sh"])
            try:
                for i in range(n // 2):
                    r = grid.run(["-jobfile", job])
                    victims.check(r, i)
                    expect_code(r, 0)
                    refused += len(re.findall(r"strata: slurm adapter: not reading task\d\.(out|err) of rank \d: "
                                              r"(it is a symbolic link|it belongs to another account)", r.stderr))
            finally:
                stop_watcher(w, stop)
            # Second half: every name, ahead as well, which may keep the job from running at all.
            w, stop = watcher(grid, a.scratch, victims)
            try:
                for i in range(n // 2, n):
                    victims.check(grid.run(["-jobfile", job]), i)
            finally:
                stop_watcher(w, stop)
        victims.check(subprocess.CompletedProcess([], 0, "", ""), n)
        victims.remove_shm()
        check(refused > 0, "the adapter refused the planted output files and said so")
        scratch_empty(a)
        expect_nobody_left(ctx)
        print(f"{n} rounds, {refused} planted output files refused")
    finally:
        grid.stop()
        slurm.stop()


SCENARIOS = {f.__name__: f for f in [fork_gatekeeper, slurm_gatekeeper]}

if __name__ == "__main__":
    sys.exit(grid_main(SCENARIOS))
