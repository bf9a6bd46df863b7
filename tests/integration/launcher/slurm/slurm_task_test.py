#!/usr/bin/env python3
"""strata-slurm-task without Slurm: the rank it gives the program comes from
SLURM_PROCID and its <first rank> argument, and anything but a number in
either is refused before the program starts (strtol read "x" as 0, and the
program ran as another rank)."""

import argparse
import os
import subprocess
import sys
import tempfile

from strata_test.harness import Failure, check


def run(task, work, procid, first):
    env = dict(os.environ, SLURM_PROCID=procid)
    # The program writes the rank it was given into task<N>.out.
    return subprocess.run([task, work, first, "0", "", "/bin/sh", "sh", "-c", 'echo "$STRATA_RANK"'],
                          env=env, capture_output=True, text=True, timeout=30)


def refused(task, work, procid, first, message):
    r = run(task, work, procid, first)
    check(r.returncode == 2 and message in r.stderr, f"expected exit code 2 and '{message}'", r)


def scenario(task, work):
    r = run(task, work, "2", "5")
    check(r.returncode == 0, "task 2 of a subjob from rank 5 runs", r)
    with open(os.path.join(work, "task2.out"), encoding="utf-8") as f:
        check(f.read().strip() == "7", "task 2 of a subjob from rank 5 is rank 7")
    for procid in ("x", "", "-1", "+1", " 1", "1x", "99999999999"):
        refused(task, work, procid, "5", f"SLURM_PROCID='{procid}' is not a task number (0 or more)")
    for first in ("x", "", "-1", "5abc", "99999999999"):
        refused(task, work, "0", first, f"the first rank '{first}' is not a number (0 or more)")
    check(not os.path.exists(os.path.join(work, "task0.out")), "a refused task starts nothing")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--task", required=True)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as work:
        try:
            scenario(args.task, work)
        except Failure as e:
            print(f"FAIL: {e}", file=sys.stderr)
            return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
