#!/bin/bash
d=/work/main/bench/results/steps/judge-faults
$d/go-cycles.sh
$d/go-frag.sh
