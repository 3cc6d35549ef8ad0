#!/bin/bash
# The layers call one way only, and the core does no I/O: from the static
# libraries' own symbol tables, not from reading the code.
#   core <- kernel <- daemon <- cmd
# A library may not use a symbol that a higher layer defines, and the core
# may not call any function that touches a file, a clock, the process or a
# library other than json-c. No layer calls into libm (src/core/util.h). (Including a higher layer's header
# already fails to build: each layer's include path holds only its own
# folder and those below.) One clock helper and one event loop: only
# kernel/clock.c reads a clock, and the daemon and `record` share
# daemon/loop.c.
set -euo pipefail
lib=$1          # the build's src/ folder
layers=(core kernel daemon cmd)
fail=0

defined() { nm --defined-only --format=just-symbols "$lib/$1/libmemoptimizer-$1.a" 2>/dev/null | sort -u; }
used() { nm -u --format=just-symbols "$lib/$1/libmemoptimizer-$1.a" 2>/dev/null | sort -u; }

for i in "${!layers[@]}"; do
        for j in "${!layers[@]}"; do
                [ "$j" -gt "$i" ] || continue
                up=$(comm -12 <(used "${layers[$i]}") <(defined "${layers[$j]}"))
                if [ -n "$up" ]; then
                        echo "FAIL: ${layers[$i]} calls into ${layers[$j]}:" $up
                        fail=1
                fi
        done
done

# No I/O, clock, environment, process or service call in the core.
io='^(open|open64|openat|openat64|creat|fopen|fopen64|fdopen|fmemopen|open_memstream|read|write|pread|pread64|pwrite|readv|writev|close|fclose|fgets|fputs|fputc|fprintf|vfprintf|dprintf|printf|puts|putchar|fwrite|fread|fflush|getc|fgetc|getline|getdelim|stat|stat64|fstat|fstat64|lstat|lstat64|statx|mkdir|rmdir|unlink|rename|access|faccessat|flock|fsync|mmap|clock_gettime|time|gettimeofday|getrusage|times|sleep|usleep|nanosleep|sysconf|getenv|secure_getenv|setenv|uname|getpid|getuid|geteuid|kill|signal|sigaction|sigprocmask|syscall|ioctl|prctl|stdout|stderr|stdin|sd_.*|procps_.*|cap_.*|json_object_from_fd.*|json_object_from_file|json_object_to_fd|json_object_to_file.*)$'
bad=$(used core | grep -E "$io" || true)
if [ -n "$bad" ]; then
        echo "FAIL: the core does I/O or reads the clock:" $bad
        fail=1
fi
# The kernel side does not log to journald (the daemon's sd_journal_*), nor use sd-event.
bad=$(used kernel | grep -E '^sd_.*$' || true)
if [ -n "$bad" ]; then
        echo "FAIL: the kernel side uses the daemon's libraries:" $bad
        fail=1
fi
# The objects of layer $1 that call $2.
callers() { nm -A -u "$lib/$1/libmemoptimizer-$1.a" 2>/dev/null | sed -n "s|^.*/\\([^/]*\\.o\\): *U $2\$|\\1|p"; }
# One clock helper (kernel/clock.c): no other object reads a clock itself.
clocks=$(for l in "${layers[@]}"; do callers "$l" clock_gettime; done | sort -u | tr '\n' ' ')
if [ "$clocks" != "clock.c.o " ]; then
        echo "FAIL: objects other than kernel/clock.c read the clock: $clocks"
        fail=1
fi
# One event loop (daemon/loop.c) for the daemon and `memoptimizer record`.
for o in daemon:daemon.c.o cmd:record.c.o; do
        callers "${o%%:*}" loop_new | grep -qx "${o#*:}" || { echo "FAIL: ${o#*:} does not use loop_new()"; fail=1; }
done
bad=$(for l in "${layers[@]}"; do callers "$l" sigtimedwait; done)
[ -z "$bad" ] || { echo "FAIL: an event loop of its own (sigtimedwait) in" $bad; fail=1; }
# No libm: the functions only libm has, against what every layer calls.
libm_only() {
        local m c
        m=$(${CC:-cc} -print-file-name=libm.so.6) c=$(${CC:-cc} -print-file-name=libc.so.6)
        comm -23 <(nm -D --defined-only --format=just-symbols "$m" | sed 's/@.*//' | sort -u) \
                 <(nm -D --defined-only --format=just-symbols "$c" | sed 's/@.*//' | sort -u)
}
math=$(libm_only)
[ "$(wc -l <<< "$math")" -gt 100 ] || { echo "FAIL: could not list libm's functions"; fail=1; }
bad=$(for l in "${layers[@]}"; do used "$l"; done | sort -u | comm -12 - <(echo "$math"))
[ -z "$bad" ] || { echo "FAIL: calls into libm (src/core/util.h says why not):" $bad; fail=1; }
for l in "${layers[@]}"; do
        [ -n "$(defined "$l")" ] || { echo "FAIL: no symbols in $lib/$l/libmemoptimizer-$l.a"; fail=1; }
done
[ "$fail" -eq 0 ] && echo "PASS: core <- kernel <- daemon <- cmd, one way; the core does no I/O; one clock, one loop; no libm"
exit "$fail"
