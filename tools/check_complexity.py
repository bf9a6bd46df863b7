#!/usr/bin/env python3
"""Keeps the cognitive complexity of every function in Strata below 40.

Runs clang-tidy with only readability-function-cognitive-complexity
(complexity 40 or more refused, macros ignored) on every C and C++ unit of the build's
compile_commands.json that lies in the source tree, the build directory's
generated files and subprojects excepted, several units at a time. Prints
each function over the limit as

    FILE:LINE: function NAME has complexity N

(FILE relative to the source root; a function in a header is listed once),
and each unit clang-tidy could not parse with its first errors. Exits 1 if
either list is not empty.

The build compiles with GCC, and clang rejects some GCC-only flags: they are
dropped from a unit's command (those clang reports as unknown are dropped and
the unit retried), and GCC-only warning names are silenced with
-Wno-unknown-warning-option.

usage: check_complexity.py [--clang-tidy PROG] [--jobs N] SOURCE_ROOT BUILD_DIR [FILE...]
With FILEs, only those units (paths relative to SOURCE_ROOT or absolute).
"""

import argparse
import concurrent.futures
import json
import os
import re
import shlex
import subprocess
import sys

# Every function must stay below LIMIT; clang-tidy's Threshold is the
# largest complexity it lets pass.
LIMIT = 40
CHECK = "readability-function-cognitive-complexity"
CONFIG = (
    "{CheckOptions: ["
    f"{{key: {CHECK}.Threshold, value: {LIMIT - 1}}}, "
    f"{{key: {CHECK}.IgnoreMacros, value: true}}]}}"
)
SOURCE_SUFFIXES = (".c", ".cc", ".cpp", ".cxx")
# GCC flags clang does not know; more are found at run time.
GCC_ONLY_FLAGS = {"-fallow-argument-mismatch", "-fno-semantic-interposition"}
# Flags (and the flags that take the next word) that only concern the object
# file, the dependency file or the look of the output.
DROP_WITH_VALUE = {"-o", "-MF", "-MQ", "-MT"}
DROP = {"-c", "-MD", "-MMD", "-Werror", "-Winvalid-pch", "-fdiagnostics-color=always"}
EXTRA_ARGS = ["-Wno-unknown-warning-option", "-Wno-unused-command-line-argument"]

WARNING = re.compile(
    r"^(?P<file>[^\s:][^:]*):(?P<line>\d+):\d+: warning: function '(?P<name>[^']+)' "
    r"has cognitive complexity of (?P<n>\d+) \(threshold \d+\) \[" + re.escape(CHECK) + r"\]"
)
UNKNOWN_ARGUMENT = re.compile(r"error: unknown argument: '([^']+)'")
ERROR = re.compile(r"^[^\s].*: error: .*$", re.MULTILINE)


def units(source_root, build_dir, only):
    """The project's C and C++ units: {absolute file: (directory, argument list)}."""
    with open(os.path.join(build_dir, "compile_commands.json"), encoding="utf-8") as f:
        database = json.load(f)
    build_dir = os.path.realpath(build_dir)
    subprojects = os.path.join(source_root, "subprojects")
    found = {}
    for entry in database:
        directory = entry["directory"]
        path = os.path.realpath(os.path.join(directory, entry["file"]))
        inside = path.startswith(source_root + os.sep)
        generated = path.startswith(build_dir + os.sep)
        if not inside or generated or path.startswith(subprojects + os.sep):
            continue
        if not path.endswith(SOURCE_SUFFIXES) or path in found:
            continue
        if only and path not in only:
            continue
        arguments = entry.get("arguments") or shlex.split(entry["command"])
        found[path] = (directory, compiler_flags(arguments, entry["file"]))
    return found


def compiler_flags(arguments, file):
    """The flags of a compile command, without the compiler, the file and the output."""
    # The compiler is the first word that is not a launcher such as ccache.
    start = 0
    while start < len(arguments) - 1 and os.path.basename(arguments[start]) in ("ccache", "sccache", "distcc"):
        start += 1
    flags = []
    skip = False
    for word in arguments[start + 1 :]:
        if skip:
            skip = False
        elif word in DROP_WITH_VALUE:
            skip = True
        elif word not in DROP and word not in GCC_ONLY_FLAGS and word != file:
            flags.append(word)
    return flags


def run_unit(clang_tidy, source_root, path, directory, flags):
    """(warnings as (file, line, name, n), errors as text or "")."""
    flags = list(flags)
    while True:
        command = [clang_tidy, "--quiet", f"--checks=-*,{CHECK}", f"--config={CONFIG}", "--header-filter=.*"]
        command += [f"--extra-arg={a}" for a in EXTRA_ARGS]
        command += [path, "--"] + flags
        done = subprocess.run(command, cwd=directory, capture_output=True, text=True, check=False)
        output = done.stdout + done.stderr
        unknown = [a for a in UNKNOWN_ARGUMENT.findall(output) if a in flags]
        if not unknown:
            break
        flags = [f for f in flags if f not in unknown]
    warnings = []
    for line in output.splitlines():
        m = WARNING.match(line)
        if m:
            file = os.path.realpath(os.path.join(directory, m["file"]))
            warnings.append((file, int(m["line"]), m["name"], int(m["n"])))
    errors = ""
    if done.returncode != 0:
        found = ERROR.findall(output)
        errors = "\n".join(found[:5]) if found else output.strip()[-2000:]
    return warnings, errors


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clang-tidy", default="clang-tidy-14")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("source_root")
    parser.add_argument("build_dir")
    parser.add_argument("files", nargs="*")
    options = parser.parse_args()

    source_root = os.path.realpath(options.source_root)
    build_dir = os.path.realpath(options.build_dir)
    only = {os.path.realpath(os.path.join(source_root, f)) for f in options.files}
    todo = units(source_root, build_dir, only)
    if only - set(todo):
        for f in sorted(only - set(todo)):
            print(f"{os.path.relpath(f, source_root)}: not a unit of {build_dir}/compile_commands.json")
        return 1

    over = {}
    broken = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, options.jobs)) as pool:
        jobs = {
            pool.submit(run_unit, options.clang_tidy, source_root, path, directory, flags): path
            for path, (directory, flags) in todo.items()
        }
        for job in concurrent.futures.as_completed(jobs):
            warnings, errors = job.result()
            for file, line, name, n in warnings:
                if file.startswith(source_root + os.sep) and not file.startswith(build_dir + os.sep):
                    over[(os.path.relpath(file, source_root), line, name)] = n
            if errors:
                broken[os.path.relpath(jobs[job], source_root)] = errors

    for (file, line, name), n in sorted(over.items()):
        print(f"{file}:{line}: function {name} has complexity {n}")
    for file, errors in sorted(broken.items()):
        print(f"{file}: clang-tidy could not parse this unit:\n{errors}")
    print(
        f"{len(todo)} units checked: {len(over)} functions at or over {LIMIT}, "
        f"{len(broken)} units not parsed"
    )
    return 1 if over or broken else 0


if __name__ == "__main__":
    sys.exit(main())
