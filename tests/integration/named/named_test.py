#!/usr/bin/env python3
"""Externally defined communicators on emulated hosts: the example files
(colors, sites, grid) in XML and YAML through MPIX_Comm_create_named and
through the transparent mode of mpi_named.h, STRATA_COMM_FILE, the file
mpirun -gencomm writes for a 3-site job, and the errors.

    named_test.py SCENARIO --mpirun PATH --api PATH --transparent PATH... --paper PATH --examples DIR
"""

import os
import re
import sys

from strata_test.harness import check, expect_code, expect_nobody_left, expect_stderr, program_main

# Nine processes on eight "hosts" at two sites: p4-01 runs two.
HOSTS = ["p4-01", "p4-01", "p4-02", "p4-03", "p4-04", "pd-01", "pd-02", "pd-03", "pd-04"]
LAYOUT = """\
subjobs:
  - {count: 2, site: P4, processor_name: p4-01}
  - {count: 1, site: P4, processor_name: p4-02}
  - {count: 1, site: P4, processor_name: p4-03}
  - {count: 1, site: P4, processor_name: p4-04}
  - {count: 1, site: PD, processor_name: pd-01}
  - {count: 1, site: PD, processor_name: pd-02}
  - {count: 1, site: PD, processor_name: pd-03}
  - {count: 1, site: PD, processor_name: pd-04}
"""

# What each example defines for HOSTS: name -> one group per colour, in rank
# order (world ranks); an intercommunicator's is (first side, second side).
EXAMPLES = {
    "colors": {
        # pd-01 at rank 0 by its key, then p4-01's two processes, p4-02, pd-02.
        "RED": [[5, 0, 1, 2, 6]],
        # Inside RED: pd-02, then the regular expression's matches in name order.
        "PINK": [[6, 0, 1, 2]],
        # p[d4]-0[34]: hosts of both sites, in name order.
        "BLACK": [[3, 4, 7, 8]],
    },
    "sites": {
        "P4": [[0, 1, 2, 3, 4]],
        "PD": [[5, 6, 7, 8]],
        "P4_PD": [([0, 1, 2, 3, 4], [5, 6, 7, 8])],
    },
    "grid": {
        "HORIZONTAL": [[0, 1, 2, 3, 4], [5, 6, 7, 8]],
        "VERTICAL": [[0, 1, 5], [2, 6], [3, 7], [4, 8]],
        "EDGES": [([0, 1, 5], [4, 8])],
    },
}


def job_file(ctx, program, args=(), layout=LAYOUT, extra=""):
    text = f"executable: {program}\narguments: [{', '.join([*args, ctx.marker])}]\n{extra}{layout}"
    return ctx.file("job.yaml", text)


def expected_line(w, group):
    """named_report.h's line for world rank w in `group`, or None if outside."""
    if isinstance(group, tuple):
        first, second = group
        local, remote = (first, second) if w in first else (second, first) if w in second else (None, None)
        if local is None:
            return None
        i = local.index(w)
        return (f"rank {i} of {len(local)}; members {' '.join(map(str, local))}; "
                f"remote {' '.join(map(str, remote))}; peer {remote[0] if i == 0 else -1}")
    if w not in group:
        return None
    return f"rank {group.index(w)} of {len(group)}; members {' '.join(map(str, group))}; sum {sum(group)}"


def mine(w, groups):
    inside = [g for g in groups if expected_line(w, g) is not None]
    return inside[0] if inside else None


def reports(r, size):
    """{(world rank, label): text} from every 'world W: LABEL: TEXT' line."""
    got = {}
    for m in re.finditer(r"^world (\d+): ([^:]+): (.*)$", r.stdout, re.M):
        key = (int(m[1]), m[2])
        check(key not in got, f"two lines for {key}", r)
        got[key] = m[3]
    check({w for w, _ in got} == set(range(size)), "every process reported", r)
    return got


def expect_reports(r, got, w, label, group):
    want = expected_line(w, group) if group is not None else None
    check(got.get((w, label)) == (want or "none"), f"world {w}, {label}: got {got.get((w, label))!r}, "
                                                   f"want {want or 'none'!r}", r)


def check_api(r, defined, size):
    """named_api's lines: every colour of every name, and MPIX_NAMED_MINE."""
    expect_code(r, 0)
    check("FAILED" not in r.stdout, "the program's own checks", r)
    listed = dict(re.findall(r"^name (\S+): (\d+) color", r.stdout, re.M))
    check(listed == {n: str(len(g)) for n, g in defined.items()}, f"the names listed: {listed}", r)
    got = reports(r, size)
    for name, groups in defined.items():
        for w in range(size):
            for color, group in enumerate(groups):
                expect_reports(r, got, w, f"{name}/{color}", group)
            expect_reports(r, got, w, f"{name}/mine", mine(w, groups))
    return got


def api(spelling):
    def scenario(ctx, a):
        for example, defined in EXAMPLES.items():
            path = os.path.join(a.examples, f"{example}.{spelling}")
            r = ctx.run(["-commfile", path, "-jobfile", job_file(ctx, a.api, ["errors"])])
            got = check_api(r, defined, len(HOSTS))
            check(all(got.get((w, "errors")) == "ok" for w in range(len(HOSTS))),
                  "the API's errors (undefined name, colour out of range, parents) as documented", r)
        expect_nobody_left(ctx)
    return scenario


def transparent(ctx, a):
    """The unmodified programs of each example: the variable's name picks the
    communicator; outside it (the programs set MPI_ERRORS_RETURN), MPI_ERR_COMM."""
    programs = {os.path.basename(p).removeprefix("transparent_"): p for p in a.transparent}
    for example, defined in EXAMPLES.items():
        r = ctx.run(["-commfile", os.path.join(a.examples, f"{example}.xml"),
                     "-jobfile", job_file(ctx, programs[example])])
        expect_code(r, 0)
        got = reports(r, len(HOSTS))
        for name, groups in defined.items():
            for w in range(len(HOSTS)):
                group = mine(w, groups)
                expect_reports(r, got, w, f"{name}/mine", group)
                if group is None:
                    want = "transparent error classes 5 5"  # MPI_ERR_COMM
                else:
                    local = group if not isinstance(group, tuple) else group[0] if w in group[0] else group[1]
                    want = f"transparent rank {local.index(w)} size {len(local)}"
                check(got.get((w, name)) == want, f"world {w}, {name}: {got.get((w, name))!r}, want {want!r}", r)
    expect_nobody_left(ctx)


def environment(ctx, a):
    """STRATA_COMM_FILE names the file when mpirun gives none; -commfile wins
    over it."""
    path = os.path.join(a.examples, "sites.yaml")
    r = ctx.run(["-jobfile", job_file(ctx, a.api, extra=f"environment: {{STRATA_COMM_FILE: {path}}}\n")])
    check_api(r, EXAMPLES["sites"], len(HOSTS))
    r = ctx.run(["-commfile", os.path.join(a.examples, "grid.xml"),
                 "-jobfile", job_file(ctx, a.api, extra=f"environment: {{STRATA_COMM_FILE: {path}}}\n")])
    check_api(r, EXAMPLES["grid"], len(HOSTS))
    expect_nobody_left(ctx)


# Three sites: A has machines m1 (two subjobs, three processes) and m2, B has
# m3, C has one machine with no label (its emulated host names it, c-host).
GRID3 = """\
subjobs:
  - {count: 2, site: A, machine: m1, processor_name: a-01}
  - {count: 1, site: A, machine: m1, processor_name: a-02}
  - {count: 2, site: A, machine: m2, processor_name: a-03}
  - {count: 2, site: B, machine: m3, processor_name: b-01}
  - {count: 1, site: C, host: c-host, processor_name: c-01}
"""
GRID3_DEFINED = {
    "A": [[0, 1, 2, 3, 4]],
    "m1": [[0, 1, 2]],
    "m2": [[3, 4]],
    "B": [[5, 6]],
    "m3": [[5, 6]],
    "C": [[7]],
    "c-host": [[7]],
    "A_B": [([0, 1, 2, 3, 4], [5, 6])],
    "A_C": [([0, 1, 2, 3, 4], [7])],
    "B_C": [([5, 6], [7])],
}


def gencomm(ctx, a):
    """mpirun -gencomm: a comm per site, one per machine inside it, an
    intercomm between every two sites; -v shows the file."""
    r = ctx.run(["-v", "-gencomm", "-jobfile", job_file(ctx, a.api, layout=GRID3)])
    check_api(r, GRID3_DEFINED, 8)
    expect_stderr(r, r'^mpirun: the communicator file written for -gencomm:\n<\?xml')
    expect_stderr(r, r'^    <comm name="m1">\n      <processor>a-01</processor>\n      <processor>a-02</processor>')
    # The transparent mode reads a generated file too: on the two-site layout
    # the sites' comms and their intercomm are sites.xml's P4, PD and P4_PD.
    programs = {os.path.basename(p).removeprefix("transparent_"): p for p in a.transparent}
    r = ctx.run(["-gencomm", "-jobfile", job_file(ctx, programs["sites"])])
    expect_code(r, 0)
    got = reports(r, len(HOSTS))
    for w in range(len(HOSTS)):
        expect_reports(r, got, w, "P4_PD/mine", mine(w, EXAMPLES["sites"]["P4_PD"]))
    expect_nobody_left(ctx)


BAD_FILES = [
    ("bad.xml", "<communicators>\n  <comm name='A'>\n    <processor>x</processor>\n</communicators>\n",
     r"bad\.xml:4: malformed XML"),
    ("bad.yaml", "comms:\n  - name: A\n    processors: [x]\n    colour: 2\n", r"bad\.yaml:4: unknown key 'colour'"),
    ("regex.xml", "<communicators>\n<comm name='A'><processor>p[4-</processor></comm>\n</communicators>\n",
     r"regex\.xml:2: 'p\[4-' is not a usable regular expression: '\[' is not closed \(at character 2\)"),
    # ECMAScript has no "4**"; std::regex took it and backtracked for minutes.
    ("stars.yaml", "comms:\n  - name: PINK\n    processors: [\"p4****-0[12]\"]\n",
     r"stars\.yaml:3: 'p4\*\*\*\*-0\[12\]' is not a usable regular expression: nothing to repeat before '\*'"),
    ("sub.xml", "<communicators>\n<comm name='A'><processor>a</processor>\n"
                "<comm name='B'><processor>b</processor></comm></comm>\n</communicators>\n",
     r"sub\.xml:3: processor 'b' is not in the parent comm 'A' \(line 2\)"),
]


def errors(ctx, a):
    """A bad file stops mpirun before anything starts (exit 1, file and
    line); a bad STRATA_COMM_FILE fails MPI_Init; -gencomm on processor names
    that two machines share ends the job; -commfile with -gencomm is refused."""
    for name, text, pattern in BAD_FILES:
        path = ctx.file(name, text)
        r = ctx.run(["-commfile", path, "-jobfile", job_file(ctx, a.api)])
        expect_code(r, 1)
        expect_stderr(r, "^mpirun: " + re.escape(ctx.tmp) + "/" + pattern)
        check(r.stdout == "", "nothing ran", r)
    r = ctx.run(["-commfile", os.path.join(ctx.tmp, "missing.xml"), "-jobfile", job_file(ctx, a.api)])
    expect_code(r, 1)
    expect_stderr(r, r"^mpirun: cannot read communicator file '.*missing\.xml': No such file or directory")
    path = ctx.file("env.xml", BAD_FILES[2][1])
    r = ctx.run(["-jobfile", job_file(ctx, a.api, extra=f"environment: {{STRATA_COMM_FILE: {path}}}\n")])
    check(r.returncode != 0, "a malformed STRATA_COMM_FILE fails the job", r)
    expect_stderr(r, r"^strata: rank \d+: MPI_Init failed: .*env\.xml:2: 'p\[4-' is not a usable regular expression")
    # MPIX_NAMED_MINE on a name whose communicators share a process: every
    # process raises the same error (the fatal handler ends the job).
    path = ctx.file("overlap.xml", "<communicators>\n<comm name='X'><processor>p4-01</processor></comm>\n"
                                   "<comm name='X'><processor>p4-0[12]</processor></comm>\n</communicators>\n")
    r = ctx.run(["-commfile", path, "-jobfile", job_file(ctx, a.api)])
    check(r.returncode != 0, "an ambiguous MPIX_NAMED_MINE ends the job", r)
    expect_stderr(r, r"overlap\.xml:3: processor 'p4-01' is in the communicators named 'X' of colors 0 \(line 2\) "
                     r"and 1: with MPIX_NAMED_MINE a process may be in one only")
    shared = LAYOUT.replace("site: PD, processor_name: pd-04", "site: PD, processor_name: p4-04")
    r = ctx.run(["-gencomm", "-jobfile", job_file(ctx, a.api, layout=shared)])
    expect_code(r, 1)
    expect_stderr(r, r"^mpirun: -gencomm cannot write the communicator file: processor name 'p4-04' is on machine "
                     r"'.*' of site 'P4' and on machine '.*' of site 'PD'")
    r = ctx.run(["-gencomm", "-commfile", path, "-jobfile", job_file(ctx, a.api)])
    expect_code(r, 2)
    expect_stderr(r, r"^mpirun: options -commfile and -gencomm both give the communicator file; choose one")
    expect_nobody_left(ctx)


def patterns(ctx, a):
    """A pattern that makes a backtracking matcher take exponential time, on a
    name it almost matches: the communicator is built at once (patterns are
    matched in time linear in the name)."""
    stars = "p4" + "(4*)*" * 40 + "-0[12]"
    near = "p" + "4" * 38 + "x"
    layout = (f"subjobs:\n  - {{count: 1, processor_name: p{'4' * 50}-01}}\n"
              f"  - {{count: 1, processor_name: {near}}}\n")
    path = ctx.file("stars.yaml", f"comms:\n  - name: PINK\n    processors: [\"{stars}\"]\n")
    r = ctx.run(["-commfile", path, "-jobfile", job_file(ctx, a.api, layout=layout)])
    check_api(r, {"PINK": [[0]]}, 2)
    expect_nobody_left(ctx)


def paper(ctx, a):
    """The MetaMPICH paper's idiom as printed (paper_idiom.c), on its first
    file and its intercomm fragment as printed (paper_colors.xml, no root
    element): pd-01 and pd-02 are MPI_COMM_RED of colour 0, pd-03 the one of
    colour 1, pd-04 is in none and learns it from MPI_ERR_COMM; the
    intercommunicator joins pd-03 and pd-04, and the others learn they have
    none the same way."""
    layout = "subjobs:\n" + "".join(f"  - {{count: 1, processor_name: pd-0{i}}}\n" for i in range(1, 5))
    r = ctx.run(["-commfile", os.path.join(a.examples, "paper_colors.xml"),
                 "-jobfile", job_file(ctx, a.paper, layout=layout)])
    expect_code(r, 0)
    want = ["world 0: in MPI_COMM_RED: rank 0 of 2", "world 1: in MPI_COMM_RED: rank 1 of 2",
            "world 2: in MPI_COMM_RED: rank 0 of 1", "world 3: not in MPI_COMM_RED",
            "world 0: no MPI_COMM_INTER", "world 1: no MPI_COMM_INTER",
            "world 2: MPI_COMM_INTER: remote size 1", "world 3: MPI_COMM_INTER: remote size 1"]
    lines = set(r.stdout.splitlines())
    for line in want:
        check(line in lines, f"the paper's idiom: '{line}'", r)
    expect_nobody_left(ctx)


SCENARIOS = {
    "api_xml": api("xml"),
    "api_yaml": api("yaml"),
    "transparent": transparent,
    "environment": environment,
    "gencomm": gencomm,
    "errors": errors,
    "patterns": patterns,
    "paper": paper,
}

if __name__ == "__main__":
    sys.exit(program_main(SCENARIOS, ["api", "transparent", "paper", "examples"], many=("transparent",)))
