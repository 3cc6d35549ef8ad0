#!/bin/sh
# outside: 0.4.8's pulses (memoptimizer) against the slide patch (memoptimizer-other), beside the defaults.
/var/tmp/slidewt/bench/run --scenarios outside --configs defaults,memoptimizer,memoptimizer-other --other-daemon /var/tmp/slidewt-slide.sh --runs 6 --no-warm --out /var/tmp/sit-slide/outside > /var/tmp/sit-slide/outside.log 2>&1
echo "outside exit $?" >> /var/tmp/sit-slide/outside.log
