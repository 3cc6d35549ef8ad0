#!/bin/sh
cd /var/tmp/vol/every17 || exit 1
date -u +"start %FT%TZ"
bench/run --scenarios bursts,streaming,accumulate,fragmented,mixed --warm --out /var/tmp/vol/every17-out/results > /var/tmp/vol/every17-out/run.log 2>&1
echo "rc $?"
date -u +"end %FT%TZ"
