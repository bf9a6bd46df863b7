#!/usr/bin/env python3
"""strata-plogp measures the links between and inside the sites of an
emulated grid and writes a file STRATA_PLOGP accepts.

    test_strata_plogp.py --mpirun PATH --plogp PATH

Three sites, A and C of one process, B of two machines of one process each;
every wide-area link emulated at 1 ms and 100 Mbit/s, the local-area link
inside B at 0.5 ms and 100 Mbit/s (as slow as the wide area, so the
gap's lower bound has the same margin). Timing decides nothing here except as
lower bounds the emulation guarantees: no message crosses a link in less than
its latency, and no link carries more than its bandwidth.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

SIZES = [0, 1024, 65536]
LATENCY_US = 1000  # between sites
# Per link: the emulated latency (us) and bandwidth (bytes per us).
EMULATED = {("A", "B"): (LATENCY_US, 100e6 / 8 / 1e6), ("A", "C"): (LATENCY_US, 100e6 / 8 / 1e6),
            ("B", "C"): (LATENCY_US, 100e6 / 8 / 1e6), ("B", "B"): (500, 100e6 / 8 / 1e6)}

JOB = """\
executable: {plogp}
arguments: [{args}]
network:
  wan: {{latency_ms: 1, bandwidth_mbit: 100}}
  lan: {{latency_ms: 0.5, bandwidth_mbit: 100}}
subjobs:
  - {{count: 1, site: A, host: a}}
  - {{count: 1, site: B, machine: b1, host: b1}}
  - {{count: 1, site: C, host: c}}
  - {{count: 1, site: B, machine: b2, host: b2}}
"""

failures = []


def check(ok, what, detail=""):
    print(("ok - " if ok else "not ok - ") + what)
    if not ok:
        failures.append(what)
        if detail:
            print("  " + detail.replace("\n", "\n  "))


def arguments(*words):
    """A YAML flow list's items, each quoted (sizes hold commas)."""
    return ", ".join(json.dumps(w) for w in words)


def run(mpirun, job, env=None):
    return subprocess.run([mpirun, "-jobfile", job], capture_output=True, text=True, timeout=100,
                          env=dict(os.environ, **(env or {})))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mpirun", required=True)
    ap.add_argument("--plogp", required=True)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="strata-plogp-test-")
    out = os.path.join(tmp, "plogp.txt")
    job = os.path.join(tmp, "job.yaml")
    with open(job, "w") as f:
        f.write(JOB.format(plogp=os.path.abspath(a.plogp),
                           args=arguments("-o", out, "--sizes", ",".join(map(str, SIZES)), "--reps", "2")))
    r = run(a.mpirun, job)
    check(r.returncode == 0 and os.path.exists(out), "strata-plogp measures the grid and writes its file",
          r.stdout + r.stderr)
    if failures:
        return 1
    with open(out) as f:
        lines = [line.split() for line in f if line.strip() and not line.startswith("#")]
    check(lines[0] == ["sizes"] + [str(s) for s in SIZES], "the sizes asked for", str(lines[0]))
    links = {}
    for words in lines[1:]:
        links.setdefault((words[1], words[2]), {})[words[3]] = [float(v) for v in words[4:]]
    check(sorted(links) == sorted(EMULATED), "one link per pair of sites, and one inside the site of two machines",
          str(sorted(links)))
    for pair, fields in sorted(links.items()):
        check(sorted(fields) == ["eager", "g", "latency", "or", "os"], f"{pair}: every field", str(fields))
        if "latency" not in fields or "g" not in fields or pair not in EMULATED:
            continue
        latency, bytes_per_us = EMULATED[pair]
        # L + g(0) is half a round trip: at least the emulated latency.
        check(fields["latency"][0] + fields["g"][0] >= 0.95 * latency,
              f"{pair}: L + g(0) is at least the emulated latency", str(fields))
        check(fields["g"][-1] >= 0.9 * SIZES[-1] / bytes_per_us,
              f"{pair}: g(64K) is at least 64K at the emulated bandwidth", str(fields))

    # The file it wrote is one MPI_Init accepts (the tool is an MPI program itself).
    again = os.path.join(tmp, "again.yaml")
    with open(again, "w") as f:
        f.write(JOB.format(plogp=os.path.abspath(a.plogp),
                           args=arguments("--sizes", "0", "--reps", "1", "-o", os.path.join(tmp, "again.txt"))))
    r = run(a.mpirun, again, {"STRATA_PLOGP": out})
    check(r.returncode == 0, "MPI_Init accepts the file", r.stdout + r.stderr)

    # --predict: what the model chooses for a broadcast over the whole job,
    # next to the exhaustive optimum (which the choice cannot beat), and no
    # faster than the wide-area latency.
    predict = os.path.join(tmp, "predict.yaml")
    with open(predict, "w") as f:
        f.write(JOB.format(plogp=os.path.abspath(a.plogp), args=arguments("--predict", "1K,1M", "--root", "2")))
    r = run(a.mpirun, predict, {"STRATA_PLOGP": out})
    rows = [line.split(",") for line in r.stdout.splitlines()]
    check(r.returncode == 0 and rows[:1] == [["size", "plan", "segment", "predicted_us", "optimum_plan",
                                              "optimum_segment", "optimum_us"]] and len(rows) == 3,
          "--predict prints a CSV line per size", r.stdout + r.stderr)
    for row in rows[1:3] if len(rows) == 3 else []:
        check(float(row[3]) >= float(row[6]) and float(row[3]) >= LATENCY_US and int(row[2]) <= int(row[0]),
              f"{row[0]} bytes: a segment of the message, predicted no faster than the optimum or one latency",
              ",".join(row))
    r = run(a.mpirun, predict)
    check(r.returncode != 0 and "--predict needs STRATA_PLOGP" in r.stderr, "--predict without a file is refused",
          r.stderr)

    # A count or a rank that is no number is refused, naming it (atoi made them 0).
    for args, want in ((("--reps", "x"), "--reps takes a count from 1, not 'x'"),
                       (("--predict", "1K", "--root", "2abc"), "--root takes a rank of MPI_COMM_WORLD, not '2abc'")):
        bad = os.path.join(tmp, "bad.yaml")
        with open(bad, "w") as f:
            f.write(JOB.format(plogp=os.path.abspath(a.plogp), args=arguments(*args)))
        r = run(a.mpirun, bad, {"STRATA_PLOGP": out})
        check(r.returncode != 0 and want in r.stderr, f"refused: {want}", r.stderr)

    # One machine: nothing to measure, said plainly.
    single = os.path.join(tmp, "single.yaml")
    with open(single, "w") as f:
        f.write(f"executable: {os.path.abspath(a.plogp)}\nsubjobs:\n  - {{count: 2, site: A}}\n")
    r = run(a.mpirun, single)
    check(r.returncode != 0 and "the job runs on one machine" in r.stderr, "a one-machine job is refused", r.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
