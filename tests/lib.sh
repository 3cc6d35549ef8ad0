# tests/lib.sh — sourced by the shell tests (. "$(dirname "$0")/lib.sh").
#
# A test waits for a condition with a timeout, never for a fixed time: a
# sanitized daemon on a busy machine takes as long as it takes, and a
# signal sent before the daemon has set up its handlers kills it.

# wait_for [--pid PID] SECONDS WHAT COMMAND...: run COMMAND every 50 ms
# until it succeeds. Returns 1, saying "FAIL: ... WHAT" on stdout, after
# SECONDS, or as soon as process PID has exited.
wait_for() {
        # (underscored: COMMAND may read the caller's variables of any name)
        local _pid=
        if [ "$1" = --pid ]; then _pid=$2; shift 2; fi
        local _secs=$1 _what=$2
        shift 2
        local _end=$((${EPOCHREALTIME//[!0-9]/} + _secs * 1000000))
        until "$@"; do
                if [ -n "$_pid" ] && ! kill -0 "$_pid" 2> /dev/null; then
                        echo "FAIL: process $_pid exited while waiting for $_what"
                        return 1
                fi
                if [ "${EPOCHREALTIME//[!0-9]/}" -ge "$_end" ]; then
                        echo "FAIL: no $_what within $_secs s"
                        return 1
                fi
                sleep 0.05
        done
}

# logged FILE PATTERN [N]: PATTERN (grep's basic regex) is in FILE on N
# lines at least (default 1).
logged() {
        local n
        n=$(grep -c -- "$2" "$1" 2> /dev/null)
        [ "${n:-0}" -ge "${3:-1}" ]
}

# samples FILE: how many samples a daemon at log_level = debug has logged.
samples() {
        local n
        n=$(grep -c 'debug: sample ' "$1" 2> /dev/null)
        echo "${n:-0}"
}

# skip_unless_wsf_writable: exit 77 (skipped), saying why, unless this
# runs as root with vm.watermark_scale_factor writable (checked by writing
# its own value back).
skip_unless_wsf_writable() {
        local wsf=/proc/sys/vm/watermark_scale_factor
        if [ "$(id -u)" -ne 0 ]; then echo "SKIP: needs root to write $wsf"; exit 77; fi
        if ! cat "$wsf" > "$wsf" 2>/dev/null; then echo "SKIP: $wsf is not writable here"; exit 77; fi
}

# kswapd_gave_up [ZONEINFO]: the nodes kswapd has given up on
# (node_unreclaimable in /proc/zoneinfo), on stdout; false if none. The kernel then no longer
# wakes kswapd there until an allocation reclaims memory itself, and the
# daemon rightly holds its raises back. A workload that leaves nothing to
# reclaim sets it (bench/run's fragmented scenario does); a reclaim that
# makes progress clears it (revive_kswapd).
kswapd_gave_up() {
        local nodes n out=
        nodes=$("$(dirname "${BASH_SOURCE[0]}")/../scripts/revive-kswapd" --list "$@") || return 1
        for n in $nodes; do out+="${out:+ }node$n"; done
        echo "$out"
}

# revive_kswapd: scripts/revive-kswapd (which says on stderr what it did),
# so that a root test does not inherit a node kswapd gave up on; false if
# one is left.
revive_kswapd() {
        "$(dirname "${BASH_SOURCE[0]}")/../scripts/revive-kswapd" "$@"
}

# page_cache DIR MIB: a file of MIB MiB written in DIR (on a disk, not
# tmpfs), so that its pages are in the page cache: what kswapd reclaims
# when a raised watermark wakes it. A machine fresh from boot, or one whose
# cache was dropped, has next to none, and the daemon then makes no raise
# (its reclaim cap, policy.h); a test of real raises needs some, as a
# server has. Removing the file frees it.
page_cache() {
        case $(stat -f -c %T "$1") in
                tmpfs | ramfs) echo "page_cache: $1 is in memory, not page cache" >&2; return 1 ;;
        esac
        dd if=/dev/zero of="$1/page-cache" bs=1M count="$2" status=none
}

# zoneinfo_reclaimable FILE: a copy of /proc/zoneinfo made to say that
# kswapd has given up on no node, so that a test of something else does
# not inherit the state of the machine it runs on.
zoneinfo_reclaimable() {
        sed -i 's/node_unreclaimable: *[0-9]*/node_unreclaimable:  0/' "$1"
}

# wait_samples PID LOG N [SECONDS]: until the daemon has logged N samples.
wait_samples() {
        wait_for --pid "$1" "${4:-20}" "$3 samples in $2" logged "$2" 'debug: sample ' "$3"
}

# notify_listen DIR: a datagram socket DIR/notify that takes what daemons
# send with sd_notify(3), as systemd would, and writes each line of each
# message to DIR/notify.log as "PID LINE" (the sender's PID from its
# credentials). Exports NOTIFY_SOCKET. The listener ends with the shell
# that started it (or notify_stop).
notify_listen() {
        local dir=$1 shell=$BASHPID    # (in the background command, it would be the child's)
        python3 -c "$NOTIFY_LISTENER_PY" "$dir/notify" "$dir/notify.log" "$shell" \
                < /dev/null > /dev/null 2> "$dir/notify.err" &
        NOTIFY_LISTENER=$!
        : >> "$dir/notify.log"
        wait_for 10 "the notify socket $dir/notify" test -S "$dir/notify" || { cat "$dir/notify.err"; return 1; }
        export NOTIFY_SOCKET=$dir/notify
}
NOTIFY_LISTENER_PY='
import os, select, socket, struct, sys
path, log, parent = sys.argv[1], sys.argv[2], int(sys.argv[3])
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
s.bind(path + ".new")
os.chmod(path + ".new", 0o777)          # a daemon run as nobody may send too
os.rename(path + ".new", path)          # there only once it is listening
with open(log, "a", buffering=1) as out:
    while os.getppid() == parent:
        if not select.select([s], [], [], 0.2)[0]:
            continue
        data, anc, _, _ = s.recvmsg(4096, socket.CMSG_SPACE(12))
        pid = 0
        for level, kind, cred in anc:
            if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS:
                pid = struct.unpack("iII", cred[:12])[0]
        for line in data.decode(errors="replace").splitlines():
            out.write("%d %s\n" % (pid, line))
'

notify_stop() {
        [ -n "${NOTIFY_LISTENER:-}" ] || return 0
        kill "$NOTIFY_LISTENER" 2> /dev/null || true
        wait "$NOTIFY_LISTENER" 2> /dev/null || true
        NOTIFY_LISTENER=
}

# notified PID LINE [N]: the daemon PID has sent LINE N times at least.
notified() {
        local n
        n=$(grep -c -x -F -- "$1 $2" "$NOTIFY_SOCKET.log" 2> /dev/null)
        [ "${n:-0}" -ge "${3:-1}" ]
}

# wait_ready PID [N] [SECONDS]: until the daemon PID has said READY=1 N
# times (1: started, its first sample taken and its signals handled; each
# reload says it once more).
wait_ready() {
        wait_for --pid "$1" "${3:-20}" "READY=1 (${2:-1} times) from the daemon $1" notified "$1" READY=1 "${2:-1}"
}

# private_wsf DIR: where user namespaces allow it (no root needed), makes
# DIR/wsf a private copy of vm.watermark_scale_factor and sets PRIVATE_WSF
# to a command prefix that runs a command in a mount namespace where the
# sysctl is that copy: what the command reads and writes there is its own,
# whatever other processes do to the real one. "${PRIVATE_WSF[@]}" CMD &
# gives CMD's PID in $! (each step execs the next). WSF_FILE is the file to
# compare: the copy, or the real sysctl (PRIVATE_WSF empty, return 1) where
# no copy can be made.
private_wsf() {
        WSF_FILE=/proc/sys/vm/watermark_scale_factor
        PRIVATE_WSF=()
        echo 4242 > "$1/wsf"
        _private_wsf_cmd "$1/wsf"
        if [ "$("${PRIVATE_WSF[@]}" cat "$WSF_FILE" 2> /dev/null)" != 4242 ]; then
                PRIVATE_WSF=()
                rm -f "$1/wsf"
                return 1
        fi
        cat "$WSF_FILE" > "$1/wsf"
        WSF_FILE=$1/wsf
}
_private_wsf_cmd() {
        # shellcheck disable=SC2016 # $0 and $@ are the inner shell's
        PRIVATE_WSF=(unshare -rm --propagation private sh -c
                'mount --bind "$0" /proc/sys/vm/watermark_scale_factor && exec "$@"' "$1")
}

# zone_pages: one line per populated zone of /proc/zoneinfo:
# "NODE ZONE FREE PRESENT MANAGED" (pages).
zone_pages() {
        awk '$1 == "Node" { node = $2 + 0; zone = $4 }
             $1 == "pages" && $2 == "free" { free = $3 }
             $1 == "present" { present = $2 }
             $1 == "managed" { if (present > 0) print node, zone, free, present, $2 }' /proc/zoneinfo
}
