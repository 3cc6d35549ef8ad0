#!/bin/bash
# What privilege does writing vm.watermark_scale_factor and the compaction
# triggers take? Tries it, as root, from processes with less: uid 0 with
# every capability dropped, and uid 65534 with none or with
# CAP_DAC_OVERRIDE + CAP_SYS_ADMIN. Writes the value already in force (no
# change) and triggers one compaction of node 0 and of all nodes per
# process that may. Run under flock /run/lock/memoptimizer-machine.lock;
# not part of the suite; output of a run: tests/results/privilege-probe.txt.
set -uo pipefail
wsf=/proc/sys/vm/watermark_scale_factor
node=/sys/devices/system/node/node0/compact
all=/proc/sys/vm/compact_memory
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root"; exit 77; }
for t in capsh setpriv; do command -v $t >/dev/null || { echo "SKIP: $t missing"; exit 77; }; done
before=$(cat "$wsf")
trap 'echo "$before" > "$wsf"' EXIT
try='grep -E "^Cap(Eff|Bnd)" /proc/self/status | tr "\n" " "; echo "uid $(id -u)";
     for f in '"$wsf $node $all"'; do
             case $f in *watermark*) v=$(cat $f) ;; *) v=1 ;; esac
             if (echo $v > $f) 2>/dev/null; then echo "  $f: written"; else echo "  $f: refused"; fi
     done'
uname -r
echo "== uid 0, every capability dropped (capsh --drop=all)"
capsh --drop=all -- -c "$try"
echo "== uid 65534, no capability"
setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all sh -c "$try"
echo "== uid 65534 with CAP_DAC_OVERRIDE and CAP_SYS_ADMIN (ambient)"
setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=+dac_override,+sys_admin \
        --ambient-caps=+dac_override,+sys_admin sh -c "$try"
echo "vm.watermark_scale_factor: $before before, $(cat "$wsf") after"
