#!/usr/bin/env python3
"""strata-proxy-init, -info and -destroy end to end, in a scratch HOME with a CA from strata-ca.

    test_proxy_tools.py --ca STRATA_CA --init PATH --info PATH --destroy PATH

The user key is encrypted with `openssl pkey` so that the pass phrase is really asked
for; `openssl verify -allow_proxy_certs` checks the proxies independently. The proxy
always goes to X509_USER_PROXY inside the scratch directory, never the default path.
"""

import argparse
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile

failures = []


def check(cond, what, detail=""):
    print(("ok - " if cond else "not ok - ") + what)
    if not cond:
        failures.append(what)
        if detail:
            print(detail)


def main():
    ap = argparse.ArgumentParser()
    for name in ("ca", "init", "info", "destroy"):
        ap.add_argument("--" + name, required=True)
    args = ap.parse_args()
    if shutil.which("openssl") is None:
        print("no openssl command: cannot encrypt a key for the test")
        return 77
    tmp = tempfile.mkdtemp(prefix="strata-proxy-test-")
    try:
        home = os.path.join(tmp, "home")
        os.mkdir(home)
        proxy = os.path.join(tmp, "proxy.pem")
        env = {**os.environ, "HOME": home, "X509_USER_CERT": "", "X509_USER_KEY": "", "X509_CERT_DIR": "",
               "X509_USER_PROXY": proxy}

        def run(prog, *a, stdin=""):
            return subprocess.run([prog, *a], input=stdin, capture_output=True, text=True, env=env, timeout=30)

        for a in (["create-ca"], ["user", "--name", "Jane Doe"]):
            r = run(args.ca, *a)
            check(r.returncode == 0, "strata-ca " + a[0], r.stderr)
        strata = os.path.join(home, ".strata")
        key = os.path.join(strata, "userkey.pem")
        cert = os.path.join(strata, "usercert.pem")
        certdir = os.path.join(strata, "certificates")
        r = subprocess.run(["openssl", "pkey", "-in", key, "-aes256", "-passout", "pass:open sesame", "-out",
                            key + ".enc"], capture_output=True, text=True)
        check(r.returncode == 0, "openssl encrypts the key", r.stderr)
        os.replace(key + ".enc", key)
        os.chmod(key, 0o600)
        dn = "/O=Strata Grid/OU=Users/CN=Jane Doe"

        # A wrong pass phrase writes nothing.
        r = run(args.init, "-pwstdin", stdin="wrong\n")
        check(r.returncode == 1 and f"wrong pass phrase for {key} (nothing was written)" in r.stderr,
              "a wrong pass phrase is refused", r.stdout + r.stderr)
        check(not os.path.exists(proxy), "nothing written after a wrong pass phrase")

        # The default proxy: 12 hours, impersonation, 0600.
        r = run(args.init, "-pwstdin", stdin="open sesame\n")
        check(r.returncode == 0 and f"Your identity: {dn}" in r.stdout and proxy in r.stdout,
              "strata-proxy-init makes a proxy", r.stdout + r.stderr)
        check(stat.S_IMODE(os.stat(proxy).st_mode) == 0o600, "the proxy is mode 0600")
        r = run(args.info)
        check(r.returncode == 0, "strata-proxy-info reads it", r.stderr)
        fields = dict(re.findall(r"^(\w+) *: (.*)$", r.stdout, re.M))
        check(re.fullmatch(re.escape(dn) + r"/CN=\d+", fields.get("subject", "")) is not None,
              "subject is the user's plus CN=<serial>", r.stdout)
        check(fields.get("issuer") == dn and fields.get("identity") == dn, "issuer and identity are the user",
              r.stdout)
        check(fields.get("type") == "RFC 3820 compliant impersonation proxy", "type: impersonation", r.stdout)
        check(fields.get("path") == proxy, "path", r.stdout)
        left = int(run(args.info, "-timeleft").stdout)
        check(11 * 3600 + 3500 < left <= 12 * 3600, f"about 12 hours left ({left} s)")
        check(run(args.info, "-subject", "-identity").stdout.splitlines()[1] == dn, "fields in the order asked")
        check(run(args.info, "-exists").returncode == 0, "-exists: yes")
        check(run(args.info, "-exists", "-valid", "13:00").returncode == 1, "-exists -valid 13:00: no")
        r = subprocess.run(["openssl", "verify", "-allow_proxy_certs", "-CApath", certdir, "-untrusted", cert, proxy],
                           capture_output=True, text=True)
        check(r.returncode == 0, "openssl verify -allow_proxy_certs accepts the proxy", r.stdout + r.stderr)

        # Lifetimes and the limited policy.
        r = run(args.init, "-pwstdin", "-valid", "1:30", "-limited", stdin="open sesame\n")
        check(r.returncode == 0 and "Your limited proxy" in r.stdout, "a limited 1:30 proxy", r.stdout + r.stderr)
        left = int(run(args.info, "-timeleft").stdout)
        check(5300 < left <= 5400, f"1:30 left ({left} s)")
        check(run(args.info, "-type").stdout.strip() == "RFC 3820 compliant limited proxy", "type: limited")
        r = run(args.init, "-pwstdin", "-valid", "100000:00", stdin="open sesame\n")
        check(r.returncode == 2 and "-valid needs H:M between one minute and a year" in r.stderr,
              "a lifetime beyond a year is refused", r.stderr)
        # Plain digits only: strtol took a sign or a space, and overflowed quietly.
        for valid in (" 1:30", "+1:30", "1:+30", "1: 30", "1:30 ", "99999999999999999999"):
            r = run(args.init, "-pwstdin", "-valid", valid, stdin="open sesame\n")
            check(r.returncode == 2 and f"-valid needs H:M between one minute and a year, not '{valid}'" in r.stderr,
                  f"strata-proxy-init -valid '{valid}' is refused", r.stdout + r.stderr)
        r = run(args.init, "-pwstdin", "-hours", "1:30", stdin="open sesame\n")
        check(r.returncode == 2 and "-hours needs whole hours between one minute and a year, not '1:30'" in r.stderr,
              "strata-proxy-init -hours takes no minutes", r.stdout + r.stderr)
        for valid in (" 1:30", "+1:30", "1:-0", "1: 30", "2", "1:60", "99999999999:00"):
            r = run(args.info, "-exists", "-valid", valid)
            check(r.returncode == 2 and f"-valid needs H:M, not '{valid}'" in r.stderr,
                  f"strata-proxy-info -valid '{valid}' is refused", r.stdout + r.stderr)
        short = os.path.join(tmp, "short")
        r = run(args.ca, "user", "--name", "Short Lived", "--days", "1", "--out", short)
        check(r.returncode == 0, "a one-day user certificate", r.stderr)
        r = run(args.init, "-hours", "48", "-cert", os.path.join(short, "usercert.pem"), "-key",
                os.path.join(short, "userkey.pem"), "-out", os.path.join(tmp, "short-proxy.pem"))
        check(r.returncode == 0 and "cannot outlive the certificate that signs it" in r.stdout,
              "a proxy longer than its certificate is shortened to it (an unencrypted key asks nothing)",
              r.stdout + r.stderr)

        # Permissions: a proxy or a key others can read is refused, with the fix.
        os.chmod(proxy, 0o644)
        r = run(args.info)
        check(r.returncode == 1 and f"can be read by others (mode 0644); make it private with: chmod 600 {proxy}"
              in r.stderr, "a proxy others can read is refused", r.stderr)
        os.chmod(proxy, 0o600)
        os.chmod(key, 0o640)
        r = run(args.init, "-pwstdin", stdin="open sesame\n")
        check(r.returncode == 1 and f"chmod 600 {key}" in r.stderr, "a key others can read is refused", r.stderr)
        os.chmod(key, 0o600)

        # Destroy.
        r = run(args.destroy)
        check(r.returncode == 0 and not os.path.exists(proxy), "strata-proxy-destroy removes it", r.stderr)
        r = run(args.destroy)
        check(r.returncode == 1 and f"no proxy to destroy at {proxy}" in r.stderr, "nothing left to destroy",
              r.stderr)
        check(run(args.info, "-exists").returncode == 1, "-exists: no")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
