"""What the emulated-grid benchmarks (multilevel, plogp) share: their
options' syntax, the job file of an emulated grid, one mpirun run, and
gnuplot (sizes written and read as benchlib does). Each script sets PROG, the
name its messages start with."""

import csv
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

from benchlib import human_size, size_of  # noqa: F401  (human_size: for the scripts)

PROG = "bench"
NAME = re.compile(r"^[A-Za-z0-9_.-]+$")


def fail(message):
    print(f"{PROG}: {message}", file=sys.stderr)
    sys.exit(2)


def parse_layout(text, example):
    """SITE:MACHINE:RANKS,... -> [(site, machine, ranks)]."""
    layout = []
    for item in text.split(","):
        parts = item.split(":")
        if len(parts) != 3 or not NAME.match(parts[0]) or not NAME.match(parts[1]) or not parts[2].isdigit() \
                or int(parts[2]) < 1:
            fail(f"bad --layout item '{item}': write SITE:MACHINE:RANKS, e.g. {example}")
        layout.append((parts[0], parts[1], int(parts[2])))
    machines = [machine for _, machine, _ in layout]
    if len(set(machines)) != len(machines):
        fail(f"--layout '{text}' names a machine twice: give each machine one item")
    if sum(count for _, _, count in layout) < 2:
        fail("--layout needs at least 2 ranks in all")
    return layout


def parse_link(text, option):
    """LATENCY_MS,BANDWIDTH_MBIT -> (ms, mbit)."""
    try:
        ms, mbit = (float(x) for x in text.split(","))
    except ValueError:
        fail(f"bad {option} '{text}': write LATENCY_MS,BANDWIDTH_MBIT, e.g. 10,100")
    if ms < 0 or mbit <= 0:
        fail(f"bad {option} '{text}': the latency must be >= 0 and the bandwidth > 0")
    return ms, mbit


def parse_size(text):
    size = size_of(text)
    if size is None:
        fail(f"bad size '{text}' in --sizes (example: 1,1K,1M)")
    return size


def yaml_str(text):
    return "'" + str(text).replace("'", "''") + "'"


def job(program, arguments, environment, layout, network, streams=None):
    """A job file: `program` on every machine of `layout`, links shaped by
    `network` ({"wan": (ms, mbit) or (ms, mbit, window_kib), "lan": ...}, or
    a level's figures by name: {"wan": {"latency_ms": 10, "premium_mbit": 30}}),
    `streams` TCP streams per link between sites; every machine its own host."""
    lines = [f"executable: {yaml_str(program)}",
             "arguments: [" + ", ".join(yaml_str(a) for a in arguments) + "]",
             "environment: {" + ", ".join(f"{k}: {yaml_str(v)}" for k, v in environment.items()) + "}",
             "network:"]
    for level, figures in network.items():
        named = figures.items() if isinstance(figures, dict) else zip(("latency_ms", "bandwidth_mbit", "window_kib"),
                                                                      figures)
        lines.append(f"  {level}: {{" + ", ".join(f"{n}: {v:g}" for n, v in named) + "}")
    if streams is not None:
        lines.append(f"  streams: {streams}")
    lines.append("subjobs:")
    for site, machine, count in layout:
        lines.append(f"  - {{count: {count}, site: {site}, machine: {machine}, host: {machine}}}")
    return "\n".join(lines) + "\n"


def run(mpirun, text, log, header="impl,"):
    """Runs one job file; returns (CSV rows of stdout when it starts with
    `header`, stdout, wall seconds, stderr, exit status). The job file, the
    wall time and stderr go to `log`."""
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        f.write(text)
        path = f.name
    # An algorithm knob in the caller's environment would reach every process.
    env = {k: v for k, v in os.environ.items() if not re.fullmatch(r"STRATA_\w+_ALGORITHM", k)}
    start = time.monotonic()
    try:
        p = subprocess.run([mpirun, "-jobfile", path], capture_output=True, text=True, env=env)
    finally:
        os.unlink(path)
    wall = time.monotonic() - start
    log.write(text + f"# exit {p.returncode}, {wall:.1f} s\n" + p.stderr + "\n")
    log.flush()
    rows = list(csv.DictReader(io.StringIO(p.stdout))) if p.stdout.startswith(header) else []
    return rows, p.stdout, wall, p.stderr, p.returncode


def human_us(us):
    return f"{us:.0f}" if us >= 100 else f"{us:.1f}"


def gnuplot(out, script):
    """Runs gnuplot on `script` (lines after the terminal) in `out`, keeping
    it as plots.gp; says so and returns False when it cannot."""
    program = shutil.which("gnuplot")
    if program is None:
        print(f"{PROG}: gnuplot is not on PATH: no plots (the CSV and tables are written; "
              "scripts/install-deps installs gnuplot-nox)", file=sys.stderr)
        return False
    terminals = subprocess.run([program, "-e", "set terminal"], capture_output=True, text=True)
    terminal = "pngcairo" if "pngcairo" in terminals.stdout + terminals.stderr else "png"
    with open(os.path.join(out, "plots.gp"), "w") as f:
        f.write("\n".join([f"set terminal {terminal} size 900,600"] + script) + "\n")
    p = subprocess.run([program, "plots.gp"], cwd=out, capture_output=True, text=True)
    if p.returncode != 0:
        print(f"{PROG}: gnuplot failed (the CSV and tables are written):\n{p.stderr}", file=sys.stderr)
    return p.returncode == 0
