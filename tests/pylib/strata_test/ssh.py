"""Login nodes for the integration tests: OpenSSH's sshd, one per site, each in its site's
network namespace (strata_test.grid.Namespaces), with key authentication for an
unprivileged account made for the test.

The client side runs as root (the test's mpirun, in the user's namespace): it holds the
user key and reaches every site through one client config file (`ssh -F`), by the site's
name (`ssh s1`) or its bare address. Nothing of the machine's own sshd or ssh
configuration is read or changed; the account, its home and every process of the fixture
are gone after stop(). /run/sshd, sshd's privilege separation directory, is made if missing
and stays, as openssh-server's own unit leaves it: fixtures of tests running side by side
share it.

Needs root, iproute2 and openssh-server/-client; skips the test (exit 77) without them.
"""

import os
import pwd
import shlex
import shutil
import signal
import subprocess
import sys
import time

from strata_test.harness import GUARD, check

SSHD = "/usr/sbin/sshd"
SSH = "/usr/bin/ssh"
SSH_KEYGEN = "/usr/bin/ssh-keygen"
PRIVSEP_DIR = "/run/sshd"  # sshd's chroot for unauthenticated connections
UNIX_PATH_MAX = 108  # sun_path, for ControlPath


class SshLogins:
    """sshd on port 22 of every site in `sites` (names in `nets`), for one account.

    Attributes: account (its name), home (its home directory, ctx.tmp/sshhome), key (the
    user's private key, owned by root), known_hosts (every site's host key, `ADDR TYPE KEY`),
    config (the client config: a `Host SITE` entry per site and `Host *` for bare addresses).

    Methods: ssh(site, *command, config=None, options=()), log(site), controlmaster(dir),
    leftovers(), home_files(), sshd_processes(), client_processes(), stop().
    """

    def __init__(self, ctx, nets, sites, environment=None, ports=None, site_environment=None):
        """`environment`: variables every session gets (sshd's SetEnv, which overrides sshd's
        default PATH too), as a login node's administrator would set them. `ports`: {site:
        [port, ...]} where that site's sshd listens besides port 22 (known_hosts has the key
        for each, as `[ADDR]:PORT`). `site_environment`: {site: {variable: value}} on top of
        `environment` at that site (its own Slurm's SLURM_CONF)."""
        skip_unless_possible()
        self.ctx, self.nets, self.sites = ctx, nets, list(sites)
        self.environment = dict(environment or {})
        self.site_environment = {site: dict(e) for site, e in (site_environment or {}).items()}
        self.ports = {site: list(p) for site, p in (ports or {}).items()}
        self.account = "strssh" + ctx.marker[-6:]
        self.uid = None
        self.home = os.path.join(ctx.tmp, "sshhome")
        self.dir = os.path.join(ctx.tmp, "ssh")  # keys, configs, pid files and logs; root's only
        self.servers = {}  # site -> the sshd listener (Popen; -D keeps it our child)
        self.netns = {site: netns_id(nets.ns(site)) for site in self.sites}
        self.user_netns = netns_id(nets.ns("user"))
        self.control_dirs = []
        self.key = self.known_hosts = self.config = None  # made by start()
        try:
            self.start()
        except BaseException:
            self.stop_after_failure()
            raise

    def start(self):
        os.mkdir(self.dir, 0o700)
        os.chmod(self.ctx.tmp, 0o755)  # the account passes through to its home
        self.add_account()
        self.key = keygen(os.path.join(self.dir, "id_ed25519"), f"{self.account}@strata-test")
        self.authorize(self.key + ".pub")
        host_keys = {site: keygen(os.path.join(self.dir, f"host-{site}"), site) for site in self.sites}
        self.known_hosts = self.write_known_hosts(host_keys)
        self.config = self.write_client_config()
        # Made if missing and left in place, as openssh-server's own unit does: tests running side
        # by side share it, so none may remove it under another's sshd.
        os.makedirs(PRIVSEP_DIR, 0o755, exist_ok=True)
        for site in self.sites:
            self.start_sshd(site, host_keys[site])
        for site in self.sites:
            self.wait_listening(site)
        for site in self.sites:
            r = self.ssh(site, "true")
            check(r.returncode == 0, f"ssh to {site}'s login node failed:\n{r.stderr}--- sshd log:\n{self.log(site)}")

    # --- the account ---

    def add_account(self):
        """The account, with its home made here: useradd -m would copy /etc/skel into it."""
        run(["useradd", "-M", "-d", self.home, "-s", "/bin/sh", "-c", "Strata ssh test", self.account])
        self.uid = pwd.getpwnam(self.account).pw_uid
        run(["usermod", "-p", "*", self.account])  # useradd's '!' is a lock sshd obeys without PAM
        gid = pwd.getpwnam(self.account).pw_gid
        ssh_dir = os.path.join(self.home, ".ssh")
        os.makedirs(ssh_dir)
        for path in (self.home, ssh_dir):
            os.chmod(path, 0o700)  # StrictModes: no one else may write (or read) them
            os.chown(path, self.uid, gid)

    def authorize(self, public_key):
        path = os.path.join(self.home, ".ssh", "authorized_keys")
        shutil.copyfile(public_key, path)
        os.chmod(path, 0o600)
        os.chown(path, self.uid, pwd.getpwnam(self.account).pw_gid)

    # --- the servers ---

    def start_sshd(self, site, host_key):
        """sshd -D (it stays our child) in the site's namespace, on the site's address, port 22:
        keys only, for the account only, no PAM, no environment accepted from the client.
        MaxStartups and MaxSessions keep sshd's defaults, as on a stock login node: beyond 10
        unauthenticated connections at once sshd drops some, beyond 10 sessions over one
        (ControlMaster) connection it refuses them."""
        config = os.path.join(self.dir, f"sshd_config-{site}")
        with open(config, "w") as f:
            f.write("".join(f"Port {p}\n" for p in [22, *self.ports.get(site, [])]))
            f.write(f"ListenAddress {self.nets.addr[site]}\nHostKey {host_key}\n"
                    f"PidFile {self.pid_file(site)}\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n"
                    "UsePAM no\nPubkeyAuthentication yes\nAuthorizedKeysFile .ssh/authorized_keys\n"
                    f"StrictModes yes\nAllowUsers {self.account}\nPermitRootLogin no\nX11Forwarding no\n"
                    "PrintMotd no\nPrintLastLog no\nLogLevel VERBOSE\n")
            environment = {**self.environment, **self.site_environment.get(site, {})}
            if environment:
                f.write("SetEnv " + " ".join(f'"{k}={v}"' for k, v in environment.items()) + "\n")
        log_path = self.log_path(site)
        with open(log_path, "a") as log:  # sshd's own early complaints land in its log too
            self.servers[site] = subprocess.Popen(
                ["ip", "netns", "exec", self.nets.ns(site), SSHD, "-D", "-f", config, "-E", log_path],
                stdin=subprocess.DEVNULL, stdout=log, stderr=log)

    def wait_listening(self, site):
        """sshd writes its pid file once its socket listens."""
        deadline = time.monotonic() + GUARD
        while read_pid(self.pid_file(site)) is None:
            check(self.servers[site].poll() is None, f"sshd of {site} exited at start:\n{self.log(site)}")
            check(time.monotonic() < deadline, f"sshd of {site} wrote no pid file:\n{self.log(site)}")
            time.sleep(0.02)

    def pid_file(self, site):
        return os.path.join(self.dir, f"sshd-{site}.pid")

    def log_path(self, site):
        return os.path.join(self.dir, f"sshd-{site}.log")

    def log(self, site):
        """The sshd log of `site` (LogLevel VERBOSE: every key accepted, every connection closed)."""
        with open(self.log_path(site)) as f:
            return f.read()

    # --- the client ---

    def write_known_hosts(self, host_keys):
        lines = []
        for site, key in host_keys.items():
            with open(key + ".pub") as f:
                kind, blob = f.read().split()[:2]
            lines.append(f"{self.nets.addr[site]} {kind} {blob}")  # port 22: no [ADDR]:PORT
            lines += [f"[{self.nets.addr[site]}]:{p} {kind} {blob}" for p in self.ports.get(site, [])]
        return write_file(os.path.join(self.dir, "known_hosts"), "\n".join(lines) + "\n")

    def write_client_config(self):
        common = [f"User {self.account}", f"IdentityFile {self.key}", "IdentitiesOnly yes",
                  f"UserKnownHostsFile {self.known_hosts}", "GlobalKnownHostsFile /dev/null",
                  "StrictHostKeyChecking yes", "UpdateHostKeys no", "BatchMode yes"]
        lines = ["# The login nodes of one test (strata_test.ssh)."]
        for site in self.sites:
            lines += [f"Host {site}", f"    HostName {self.nets.addr[site]}", *("    " + c for c in common)]
        lines += ["Host *", *("    " + c for c in common)]
        return write_file(os.path.join(self.dir, "ssh_config"), "\n".join(lines) + "\n")

    def controlmaster(self, dir):
        """Writes a second client config that shares one connection per site, and returns its
        path (for `ssh -F`): ControlMaster auto, ControlPath DIR/%C, ControlPersist 60, then
        `Include` of self.config. Makes DIR (mode 700) if missing. The masters outlive their
        first command by 60 s; stop() ends those still running."""
        dir = os.path.abspath(dir)
        # %C is 40 hex digits; ssh binds a temporary name 17 characters longer first.
        check(len(dir) + 1 + 40 + 17 < UNIX_PATH_MAX, f"ControlPath directory too long for a socket: {dir}")
        os.makedirs(dir, mode=0o700, exist_ok=True)
        self.control_dirs.append(dir)
        path = os.path.join(self.dir, f"ssh_config.controlmaster{len(self.control_dirs)}")
        return write_file(path, f"ControlMaster auto\nControlPath {dir}/%C\nControlPersist 60\n"
                                f"Include {self.config}\n")

    def ssh(self, site, *command, config=None, options=()):
        """Runs `ssh -F CONFIG [OPTIONS] SITE COMMAND...` in the user's namespace (as the
        test's mpirun would) and returns the CompletedProcess. `site` is a site's name or an
        address; config is self.config unless given; every word of `command` reaches the
        remote side as one argument (quoted for its shell)."""
        args = ["ip", "netns", "exec", self.nets.ns("user"), SSH, "-F", config or self.config, *options, site]
        if command:
            args.append(" ".join(shlex.quote(word) for word in command))
        return subprocess.run(args, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=GUARD)

    # --- what is left ---

    def leftovers(self):
        """Processes running as the account ("PID CMDLINE"), zombies not counted."""
        if self.uid is None:
            return []
        return [describe(p) for p in processes() if self.uid in p.uids and p.state != "Z"]

    def home_files(self):
        """What is in the account's home besides .ssh/ (paths relative to it; its length is the
        count): a test proves the remote side wrote nothing there."""
        found = []
        for root, dirs, files in os.walk(self.home):
            if root == self.home:
                dirs[:] = [d for d in dirs if d != ".ssh"]
            found += [os.path.relpath(os.path.join(root, n), self.home) for n in dirs + files]
        return sorted(found)

    def sshd_processes(self):
        """Every sshd in the sites' namespaces ("PID CMDLINE"): listeners and connections."""
        return [describe(p) for p in self.own_sshd()]

    def client_processes(self):
        """ssh clients in the user's namespace that use this fixture's config or one of its
        ControlPath directories (e.g. ControlPersist masters)."""
        return [describe(p) for p in self.own_clients()]

    def own_sshd(self):
        mine = set(self.netns.values())
        return [p for p in processes() if p.netns in mine and p.exe == SSHD and p.state != "Z"]

    def own_clients(self):
        names = [self.dir, *self.control_dirs]
        return [p for p in processes() if p.netns == self.user_netns and p.exe == SSH and p.state != "Z"
                and any(n in p.cmdline for n in names)]

    # --- the end ---

    def stop(self):
        """Ends every sshd this fixture started (listeners by pid file, then their connections),
        every process of the account and the clients of client_processes(); removes the
        account (userdel -r). Idempotent."""
        for site, proc in self.servers.items():
            pid = read_pid(self.pid_file(site))
            if pid is not None and any(p.pid == pid for p in self.own_sshd()):
                os.kill(pid, signal.SIGTERM)  # the listener: no new connection after this
            if proc.poll() is None:
                proc.terminate()  # one that had not written its pid file yet
            reap(proc)
        self.kill_all()  # and proves every sshd of the sites' namespaces gone
        self.remove_account()

    def stop_after_failure(self):
        """stop() for a failed start: the failure that stopped the start is the one to tell."""
        try:
            self.stop()
        except Exception as e:
            print(f"strata_test.ssh: cleaning up after a failed start: {e}", file=sys.stderr)

    def kill_all(self):
        """SIGKILL, until none is left (zombies included: userdel refuses while any exists),
        of the account's processes, the sshd connections and this fixture's clients."""
        deadline = time.monotonic() + GUARD
        while True:
            left = self.own_sshd() + self.own_clients()
            if self.uid is not None:
                left += [p for p in processes() if self.uid in p.uids]
            if not left:
                return
            check(time.monotonic() < deadline, "left after SIGKILL: " + "; ".join(describe(p) for p in left))
            for p in left:
                if p.state != "Z":
                    try:
                        os.kill(p.pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
            time.sleep(0.05)  # zombies wait for their parent (here, PID 1 reaps now and then)

    def remove_account(self):
        if self.uid is None or not account_exists(self.account):  # not made here, or removed
            return
        # userdel -r complains (and exits non-zero) if the home or the mail spool is missing.
        r = subprocess.run(["userdel", "-r", self.account], capture_output=True, text=True, timeout=GUARD)
        check(not account_exists(self.account), f"userdel -r {self.account} failed: {r.stderr.strip()}")
        shutil.rmtree(self.home, ignore_errors=True)


def skip_unless_possible():
    for program, package in ((SSHD, "openssh-server"), (SSH, "openssh-client"), (SSH_KEYGEN, "openssh-client")):
        if not os.access(program, os.X_OK):
            skip(f"{program} is missing (Debian: {package})")
    if os.geteuid() != 0:
        skip("sshd login nodes need root")
    for program in ("ip", "useradd", "usermod", "userdel"):
        if shutil.which(program) is None:
            skip(f"{program} is missing")


def skip(why):
    print("SKIP: " + why)
    sys.exit(77)


def run(args):
    r = subprocess.run(args, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=GUARD)
    check(r.returncode == 0, f"{' '.join(args)}: {r.stderr.strip()}")
    return r


def keygen(path, comment):
    run([SSH_KEYGEN, "-t", "ed25519", "-N", "", "-q", "-C", comment, "-f", path])
    return path


def write_file(path, text):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, 0o644)
    return path


def read_pid(path):
    try:
        with open(path) as f:
            text = f.read().strip()
    except FileNotFoundError:
        return None
    return int(text) if text.isdigit() else None


def reap(proc):
    try:
        proc.wait(timeout=GUARD)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def account_exists(name):
    try:
        pwd.getpwnam(name)
        return True
    except KeyError:
        return False


def netns_id(ns):
    st = os.stat(os.path.join("/run/netns", ns))
    return st.st_dev, st.st_ino


class Process:
    def __init__(self, pid):
        self.pid = pid
        base = f"/proc/{pid}"
        with open(base + "/status") as f:
            status = dict(line.split(":", 1) for line in f if ":" in line)
        self.state = status["State"].split()[0]
        self.uids = {int(u) for u in status["Uid"].split()}
        with open(base + "/cmdline", "rb") as f:
            self.cmdline = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
        try:
            st = os.stat(base + "/ns/net")
            self.netns = st.st_dev, st.st_ino
            self.exe = os.readlink(base + "/exe")
        except OSError:  # a zombie has neither
            self.netns, self.exe = None, None


def processes():
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            try:
                found.append(Process(int(entry)))
            except (OSError, KeyError, ValueError):
                pass  # gone meanwhile
    return found


def describe(p):
    return f"{p.pid} {p.cmdline or '(' + p.state + ')'}"
