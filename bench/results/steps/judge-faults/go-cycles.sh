#!/bin/bash
d=/work/main/bench/results/steps/judge-faults
A=/var/tmp/vol/relB/build/src/memoptimizer B=/var/tmp/vol/relC/build/src/memoptimizer
export FRAG=/var/tmp/vol/relC/build/bench/frag
{
for order in "none A B" "A B none" "B none A"; do
        r=$((r + 1))
        for row in $order; do
                case $row in none) bin=none ;; A) bin=$A ;; B) bin=$B ;; esac
                $d/cycles.sh "$row-$r" "$bin" 10 $d
        done
done
} > $d/cycles.txt 2>&1
echo "rc=$?" >> $d/cycles.txt
