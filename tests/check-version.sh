#!/bin/bash
# The version comes from one place, VERSION: meson reads it (the program's
# --version, live.json, traces), and the Debian package's version in
# debian/changelog and the man pages' .TH must be the same string (a native
# package: no revision).
set -euo pipefail
bin=$1 src=$2
fail=0
v=$(cat "$src/VERSION")
[[ $v =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "FAIL: VERSION holds '$v', not MAJOR.MINOR.PATCH"; fail=1; }
deb=$(sed -n '1s/^memoptimizer (\([^)]*\)) .*/\1/p' "$src/debian/changelog")
[ "$deb" = "$v" ] || { echo "FAIL: debian/changelog's first entry is '$deb', VERSION is '$v'"; fail=1; }
# the man pages' .TH names the version they describe (it read 0.1.0 until 0.4.4)
for page in "$src"/man/*.[0-9]; do
        th=$(sed -n '1s/^\.TH [^ ]* [0-9] "[^"]*" "\([^"]*\)".*/\1/p' "$page")
        [ "$th" = "memoptimizer $v" ] || { echo "FAIL: $page's .TH says '$th', VERSION is '$v'"; fail=1; }
done
out=$("$bin" --version)
[ "$out" = "memoptimizer $v" ] || { echo "FAIL: '$bin --version' prints '$out', VERSION is '$v'"; fail=1; }
[ "$fail" -eq 0 ] && echo "PASS: VERSION, debian/changelog, the man pages and --version all say $v"
exit "$fail"
