#!/usr/bin/env python3
"""Data representations across a job: every process publishes its own
(byte order, type sizes, long double's format, pair layouts) at MPI_Init;
mpirun -v shows it; point-to-point data between processes that store data
differently is converted by the receiver (hetero_pt2pt.c checks it), and
collectives move data in a form common to their processes (hetero_coll.c).
STRATA_REPRESENTATION_TEST=1 makes a process store what it sends in the
opposite byte order, =2 also as a 32-bit machine (long 4 bytes, long double
an 8-byte IEEE double), and announce so, as a process of another machine
would.

The big_endian_* scenarios run ranks 2-3 as programs of a Strata built for
s390x (--s390x DIR, scripts/cross/build-s390x) under qemu-user: a real
big-endian machine with IEEE quad long double, beside x86-64 ranks.

big_endian_plans compares the wide-area plans of the P-LogP model (which
every process computes alone) between an s390x and an x86-64 process, bit for
bit, with strata-plogp --predict built for both.

    heterogeneous_test.py SCENARIO --mpirun PATH --program PATH --pt2pt PATH --coll PATH --plogp PATH --s390x DIR
"""

import json
import os
import re
import sys

from strata_test.harness import check, expect_code, expect_nobody_left, program_main

QEMU_LIBRARIES = "/opt/s390x-sysroot/usr/lib/s390x-linux-gnu"  # scripts/cross/s390x-sysroot


def job_file(ctx, program, mode, arguments=()):
    """Two native processes, then two in the test representation `mode` (0: none)."""
    env = f"{{STRATA_REPRESENTATION_TEST: '{mode}'}}" if mode else "{}"
    args = ", ".join([*arguments, ctx.marker])
    return ctx.file("job.yaml", f"""\
executable: {program}
arguments: [{args}]
subjobs:
  - {{count: 2}}
  - {{count: 2, environment: {env}}}
""")


def alike(ctx, a):
    """Processes of one build on one machine are alike: the job runs, and
    mpirun -v shows each process's representation."""
    r = ctx.run(["-v", "-jobfile", job_file(ctx, a.program, 0)])
    expect_code(r, 0)
    shown = re.findall(r"^strata: rank (\d+): representation: ((?:little|big)-endian; short \d+, int \d+, long \d+, "
                       r"long long \d+, long double \d+ \([^)]*\), wchar_t \d+; pairs \(size, int at\): .*)$",
                       r.stderr, re.M)
    check(sorted(int(rank) for rank, _ in shown) == [0, 1, 2, 3], f"every rank shows its representation:\n{r.stderr}")
    check(len({text for _, text in shown}) == 1, f"one representation:\n{r.stderr}")
    expect_nobody_left(ctx)


def converted(ctx, a, mode, shown):
    """Ranks 2-3 store what they send as `mode` says: mpirun -v shows it;
    every exchange of hetero_pt2pt (basic types, pairs, nested derived types,
    partial receives, MPI_ANY_SOURCE, persistent, Sendrecv_replace, Bsend,
    Probe, Pack) arrives right in both directions, and every collective of
    hetero_coll (reductions on every type, user operations, data movement)
    gives the right result on every process."""
    native = sys.byteorder
    other = "big" if native == "little" else "little"
    for program in (a.pt2pt, a.coll):
        r = ctx.run(["-v", "-jobfile", job_file(ctx, program, mode, [str(mode)])])
        expect_code(r, 0)
        name = program.rsplit("/", 1)[-1]
        check(f"{name}: ok (4 processes)" in r.stdout, f"{name} passes:\n{r.stdout}\n{r.stderr}")
        for rank in (2, 3):
            want = rf"^strata: rank {rank}: representation: {other}-endian; {shown}"
            check(re.search(want, r.stderr, re.M) is not None, f"rank {rank} shows its representation:\n{r.stderr}")
        expect_nobody_left(ctx)


def big_endian_job(ctx, a, program):
    """Two native processes, then two of the s390x build under qemu-user."""
    name = program.rsplit("/", 1)[-1]
    check(os.path.exists(os.path.join(a.s390x, name)), f"the s390x build has no {name} (scripts/cross/build-s390x)")
    return ctx.file("job.yaml", f"""\
arguments: [3, {ctx.marker}]
subjobs:
  - {{count: 2, executable: {program}}}
  - count: 2
    executable: /usr/bin/qemu-s390x
    arguments: [-L, /usr/s390x-linux-gnu, -E, LD_LIBRARY_PATH={QEMU_LIBRARIES}, {a.s390x}/{name}, 3, {ctx.marker}]
""")


def big_endian(ctx, a):
    """Ranks 2-3 are real big-endian processes (s390x under qemu-user, long
    double an IEEE quad): every exchange of hetero_pt2pt and every collective
    of hetero_coll gives the right values on both kinds of machine, and
    shared memory links only processes of one kind (TCP between them)."""
    for program in (a.pt2pt, a.coll):
        r = ctx.run(["-v", "-jobfile", big_endian_job(ctx, a, program)])
        expect_code(r, 0)
        name = program.rsplit("/", 1)[-1]
        check(f"{name}: ok (4 processes)" in r.stdout, f"{name} passes:\n{r.stdout}\n{r.stderr}")
        for rank in (2, 3):
            want = (rf"^strata: rank {rank}: representation: big-endian; short 2, int 4, long 8, long long 8, "
                    r"long double 16 \(IEEE quad\)")
            check(re.search(want, r.stderr, re.M) is not None, f"rank {rank} is big-endian:\n{r.stderr}")
            check(re.search(rf"^strata: rank {rank}: methods: .*tcp: 0-1$", r.stderr, re.M) is not None,
                  f"rank {rank} reaches the native ranks over TCP:\n{r.stderr}")
        expect_nobody_left(ctx)


def plogp_sites(names):
    """P-LogP parameters between every two of `names` with figures that round
    in every sum and product of the model (a fused multiply-add rounds once
    where two operations round twice, and so would differ)."""
    lines = ["sizes 0 1000 65536 1048576"]
    for i, x in enumerate(names):
        for j, y in enumerate(names[i + 1:], i + 1):
            k = 7 * i + 3 * j
            lines.append(f"link {x} {y} latency {2917.3 + 1013.7 * k:.6f}")
            for field, scale in (("os", 1.1), ("or", 1.3)):
                lines.append(f"link {x} {y} {field} " + " ".join(
                    f"{scale * (3.71 + k) * (1 + s) ** 0.7:.7f}" for s in (0, 1000, 65536, 1048576)))
            lines.append(f"link {x} {y} g " + " ".join(
                f"{(4.19 + k / 3) + s * (0.0831 + k / 997):.7f}" for s in (0, 1000, 65536, 1048576)))
    return "\n".join(lines) + "\n"


def on_s390x(a, name, arguments):
    """A subjob's executable and arguments to run the s390x build's `name`."""
    return ("/usr/bin/qemu-s390x", ["-L", "/usr/s390x-linux-gnu", "-E", f"LD_LIBRARY_PATH={QEMU_LIBRARIES}",
                                    os.path.join(a.s390x, name), *arguments])


def sites_job(ctx, a, native, s390x_name, arguments, which, environment):
    """One process at each of sites A-D; those in `which` run the s390x build."""
    text = f"environment: {environment}\nsubjobs:\n"
    for rank, site in enumerate("ABCD"):
        program, args = on_s390x(a, s390x_name, arguments) if rank in which else (native, arguments)
        text += f"  - {{count: 1, site: {site}, executable: {program}, arguments: {json.dumps(args)}}}\n"
    return ctx.file("job.yaml", text)


def big_endian_plans(ctx, a):
    """The model's plans agree across architectures: strata-plogp --predict
    prints, from an s390x rank 0 and from a native one, the same tree, segment
    and predicted time (to the last bit) for every size; and a job
    whose collectives follow the model, with s390x processes at two of its
    four sites, gets every collective of hetero_coll right."""
    params = ctx.file("plogp.txt", plogp_sites("ABCD"))
    environment = f"{{STRATA_PLOGP: {params}}}"
    plogp_s390x = os.path.join("tools", "strata-plogp", "strata-plogp")
    check(os.path.exists(os.path.join(a.s390x, plogp_s390x)), "the s390x build has strata-plogp")
    # A fused multiply-add changes a result's last bit in only a few percent
    # of the model's operations: 300 sizes from 13 bytes to 12 MB show it.
    sizes = ",".join(str(int(13 * 1.047 ** i) + i) for i in range(300))
    arguments = ["--predict", sizes]
    outputs = []
    # Each process plans the 300 sizes; under qemu-user on a loaded 2-core machine that has
    # taken over 45 s, so these runs get a hang guard of their own (the test's timeout is 300 s).
    for which in ((), (0, 2)):
        r = ctx.run(["-jobfile", sites_job(ctx, a, a.plogp, plogp_s390x, arguments, which, environment)], guard=120)
        expect_code(r, 0)
        rows = [line for line in r.stdout.splitlines() if line and line[0].isdigit()]
        check(len(rows) == 300, f"a prediction per size:\n{r.stdout}", r)
        outputs.append(rows)
    check(outputs[0] == outputs[1], "s390x and x86-64 plan alike:\n" +
          "\n".join(f"{x}\n{y}" for x, y in zip(*outputs) if x != y))
    expect_nobody_left(ctx)
    coll = a.coll.rsplit("/", 1)[-1]
    r = ctx.run(["-jobfile", sites_job(ctx, a, a.coll, coll, ["3", ctx.marker], (2, 3), environment)])
    expect_code(r, 0)
    check(f"{coll}: ok (4 processes)" in r.stdout, f"{coll} passes on the model's plans:\n{r.stdout}\n{r.stderr}")
    expect_nobody_left(ctx)


def converted_byte_order(ctx, a):
    """Ranks 2-3 store data in the other byte order."""
    converted(ctx, a, 1, "short 2, int 4, long 8, ")


def converted_sizes(ctx, a):
    """Ranks 2-3 store data in the other byte order, with 4-byte long and an
    8-byte IEEE double for long double; a long that does not fit 4 bytes
    cannot leave rank 2 (MPI_ERR_TRUNCATE)."""
    converted(ctx, a, 2, r"short 2, int 4, long 4, long long 8, long double 8 \(IEEE double\)")


SCENARIOS = {f.__name__: f for f in (alike, converted_byte_order, converted_sizes, big_endian, big_endian_plans)}

if __name__ == "__main__":
    sys.exit(program_main(SCENARIOS, ["program", "pt2pt", "coll", "plogp", "s390x"]))
