#!/bin/bash
# The daemon's metrics through the real tools: memoptimizer (--dry-run, a
# private runtime directory) writes memoptimizer.prom into a directory that
# Debian's prometheus-node-exporter serves with its textfile collector on
# loopback; the scrape has memoptimizer's series with sane values, and
# `promtool check metrics` passes on the file and on the scrape; and
# `status --json` reports the same daemon running, then not running.
set -euo pipefail
bin=$1
. "$(dirname "$0")/lib.sh"
exporter=/usr/bin/prometheus-node-exporter
for t in "$exporter" promtool curl; do
        command -v "$t" >/dev/null || { echo "SKIP: $t is not installed (scripts/install-deps --test)"; exit 77; }
done
tmp=$(mktemp -d)
pid= npid=
cleanup() {
        for p in $pid $npid; do
                kill "$p" 2>/dev/null || true
                wait "$p" 2>/dev/null || true
        done
        rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
fail() { echo "FAIL: $*"; exit 1; }

wsf=$(cat /proc/sys/vm/watermark_scale_factor)
mkdir "$tmp/textfile"
printf 'interval = 200ms\nwindow = 4\nmetrics_dir = %s\nmetrics_interval = 1s\n' "$tmp/textfile" > "$tmp/conf"
STATE_DIRECTORY=$tmp/lib RUNTIME_DIRECTORY=$tmp/run "$bin" --config "$tmp/conf" --dry-run 2> "$tmp/log" &
pid=$!

# A free port: node_exporter exits at once when the port is taken.
for _ in 1 2 3 4 5 6 7 8; do
        port=$((20000 + RANDOM % 30000))
        "$exporter" --web.listen-address="127.0.0.1:$port" --collector.disable-defaults \
                --collector.textfile --collector.textfile.directory="$tmp/textfile" 2> "$tmp/exporter.log" &
        npid=$!
        for _ in $(seq 50); do
                curl -fs "http://127.0.0.1:$port/metrics" > /dev/null 2>&1 && break 2
                kill -0 "$npid" 2>/dev/null || break
                sleep 0.1
        done
        kill "$npid" 2>/dev/null; wait "$npid" 2>/dev/null || true; npid=
done
[ -n "$npid" ] || { cat "$tmp/exporter.log"; fail "node_exporter did not start"; }

# Two metrics writes at least (1 s apart), the first with a forecast, the
# second after 3 samples at least.
prom=$tmp/textfile/memoptimizer.prom
prom_samples() { awk '$1 == "memoptimizer_samples_total" { print $2 }' "$prom" 2> /dev/null; }
wait_for --pid "$pid" 20 "a forecast in the metrics file" logged "$prom" '^memoptimizer_forecast_low_watermark_seconds' ||
        { cat "$tmp/log"; exit 1; }
first=$(prom_samples)
rewritten() { awk -v a="${first:-0}" -v b="$(prom_samples)" 'BEGIN { exit !(b > a && b >= 3) }'; }
wait_for --pid "$pid" 20 "the metrics file written again" rewritten || { cat "$tmp/log"; exit 1; }
[ -f "$tmp/textfile/memoptimizer.prom" ] || { cat "$tmp/log"; fail "no memoptimizer.prom"; }
cp "$tmp/textfile/memoptimizer.prom" "$tmp/file.prom"
ls -A "$tmp/textfile" | grep -v '^memoptimizer.prom$' && fail "a temporary file is left in the textfile directory"
[ "$(stat -c %a "$tmp/textfile/memoptimizer.prom")" = 644 ] || fail "metrics file mode is not 0644"
curl -fsS "http://127.0.0.1:$port/metrics" > "$tmp/scrape"

promtool check metrics < "$tmp/file.prom" || fail "promtool check metrics on the file the daemon wrote"
grep '^memoptimizer_\|^# [A-Z]* memoptimizer_' "$tmp/scrape" > "$tmp/scrape.memoptimizer"
promtool check metrics < "$tmp/scrape.memoptimizer" || fail "promtool check metrics on the scraped memoptimizer series"
echo "promtool check metrics: the file ($(grep -vc '^#' "$tmp/file.prom") samples) and the scrape pass"

# value NAME [LABEL,...]: the value of the first series in the scrape with
# that name and those labels (node_exporter sorts labels by name).
value() {
        awk -v n="$1" -v l="${2:-}" '{
                split($1, a, "{"); if (a[1] != n) next
                k = split(l, want, ","); for (i = 1; i <= k; i++) if (index($1, want[i]) == 0) next
                print $2; exit }' "$tmp/scrape"
}
check() { awk "BEGIN { exit !($2) }" || fail "$1 (${*:3})"; }

grep -q '^node_textfile_scrape_error 0$' "$tmp/scrape" || fail "node_exporter reports a textfile error"
grep -q '^node_textfile_mtime_seconds{file=".*memoptimizer.prom"}' "$tmp/scrape" ||
        fail "node_exporter does not list memoptimizer.prom"
[ "$(value memoptimizer_mode 'mode="dry-run"')" = 1 ] || fail "mode is not dry-run"
[ "$(value memoptimizer_mode 'mode="acting"')" = 0 ] || fail "mode acting is not 0"
# Compared only when nobody else (a benchmark) wrote the sysctl meanwhile.
if [ "$(cat /proc/sys/vm/watermark_scale_factor)" = "$wsf" ]; then
        [ "$(value memoptimizer_watermark_scale_factor)" = "$wsf" ] || fail "scale factor is not the kernel's $wsf"
        [ "$(value memoptimizer_watermark_scale_factor_baseline)" = "$wsf" ] || fail "baseline is not $wsf"
else
        echo "NOTE: another process changed vm.watermark_scale_factor during the test; not compared"
fi
samples=$(value memoptimizer_samples_total)
check "at least 3 samples" "$samples >= 3" "$samples"
[ "$(value memoptimizer_sample_errors_total)" = 0 ] || fail "sample errors"
for kind in raise raise-stall lower lower-guard adopt; do
        [ -n "$(value memoptimizer_decisions_total "kind=\"$kind\"")" ] || fail "no decisions_total for $kind"
done
cpu=$(value memoptimizer_process_cpu_seconds_total)
check "CPU seconds in [0, 10]" "$cpu >= 0 && $cpu < 10" "$cpu"

# Every zone: 0 < free <= managed, min < low < high, all in bytes (page multiples).
page=$(getconf PAGESIZE)
zones=$(sed -n 's/^memoptimizer_zone_managed_bytes{\(node="[0-9]*",zone="[A-Za-z0-9]*"\)}.*/\1/p' "$tmp/scrape")
[ -n "$zones" ] || fail "no zones"
for z in $zones; do
        m=$(value memoptimizer_zone_managed_bytes "$z") f=$(value memoptimizer_zone_free_bytes "$z")
        lo=$(value memoptimizer_zone_watermark_bytes "$z,watermark=\"low\"")
        mi=$(value memoptimizer_zone_watermark_bytes "$z,watermark=\"min\"")
        hi=$(value memoptimizer_zone_watermark_bytes "$z,watermark=\"high\"")
        check "$z: free within managed, page multiples" "$f > 0 && $f <= $m && $m % $page == 0" "$f $m"
        check "$z: min < low < high" "$mi < $lo && $lo < $hi" "$mi $lo $hi"
        [ -n "$(value memoptimizer_zone_free_blocks "$z,order=\"0\"")" ] || fail "$z: no order-0 free blocks"
        r=$(value memoptimizer_zone_unusable_free_ratio "$z,order=\"1\"")
        check "$z: unusable ratio in [0, 1]" "$r >= 0 && $r <= 1" "$r"
        [ -n "$(value memoptimizer_forecast_low_watermark_seconds "$z")" ] || fail "$z: no forecast to low"
done
[ -n "$(value memoptimizer_forecast_order_exhaustion_seconds 'order="1"')" ] || fail "no exhaustion forecast"
now=$(date +%s)
ts=$(value memoptimizer_last_sample_timestamp_seconds)
check "last sample within 5 s" "$ts > $now - 5 && $ts <= $now + 1" "$ts $now"

# status --json sees the same daemon (python3 is there: meson runs on it).
STATE_DIRECTORY=$tmp/lib RUNTIME_DIRECTORY=$tmp/run "$bin" status --json > "$tmp/status.json"
STATE_DIRECTORY=$tmp/lib RUNTIME_DIRECTORY=$tmp/run "$bin" status > "$tmp/status.txt"
python3 - "$tmp/status.json" "$wsf" <<'PY' || fail "status --json: $(cat "$tmp/status.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema_version"] == 1
assert d["watermark_scale_factor"]["current"] > 0
dm = d["daemon"]
assert dm["state"] == "running" and dm["mode"] == "dry-run", dm["state"]
# written at the first forecast, then on news or every heartbeat
assert dm["live"]["counters"]["samples"] >= 1
assert dm["live"]["forecast"] is not None
assert dm["live"]["heartbeat_seconds"] == 10
assert all(0 <= f["unusable_index"] <= 1 for z in d["zones"] for f in z["fragmentation"])
PY
grep -q '^daemon: running, dry-run (pid [0-9]*, updated' "$tmp/status.txt" || fail "status text: $(cat "$tmp/status.txt")"

# A stopped daemon leaves nothing in the textfile directory.
kill -TERM "$pid"
wait "$pid" || fail "daemon exit status $?"
pid=
[ -z "$(ls -A "$tmp/textfile")" ] || fail "files left after stop: $(ls -A "$tmp/textfile")"
curl -fsS "http://127.0.0.1:$port/metrics" | grep -q '^memoptimizer_' && fail "node_exporter still serves memoptimizer series"
STATE_DIRECTORY=$tmp/lib RUNTIME_DIRECTORY=$tmp/run "$bin" status --json | grep -q '"state": "not-running"' || fail "status after stop"
echo "PASS: node_exporter on 127.0.0.1:$port served $(grep -c '^memoptimizer_' "$tmp/scrape") memoptimizer samples over $(echo "$zones" | wc -w) zones; removed on stop"
