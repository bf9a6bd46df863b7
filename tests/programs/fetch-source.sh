#!/usr/bin/env bash
# fetch-source.sh PACKAGE DIR: the upstream source of a Debian (bookworm)
# source package, unpacked into DIR/<package> (cached: a second call finds
# it there). Uses a private apt configuration under DIR, so the machine's own
# sources list (binary packages only) stays as it is; nothing is installed.
# The sources are fetched at test time and never committed.
set -euo pipefail
pkg=$1
dir=$(mkdir -p "$2" && cd "$2" && pwd)
out=$dir/$pkg
if [ -f "$out/.unpacked" ]; then
    echo "$out"
    exit 0
fi
apt_dir=$dir/apt
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$dir/download"
echo "deb-src http://deb.debian.org/debian bookworm main" > "$apt_dir/sources.list"
apt_opts=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
          -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache" -o "APT::Sandbox::User=root")
if ! ls "$apt_dir/lists/"*Sources* >/dev/null 2>&1; then
    apt-get "${apt_opts[@]}" -qq update >&2 || {
        echo "fetch-source: cannot read the Debian source index (deb.debian.org)" >&2
        exit 1
    }
fi
# Only the upstream (orig) tarball is needed: Debian's packaging is not used.
# (Debian's own part of the source package may be missing from the mirror;
# the check below is what counts.)
(cd "$dir/download" && apt-get "${apt_opts[@]}" -qq source --download-only "$pkg" > "$dir/download/$pkg.log" 2>&1) ||
    true
tarball=$(ls "$dir/download/${pkg}_"*.orig.tar.* 2>/dev/null | head -1)
if [ -z "$tarball" ]; then
    echo "fetch-source: no upstream tarball of $pkg came from deb.debian.org" >&2
    exit 1
fi
rm -rf "$out.tmp"
mkdir -p "$out.tmp"
tar -xf "$tarball" -C "$out.tmp" --strip-components=1
rm -rf "$out"
mv "$out.tmp" "$out"
touch "$out/.unpacked"
echo "$out"
