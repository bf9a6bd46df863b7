#!/usr/bin/env python3
"""strata-info lists exactly the knobs the source declares, and the source reads no other STRATA_ variable.

    test_strata_info.py --info STRATA_INFO --source-root DIR --build-root DIR --version VERSION

A knob whose object file is not linked into strata-info is never constructed and
would silently be missing from its list; a STRATA_ variable read with a bare getenv
would be a setting nobody can find. This test reads the C and C++ sources (outside
tests/ and build directories) for:
  - knob declarations: a KnobInt or KnobString (or an array of them) constructed
    with its name as a string literal or as the `variable` of a row of the
    settings table (wireup/settings.hpp: `wireup::kNetwork.variable`), in the
    headers and in the files this build compiles (compile_commands.json: a device
    that is not built has no knobs);
  - getenv reads (but base/knob.cpp's, which read every knob) whose argument is a
    "STRATA_..." literal or a constant defined as one; such a name must be a knob
    or part of the wire-up environment contract (the names wireup/environment.hpp
    defines).
Then it checks strata-info's --parsable and human output against that.
"""

import argparse
import json
import os
import re
import subprocess
import sys

failures = []

CONTRACT_HEADER = os.path.join("wireup", "environment.hpp")
SETTINGS_HEADER = os.path.join("wireup", "settings.hpp")
KNOB_READER = os.path.join("base", "knob.cpp")
KNOB_TYPES = ("KnobInt", "KnobString")
SOURCE_SUFFIXES = (".c", ".h", ".cc", ".cpp", ".hpp")


def check(cond, what, detail=""):
    print(("ok - " if cond else "not ok - ") + what)
    if not cond:
        failures.append(what)
        if detail:
            print("    " + detail.rstrip().replace("\n", "\n    "))


# ---- reading C and C++ ---------------------------------------------------------------------------

TOKEN = re.compile(
    r'(?P<comment>//[^\n]*|/\*.*?\*/)'
    r'|(?P<string>"(?:\\.|[^"\\\n])*")'
    r'|(?P<char>\'(?:\\.|[^\'\\\n])*\')'
    r'|(?P<ident>[A-Za-z_]\w*)'
    r'|(?P<number>\d(?:[\w.]|\'\w)*)'
    r'|(?P<punct>::|\S)',
    re.S)


def tokens(text):
    """(kind, text, line) for each token; comments dropped, adjacent string literals joined."""
    out = []
    line = 1
    at = 0
    for m in TOKEN.finditer(text):
        line += text.count("\n", at, m.start())
        at = m.start()
        kind = m.lastgroup
        if kind == "comment":
            continue
        value = m.group()
        if kind == "string":
            value = value[1:-1]
            if out and out[-1][0] == "string":
                out[-1] = ("string", out[-1][1] + value, out[-1][2])
                continue
        out.append((kind, value, line))
    return out


def sources(root):
    """Relative paths of the C and C++ files of the tree, without tests and build directories."""
    for top, dirs, files in os.walk(root):
        rel_top = os.path.relpath(top, root)
        dirs[:] = sorted(d for d in dirs
                         if not d.startswith(".") and not (rel_top == "." and d == "tests")
                         and not os.path.isdir(os.path.join(top, d, "meson-private")))
        for f in sorted(files):
            if f.endswith(SOURCE_SUFFIXES):
                yield os.path.normpath(os.path.join(rel_top, f))


def group_end(toks, i):
    """Index just past the bracket group opening at toks[i]."""
    depth = 0
    for j in range(i, len(toks)):
        t = toks[j][1]
        if toks[j][0] == "punct" and t in "({[":
            depth += 1
        elif toks[j][0] == "punct" and t in ")}]":
            depth -= 1
            if depth == 0:
                return j + 1
    return len(toks)


def setting_rows(toks):
    """Row -> variable for each `Setting kRow{.variable = "STRATA_...", ...}` of the settings table."""
    rows = {}
    for i in range(len(toks) - 6):
        if toks[i][1] == "Setting" and toks[i + 1][0] == "ident" and toks[i + 2][1] == "{" and \
                [t[1] for t in toks[i + 3:i + 6]] == [".", "variable", "="] and toks[i + 6][0] == "string":
            rows[toks[i + 1][1]] = toks[i + 6][1]
    return rows


def knob_declarations(path, toks, problems, settings):
    """(name, where) for each knob the file declares."""

    def constructed(k, end, type_name):
        # The bracket group toks[k:end] constructs one knob when it opens with its name, or holds
        # the groups of an array's knobs.
        first = toks[k + 1]
        if first[0] == "string":
            return [(first[1], f"{path}:{first[2]}")]
        # A row of the settings table: [wireup::]kRow.variable
        m = k + 1
        while m + 1 < end and toks[m][0] == "ident" and toks[m + 1][1] == "::":
            m += 2
        if m + 2 < end and [t[1] for t in toks[m + 1:m + 3]] == [".", "variable"] and toks[m][1] in settings:
            return [(settings[toks[m][1]], f"{path}:{first[2]}")]
        if first[0] == "punct" and first[1] in "({":
            out = []
            m = k + 1
            while m < end - 1 and toks[m][1] in ("(", "{"):
                e = group_end(toks, m)
                out += constructed(m, e, type_name)
                m = e + 1 if e < end - 1 and toks[e][1] == "," else e
            return out
        problems.append(f"{path}:{first[2]}: a {type_name} whose name is neither a string literal nor a "
                        "settings row's variable; give the name so that this test finds it")
        return []

    found = []
    for i, (kind, text, line) in enumerate(toks):
        if kind != "ident" or text not in KNOB_TYPES:
            continue
        before = toks[i - 1][1] if i > 0 else ""
        after = toks[i + 1][1] if i + 1 < len(toks) else ""
        # Not a declaration: the class itself, a reference, pointer or template argument, a member.
        if before in ("class", "struct", "friend") or after in ("&", "*", "::", "&&", ">", ","):
            continue
        j = i + 1
        if j < len(toks) and toks[j][0] == "ident":
            j += 1
        while j < len(toks) and toks[j][1] == "[":
            j = group_end(toks, j)
        if j < len(toks) and toks[j][1] == "=":
            j += 1
        if j + 1 >= len(toks) or toks[j][1] not in ("(", "{"):
            problems.append(f"{path}:{line}: {text} used in a way this test cannot read")
            continue
        found += constructed(j, group_end(toks, j), text)
    return found


def string_constants(toks):
    """NAME -> literal for each `NAME = "STRATA_..."` in the file."""
    out = {}
    for i in range(len(toks) - 2):
        if toks[i][0] == "ident" and toks[i + 1][1] == "=" and toks[i + 2][0] == "string":
            if toks[i + 2][1].startswith("STRATA_"):
                out[toks[i][1]] = toks[i + 2][1]
    return out


def getenv_reads(path, toks):
    """(argument tokens, where) for each getenv / secure_getenv call."""
    reads = []
    for i, (kind, text, line) in enumerate(toks):
        if kind == "ident" and text in ("getenv", "secure_getenv") and i + 1 < len(toks) and toks[i + 1][1] == "(":
            end = group_end(toks, i + 1)
            reads.append((toks[i + 2:end - 1], f"{path}:{line}"))
    return reads


def compiled_files(build_root):
    """Absolute paths of the files the build compiles, or None when the build does not say."""
    try:
        with open(os.path.join(build_root, "compile_commands.json"), encoding="utf-8") as f:
            commands = json.load(f)
    except OSError:
        return None
    return {os.path.normpath(os.path.join(c["directory"], c["file"])) for c in commands}


def scan(root, compiled):
    declared = {}   # knob name -> [where]
    problems = []
    constants = {}  # constant -> {literals it is defined as, anywhere}
    contract = set()
    reads = []
    with open(os.path.join(root, SETTINGS_HEADER), encoding="utf-8") as f:
        settings = setting_rows(tokens(f.read()))
    for path in sources(root):
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            toks = tokens(f.read())
        built = compiled is None or path.endswith((".h", ".hpp")) or \
            os.path.normpath(os.path.join(os.path.abspath(root), path)) in compiled
        if built and os.path.join("base", "knob.") not in path:
            for name, where in knob_declarations(path, toks, problems, settings):
                declared.setdefault(name, []).append(where)
        consts = string_constants(toks)
        for name, literal in consts.items():
            constants.setdefault(name, set()).add(literal)
        if path == CONTRACT_HEADER:
            contract = set(consts.values())
        if path != KNOB_READER:
            reads += [(arg, where, consts) for arg, where in getenv_reads(path, toks)]
    return declared, problems, constants, contract, reads, settings


def strata_names(arg, file_constants, constants):
    """The STRATA_ variables a getenv argument may name: none when it names none or cannot be known."""
    if len(arg) == 1 and arg[0][0] == "string":
        return {arg[0][1]} if arg[0][1].startswith("STRATA_") else set()
    # A constant, possibly qualified (wireup::env::kRank): the file's own, else any file's of that name.
    idents = [t[1] for t in arg if t[0] == "ident"]
    if idents and all(t[0] == "ident" or t[1] == "::" for t in arg):
        if idents[-1] in file_constants:
            return {file_constants[idents[-1]]}
        return constants.get(idents[-1], set())
    return set()


# ---- strata-info's output ------------------------------------------------------------------------

def run(info, *args, env_extra=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith("STRATA_")}
    env.update(env_extra or {})
    return subprocess.run([info, *args], capture_output=True, text=True, env=env, timeout=30)


def parsable(output):
    """Lines split into (key, value) at the field counts the format promises."""
    items = []
    for line in output.splitlines():
        parts = line.split(":")
        fields = {"version": 1, "build": 2, "method": 2, "knob": 3, "collective": 3}.get(parts[0])
        if fields is None or len(parts) <= fields:
            items.append((None, line))
            continue
        if parts[0] == "collective" and parts[2] == "algorithm":
            fields = 4
        items.append((":".join(parts[:fields]), ":".join(parts[fields:])))
    return items


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--info", required=True)
    ap.add_argument("--source-root", required=True)
    ap.add_argument("--build-root", required=True)
    ap.add_argument("--version", required=True)
    args = ap.parse_args()

    compiled = compiled_files(args.build_root)
    check(compiled is None or any(p.endswith(KNOB_READER) for p in compiled),
          "compile_commands.json lists the files this build compiles")
    declared, problems, constants, contract, reads, settings = scan(args.source_root, compiled)
    check(not problems, "every knob declaration can be read", "\n".join(problems))
    check(len(declared) >= 30, f"the source declares knobs ({len(declared)} found)")
    twice = {n: w for n, w in declared.items() if len(w) > 1}
    check(not twice, "each knob is declared once",
          "\n".join(f"{n}: {', '.join(w)}" for n, w in sorted(twice.items())))
    badly_named = sorted(n for n in declared if not re.fullmatch(r"STRATA_[A-Z0-9_]+", n))
    check(not badly_named, "every knob is named STRATA_<UPPER_CASE>", ", ".join(badly_named))
    check(contract == {"STRATA_WIREUP", "STRATA_RANK", "STRATA_SIZE", "STRATA_JOB_KEY", "STRATA_SUBJOB", "STRATA_RELAY"},
          f"{CONTRACT_HEADER} declares the wire-up contract", f"found {sorted(contract)}")
    check(not (contract & set(declared)), "no wire-up contract variable is also a knob",
          ", ".join(sorted(contract & set(declared))))

    stray = []
    for arg, where, file_constants in reads:
        for name in sorted(strata_names(arg, file_constants, constants) - set(declared) - contract):
            stray.append(f"{where}: reads {name}, which is neither a knob nor part of the wire-up contract "
                         f"({CONTRACT_HEADER}); declare it as a base::KnobInt or base::KnobString next to its code")
    check(not stray, "every STRATA_ variable read is a knob or part of the wire-up contract", "\n".join(stray))

    r = run(args.info, "--parsable")
    check(r.returncode == 0 and r.stderr == "", "strata-info --parsable runs", r.stderr)
    items = parsable(r.stdout)
    malformed = [v for k, v in items if k is None]
    check(not malformed, "every --parsable line is KEY:VALUE with a known key", "\n".join(malformed))
    values = {}
    for k, v in items:
        values.setdefault(k, []).append(v)
    check(values.get("version") == [args.version], f"version is the project's ({args.version})",
          str(values.get("version")))
    for b in ("buildtype", "sanitize", "ofi", "compiler"):
        check(len(values.get("build:" + b, [])) == 1, f"build:{b} is listed")
    check(values.get("build:sanitize") in (["yes"], ["no"]) and values.get("build:ofi") in (["yes"], ["no"]),
          "build:sanitize and build:ofi are yes or no")
    methods = [v for k, v in items if k is not None and k.startswith("method:")]
    ofi_built = values.get("build:ofi") == ["yes"]
    check(methods == ["self", "shm"] + (["ofi"] if ofi_built else []) + ["tcp"],
          "the built methods are listed in order of preference", str(methods))

    listed = [k.split(":")[1] for k, _ in items if k is not None and k.startswith("knob:") and k.endswith(":type")]
    twice = sorted({n for n in listed if listed.count(n) > 1})
    check(not twice, "strata-info lists each knob once (one registry, each object linked once)", ", ".join(twice))
    missing = sorted(set(declared) - set(listed))
    check(not missing, "strata-info lists every knob declared in the source",
          "declared but not listed (the object file that declares it is not linked into strata-info: declare "
          "knobs in a library, and link that library whole in tools/strata-info/meson.build):\n" +
          "\n".join(f"{n} ({', '.join(declared[n])})" for n in missing))
    extra = sorted(set(listed) - set(declared))
    check(not extra, "strata-info lists no knob that the source does not declare",
          "listed but not found in the source (declared in a way this test cannot read?): " + ", ".join(extra))
    for name in listed:
        for field in ("type", "default", "current", "doc"):
            if len(values.get(f"knob:{name}:{field}", [])) != 1:
                check(False, f"knob {name} has one {field} line")
    check(all(v == ["(default)"] for k, v in values.items() if k and k.startswith("knob:") and
              k.endswith(":current")), "with no STRATA_ variable set, every current value is (default)")
    check(all(v[0] for k, v in values.items() if k and k.startswith("knob:") and k.endswith(":doc")),
          "every knob has a meaning")
    check(all(values.get(f"knob:{n}:type", [""])[0] in ("int", "size", "string") for n in listed),
          "every knob's type is int, size or string")

    forcing = {k: v[0] for k, v in values.items() if k and k.startswith("collective:") and k.endswith(":knob")}
    check(len(forcing) == 14, f"the collectives and their knobs are listed ({len(forcing)} found)")
    check(all(v in declared for v in forcing.values()), "each collective's knob is a declared knob",
          str(sorted(v for v in forcing.values() if v not in declared)))
    algorithms = {k for k in values if k and k.startswith("collective:bcast:algorithm:")}
    check(algorithms == {f"collective:bcast:algorithm:{a}" for a in
                         ("binomial", "linear", "segmented", "scatter_allgather", "multilevel", "two_level_site",
                          "two_level_machine")},
          "bcast's algorithms are listed", str(sorted(algorithms)))
    table = run(args.info, "--collectives")
    with open(os.path.join(args.source_root, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    check(table.returncode == 0 and table.stdout.startswith("| Operation") and table.stdout in readme,
          "README.md's collective table is what strata-info --collectives prints",
          "replace the table under '## Collective algorithms' with strata-info --collectives's output:\n" + table.stdout)
    rules = values.get("collective:bcast:rule", [])
    check(rules == ["segmented on wide area links", "multilevel", "segmented on local area links",
                    "binomial on wide area links",
                    "binomial on local area links",
                    "linear from 3 to 4 processes on vendor links",
                    "linear from 3 to 4 processes on node links", "scatter_allgather from 12288 bytes, 8 processes",
                    "binomial"],
          "bcast's rules are listed in order", str(rules))

    # The current value is what the environment says, judged as the knob will judge it.
    r = run(args.info, "--parsable", "--knobs", env_extra={"STRATA_SKIP_POLL": "3", "STRATA_SHM_RING": "12KB",
                                                           "STRATA_NETWORK": "lo"})
    got = dict(parsable(r.stdout))
    check(r.returncode == 0 and got.get("knob:STRATA_SKIP_POLL:current") == "3"
          and got.get("knob:STRATA_NETWORK:current") == "lo", "a set knob shows its current value", r.stdout)
    check(got.get("knob:STRATA_SHM_RING:current") == "12KB" and "knob:STRATA_SHM_RING:ignored" in got
          and "knob:STRATA_SKIP_POLL:ignored" not in got, "an invalid value is marked as ignored")
    check(all(k.startswith("knob:") for k in got), "--knobs prints only knobs")

    # The human form: every knob, its meaning, and the sections.
    r = run(args.info, env_extra={"STRATA_SKIP_POLL": "3"})
    check(r.returncode == 0 and f"Strata {args.version}" in r.stdout and "Communication methods" in r.stdout
          and "Collective algorithms" in r.stdout, "strata-info prints its sections", r.stdout + r.stderr)
    check(all(n in r.stdout for n in declared), "the human form names every knob")
    skip_default = values.get("knob:STRATA_SKIP_POLL:default", ["?"])[0]
    check(f"STRATA_SKIP_POLL  int, default {skip_default}, current 3\n" in r.stdout,
          "the human form shows a knob's type, default and current value")
    r = run(args.info, "--knobs")
    check(r.returncode == 0 and "Communication methods" not in r.stdout and "STRATA_SKIP_POLL" in r.stdout,
          "--knobs prints the settings only")

    # The settings table: every row a knob of the library, each shown with what sets it.
    check(len(settings) >= 9, f"{SETTINGS_HEADER} declares the settings mpirun passes ({len(settings)} read)")
    not_knobs = sorted(set(settings.values()) - set(declared))
    check(not not_knobs, "every setting mpirun or a job file passes is a knob the library declares",
          ", ".join(not_knobs))
    r = run(args.info, "--settings")
    lines = r.stdout.splitlines()
    shown = [line.split()[-1].split("=")[0] for line in lines[1:]]
    check(r.returncode == 0 and lines and lines[0].split() == ["mpirun", "option", "job", "file", "key", "environment",
                                                               "variable"] and sorted(shown) == sorted(settings.values()),
          "--settings prints one line per setting under its header", r.stdout)
    with open(os.path.join(args.source_root, "README.md"), encoding="utf-8") as f:
        check("```\n" + r.stdout + "```\n" in f.read(), "README.md shows what strata-info --settings prints",
              "replace the block in README's mpirun section with strata-info --settings's output:\n" + r.stdout)
    net = [line.split() for line in lines if "STRATA_NETWORK" in line]
    check(net == [["-net", "IFACE|CIDR", "-", "STRATA_NETWORK"]], "--settings maps -net to STRATA_NETWORK", str(net))
    check(values.get("knob:STRATA_NETWORK:mpirun") == ["-net"] and
          values.get("knob:STRATA_BIND_TO:jobfile") == ["bind_to"] and
          "knob:STRATA_SKIP_POLL:mpirun" not in values,
          "--parsable names the option and job file key that set a knob")
    r = run(args.info, "--help")
    check(r.returncode == 0 and r.stdout.startswith("usage: strata-info"), "--help prints the usage")
    r = run(args.info, "--bogus")
    check(r.returncode == 2 and "unknown option '--bogus'" in r.stderr, "an unknown option is refused", r.stderr)

    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
