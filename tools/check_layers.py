#!/usr/bin/env python3
"""Keeps Strata's layers: no product source includes a header of a layer
above its own.

Each top-level folder of product code is a layer and may include headers of
the folders LAYERS lists for it (and its own); any other `#include "DIR/..."`
of a folder in the table is refused. The table is the order the folders are
built in:

    base <- security <- wireup <- job, gram <- adapters <- launcher, gatekeeper
    security <- relay <- wireup, launcher, gatekeeper
    base <- commfile;  wireup <- adi <- devices <- collectives <- mpi <- fortran
    wireup <- placement <- mpi

Prints each refused include as FILE:LINE: FOLDER includes OTHER/... and exits
1 if there is one; a folder missing from the table is an error too, so a new
one gets its place.

usage: check_layers.py SOURCE_ROOT
"""

import os
import re
import sys

# What each layer may include besides itself.
LAYERS = {
    "base": set(),
    "security": {"base"},
    "relay": {"base", "security"},
    "wireup": {"base", "security", "relay"},
    "placement": {"base", "wireup"},
    "commfile": {"base"},
    "job": {"base", "wireup"},
    "gram": {"base", "wireup", "job"},
    "adapters": {"base", "wireup", "job"},
    "launcher": {"base", "security", "relay", "wireup", "commfile", "job", "gram", "adapters"},
    "gatekeeper": {"base", "security", "wireup", "job", "gram", "adapters", "relay"},
    "adi": {"base", "wireup"},
    "devices": {"base", "security", "relay", "wireup", "adi"},
    "collectives": {"base", "wireup", "adi"},
    "mpi": {"base", "wireup", "placement", "adi", "devices", "collectives", "commfile"},
    "fortran": {"base", "mpi"},
}
# Not layers of the library: they may include anything.
OUTSIDE = {"tools", "tests", "examples", "scripts", "docs", "build"}
SOURCES = (".c", ".cpp", ".h", ".hpp")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_0-9]+)/')


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = sys.argv[1]
    problems = []
    for folder in sorted(os.listdir(root)):
        path = os.path.join(root, folder)
        if not os.path.isdir(path) or folder.startswith(".") or folder in OUTSIDE or folder.startswith("build"):
            continue
        sources = [os.path.join(d, f) for d, _, fs in os.walk(path) for f in fs if f.endswith(SOURCES)]
        if not sources:
            continue
        if folder not in LAYERS:
            problems.append(f"{folder}/: a folder of sources that tools/check_layers.py does not place in a layer")
            continue
        allowed = LAYERS[folder] | {folder}
        for source in sorted(sources):
            with open(source, encoding="utf-8", errors="replace") as f:
                for number, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if m and m[1] in LAYERS and m[1] not in allowed:
                        problems.append(f"{os.path.relpath(source, root)}:{number}: {folder} includes {m[1]}/")
    for p in problems:
        print(p)
    print(f"{len(problems)} include(s) against the layers")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
