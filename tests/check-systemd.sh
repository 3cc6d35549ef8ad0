#!/bin/bash
# The systemd parts: the unit passes `systemd-analyze verify` once installed,
# its sandbox scores an exposure of 2.0 or less, and the journal catalog
# compiles and explains exactly the MESSAGE_IDs the daemon sends.
set -euo pipefail
src=$1 builddir=$2
for t in systemd-analyze journalctl man; do
        command -v "$t" >/dev/null || { echo "SKIP: $t is not installed"; exit 77; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

ids_code=$(sed -n 's/^#define MSGID_[A-Z_]* *"\([0-9a-f]\{32\}\)"$/\1/p' "$src/src/daemon/log.h" | sort)
ids_catalog=$(sed -n 's/^-- \([0-9a-f]\{32\}\)$/\1/p' "$src/systemd/memoptimizer.catalog" | sort)
[ -n "$ids_code" ] && [ "$ids_code" = "$ids_catalog" ] ||
        { echo "FAIL: MESSAGE_IDs in log.h and the catalog differ"; diff <(echo "$ids_code") <(echo "$ids_catalog"); fail=1; }
mkdir -p "$tmp/cat/usr/lib/systemd/catalog"
cp "$src/systemd/memoptimizer.catalog" "$tmp/cat/usr/lib/systemd/catalog/"
journalctl --root="$tmp/cat" --update-catalog
listed=$(journalctl --root="$tmp/cat" --list-catalog | grep -c ' memoptimizer: ' || true)
[ "$listed" -eq "$(echo "$ids_code" | wc -l)" ] || { echo "FAIL: catalog lists $listed entries"; fail=1; }

# verify looks for ExecStart= binaries and man pages on this system: point
# the unit at the DESTDIR install and man at its pages.
DESTDIR=$tmp/root meson install -C "$builddir" --no-rebuild --quiet > /dev/null
unit_in=$(find "$tmp/root" -name memoptimizer.service)
prefix_bin=$(sed -n 's|^ExecStart=\(.*\)/memoptimizer$|\1|p' "$unit_in")
sed "s|$prefix_bin/memoptimizer|$tmp/root$prefix_bin/memoptimizer|" "$unit_in" > "$tmp/memoptimizer.service"
manroot=$(dirname "$(dirname "$(find "$tmp/root" -name memoptimizer.8)")")
out=$(MANPATH=$manroot systemd-analyze verify "$tmp/memoptimizer.service" 2>&1) || { echo "FAIL: verify exit status"; fail=1; }
[ -z "$out" ] || { echo "FAIL: systemd-analyze verify:"; echo "$out"; fail=1; }

score=$(systemd-analyze security --offline=true "$tmp/memoptimizer.service" 2>/dev/null |
        sed -n 's/.*Overall exposure level for memoptimizer.service: \([0-9.]*\).*/\1/p')
echo "systemd-analyze security exposure: $score"
awk -v s="$score" 'BEGIN { exit !(s != "" && s <= 2.0) }' || { echo "FAIL: exposure $score above 2.0"; fail=1; }
[ "$fail" -eq 0 ] && echo "PASS: unit verifies, exposure $score, catalog has $listed entries"
exit "$fail"
