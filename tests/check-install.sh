#!/bin/bash
# meson install into a DESTDIR puts every file where it belongs, and a
# second install keeps an administrator's edited configuration.
set -euo pipefail
builddir=$1
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
DESTDIR=$dest meson install -C "$builddir" --no-rebuild --quiet > /dev/null
fail=0
want() { [ -e "$dest$1" ] || { echo "FAIL: missing $1"; fail=1; }; }
# meson runs on python3, so python3 is there to read its JSON
eval "$(meson introspect "$builddir" --buildoptions | python3 -c '
import json, shlex, sys
for o in json.load(sys.stdin):
    if o["name"] in ("prefix", "sbindir", "sysconfdir", "mandir"):
        print(o["name"] + "=" + shlex.quote(o["value"]))')"
case $sysconfdir in /*) ;; *) sysconfdir=$prefix/$sysconfdir ;; esac
want "$prefix/$sbindir/memoptimizer"
want "$sysconfdir/memoptimizer.conf"
want "$prefix/$mandir/man8/memoptimizer.8"
want "$prefix/$mandir/man5/memoptimizer.conf.5"
for f in status-json.md fleet.md prometheus/alerts.yml grafana/memoptimizer.json; do
        want "$prefix/share/doc/memoptimizer/$f"
done
unit=$(find "$dest" -name memoptimizer.service)
preset=$(find "$dest" -name 90-memoptimizer.preset)
catalog=$(find "$dest" -name memoptimizer.catalog)
[ -n "$unit" ] && [ -n "$preset" ] && [ -n "$catalog" ] || { echo "FAIL: unit, preset or catalog missing"; fail=1; }
[ "$unit" = "$dest$prefix/lib/systemd/system/memoptimizer.service" ] || { echo "FAIL: unit at $unit"; fail=1; }
[ "$preset" = "$dest$prefix/lib/systemd/system-preset/90-memoptimizer.preset" ] || { echo "FAIL: preset at $preset"; fail=1; }
[ "$catalog" = "$dest$prefix/lib/systemd/catalog/memoptimizer.catalog" ] || { echo "FAIL: catalog at $catalog"; fail=1; }
grep -q "^ExecStart=$prefix/$sbindir/memoptimizer\$" "$unit" || { echo "FAIL: ExecStart does not name the installed binary"; fail=1; }
[ "$(stat -c %a "$dest$prefix/$sbindir/memoptimizer")" = 755 ] || { echo "FAIL: binary mode"; fail=1; }

echo "max_wsf = 300" >> "$dest$sysconfdir/memoptimizer.conf"
DESTDIR=$dest meson install -C "$builddir" --no-rebuild --quiet > /dev/null
grep -q '^max_wsf = 300$' "$dest$sysconfdir/memoptimizer.conf" ||
        { echo "FAIL: a second install overwrote the edited configuration"; fail=1; }
[ "$fail" -eq 0 ] && echo "PASS: $(find "$dest" -type f | wc -l) files installed under $prefix; edited config kept"
exit "$fail"
