#!/bin/sh
# the slide patch, measured: MO_SLIDE=1 for this row only
MO_SLIDE=1 exec /var/tmp/slidewt/build/src/memoptimizer "$@"
