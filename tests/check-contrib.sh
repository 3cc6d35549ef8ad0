#!/bin/bash
# contrib/: the alert rules pass `promtool check rules` and their unit tests
# (`promtool test rules`), and every metric the rules and the Grafana
# dashboard query is one the daemon really writes: a metrics file is taken
# from a real run (--dry-run, private runtime directory). The dashboard is
# valid JSON with a datasource variable that every panel uses. (Grafana
# itself is not in Debian; loading it there is not tested.)
set -euo pipefail
bin=$1 src=$2
. "$(dirname "$0")/lib.sh"
command -v promtool >/dev/null || { echo "SKIP: promtool is not installed (scripts/install-deps --test)"; exit 77; }
tmp=$(mktemp -d)
pid=
cleanup() {
        if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
        rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
fail=0

promtool check rules "$src/contrib/prometheus/alerts.yml" || fail=1
(cd "$src/contrib/prometheus" && promtool test rules alerts.test.yml) || fail=1

# A real metrics file, written after the first forecast (two samples).
mkdir "$tmp/textfile"
printf 'interval = 200ms\nwindow = 4\nmetrics_dir = %s\nmetrics_interval = 1s\n' "$tmp/textfile" > "$tmp/conf"
STATE_DIRECTORY=$tmp/lib RUNTIME_DIRECTORY=$tmp/run "$bin" --config "$tmp/conf" --dry-run 2> "$tmp/log" &
pid=$!
wait_for --pid "$pid" 20 "a forecast in the metrics file" \
        logged "$tmp/textfile/memoptimizer.prom" '^memoptimizer_forecast_low_watermark_seconds' || true
cp "$tmp/textfile/memoptimizer.prom" "$tmp/real.prom" 2>/dev/null || { cat "$tmp/log"; echo "FAIL: no metrics file"; exit 1; }
kill -TERM "$pid"; wait "$pid" || true; pid=
grep -q '^memoptimizer_forecast_low_watermark_seconds' "$tmp/real.prom" || { echo "FAIL: no forecast in the metrics file"; fail=1; }
promtool check metrics < "$tmp/real.prom" || { echo "FAIL: promtool check metrics"; fail=1; }
sed -n 's/^# TYPE \(memoptimizer_[a-z0-9_]*\) .*/\1/p' "$tmp/real.prom" | sort -u > "$tmp/written"
# node_exporter's own series that the rules use (textfile collector).
echo node_textfile_mtime_seconds >> "$tmp/written"

# Metric names in PromQL: identifiers followed by '{', '[' or ')' or a
# space, which are not functions or keywords; we only check our prefixes.
names() { grep -o '\b\(memoptimizer\|node\)_[a-z0-9_]*\b' | sort -u; }
grep 'expr:' -A6 "$src/contrib/prometheus/alerts.yml" | names > "$tmp/rules"
python3 - "$src/contrib/grafana/memoptimizer.json" > "$tmp/exprs" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
ok = True
def fail(msg):
    global ok
    print("FAIL: dashboard: " + msg, file=sys.stderr)
    ok = False
vars = {v["name"]: v for v in d["templating"]["list"]}
if vars.get("datasource", {}).get("type") != "datasource" or vars["datasource"].get("query") != "prometheus":
    fail("no Prometheus datasource variable")
ids = set()
for p in d["panels"]:
    if p["id"] in ids:
        fail("duplicate panel id %d" % p["id"])
    ids.add(p["id"])
    if p["type"] == "row":
        continue
    if p["datasource"].get("uid") != "${datasource}":
        fail("panel '%s' does not use ${datasource}" % p["title"])
    if not p.get("targets"):
        fail("panel '%s' has no query" % p["title"])
    for t in p["targets"]:
        print(t["expr"])
for k in ("uid", "title", "schemaVersion", "panels", "time"):
    if k not in d:
        fail("no " + k)
print(vars["instance"]["definition"])
sys.exit(0 if ok else 1)
PY
names < "$tmp/exprs" > "$tmp/dashboard"
for f in rules dashboard; do
        [ -s "$tmp/$f" ] || { echo "FAIL: no metric names found in the $f"; fail=1; }
        unknown=$(comm -23 "$tmp/$f" "$tmp/written")
        [ -z "$unknown" ] || { echo "FAIL: the $f query metrics the daemon does not write:"; echo "$unknown"; fail=1; }
done
[ "$fail" -eq 0 ] && echo "PASS: rules checked and unit-tested; $(wc -l < "$tmp/rules") metrics in the rules and $(wc -l < "$tmp/dashboard") in $(wc -l < "$tmp/exprs") dashboard queries are all in the daemon's file"
exit "$fail"
