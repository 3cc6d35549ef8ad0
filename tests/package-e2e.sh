#!/bin/bash
# End-to-end test of the Debian package on Debian's own kernels: builds the
# package (scripts/build-deb, lintian included), boots a fresh Debian 12
# (kernel 6.1) and a Debian 13 (kernel 6.12) VM with QEMU, and runs
# tests/package-e2e-guest.sh in each: apt install ./memoptimizer_*.deb,
# active, journal and catalog, a raise under a memory consumer, conffile
# edit kept over a reinstall, reload, remove (boot value back), purge
# (nothing left).
#
#   tests/package-e2e.sh [SUITE...]        (as root; default: bookworm trixie)
#
# The VMs' disks are made once per suite with debootstrap and the archive's
# linux-image-amd64 (a few minutes, needs deb.debian.org; the VMs reach it
# through QEMU's user networking for apt) and kept in
# /var/tmp/memoptimizer-pkg-e2e/SUITE; each run boots a throw-away qcow2
# overlay of it, so every VM is freshly booted from the same disk. QEMU runs
# with TCG (this machine's /dev/kvm cannot run a guest), 2 vCPUs and 3 GiB
# on the q35 machine, which maps 2 GiB below 4 GiB and 1 GiB above, so the
# guest has the DMA, DMA32 and Normal zones of a server; one VM at a time,
# each stopped after $VM_TIMEOUT s (default 1500).
#
# Takes the machine lock for the whole run (the VMs take CPU and 2 GiB; they
# do not touch this machine's sysctls). What each VM saw of its kernel
# (/proc/{buddyinfo,zoneinfo,vmstat,meminfo}) and the trace its daemon
# recorded are kept in /var/tmp/memoptimizer-pkg-e2e/SUITE/out/.
#
# Prints PASS/FAIL per check and exits non-zero if any failed.
set -uo pipefail
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root (debootstrap, mkfs of a tree owned by root)"; exit 77; }
[ -n "${MEMOPT_LOCKED:-}" ] ||
        exec env MEMOPT_LOCKED=1 flock /run/lock/memoptimizer-machine.lock "$0" "$@"

src=$(cd "$(dirname "$0")/.." && pwd)
CACHE=/var/tmp/memoptimizer-pkg-e2e
VM_TIMEOUT=${VM_TIMEOUT:-1500}
suites=("$@")
[ ${#suites[@]} -gt 0 ] || suites=(bookworm trixie)
t0=$(date +%s)
QEMU_PID=
failures=0

say() { printf '\n=== %s\n' "$*"; }
die() { echo "FAIL: $*"; exit 1; }
cleanup() {
        local rc=$?
        trap - EXIT INT TERM
        if [ -n "$QEMU_PID" ] && kill -0 "$QEMU_PID" 2> /dev/null; then
                echo "cleanup: stopping QEMU $QEMU_PID"
                kill -TERM "$QEMU_PID"
                wait "$QEMU_PID" 2> /dev/null
        fi
        rm -rf "$CACHE/run"
        exit "$rc"
}
trap cleanup EXIT
trap 'echo interrupted; exit 130' INT
trap 'echo terminated; exit 143' TERM

need=()
command -v qemu-system-x86_64 > /dev/null || need+=(qemu-system-x86)
command -v qemu-img > /dev/null || need+=(qemu-utils)
command -v debootstrap > /dev/null || need+=(debootstrap)
command -v debugfs > /dev/null || need+=(e2fsprogs)
command -v cc > /dev/null || need+=(gcc libc6-dev)
if [ ${#need[@]} -gt 0 ]; then
        say "installing ${need[*]} on the host"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${need[@]}" > /tmp/package-e2e-apt.log 2>&1 ||
                { tail -20 /tmp/package-e2e-apt.log; die "apt-get install ${need[*]}"; }
fi
mkdir -p "$CACHE"

# ------------------------------------------------------------------ package
say "scripts/build-deb (dpkg-buildpackage, lintian)"
OUT=$CACHE/deb "$src/scripts/build-deb" 2>&1 | grep -v 'running with root privileges' || die "scripts/build-deb"
DEB=$(ls "$CACHE"/deb/memoptimizer_*_amd64.deb)
echo "package: $(basename "$DEB"), $(dpkg-deb -f "$DEB" Depends)"

# ------------------------------------------------------------------ images
# image SUITE: $CACHE/SUITE/{disk.img,vmlinuz,initrd.img}, made once.
image() {
        local s=$1 d=$CACHE/$1
        if [ -f "$d/complete" ]; then
                echo "$s: reusing $d/disk.img (kernel $(cat "$d/complete"))"
                return 0
        fi
        grep -q " $d" /proc/self/mountinfo && die "something is mounted under $d; not touching it"
        if [ -f "$d/debootstrapped" ] && [ -d "$d/root" ]; then
                echo "$s: reusing the debootstrapped tree $d/root"
        else
                rm -rf "$d"
                mkdir -p "$d"
                echo "$s: debootstrap --variant=minbase (log: $d/debootstrap.log)"
                local b0
                b0=$(date +%s)
                debootstrap --variant=minbase --include=systemd,systemd-sysv,udev,dbus,linux-image-amd64,iproute2 \
                        "$s" "$d/root" http://deb.debian.org/debian > "$d/debootstrap.log" 2>&1 ||
                        { tail -20 "$d/debootstrap.log"; die "debootstrap $s"; }
                touch "$d/debootstrapped"
                echo "$s: debootstrap took $(($(date +%s) - b0)) s"
        fi
        local r=$d/root
        echo "debian-$s" > "$r/etc/hostname"
        # Runs the payload disk's guest script once the system is up, then powers off.
        cat > "$r/etc/systemd/system/pkg-e2e-runner.service" << 'EOF'
[Unit]
Description=package end-to-end test runner (payload on /dev/vdb)
After=multi-user.target
ConditionPathExists=/dev/vdb

[Service]
Type=oneshot
TimeoutStartSec=infinity
StandardOutput=journal+console
StandardError=journal+console
ExecStart=/bin/sh -c 'mkdir -p /mnt/e2e && mount /dev/vdb /mnt/e2e && bash /mnt/e2e/guest.sh > /mnt/e2e/log.txt 2>&1; sync; umount /mnt/e2e'
ExecStartPost=/bin/systemctl poweroff --no-block

[Install]
WantedBy=multi-user.target
EOF
        ln -sf /etc/systemd/system/pkg-e2e-runner.service "$r/etc/systemd/system/multi-user.target.wants/pkg-e2e-runner.service"
        local k
        k=$(ls "$r"/boot/vmlinuz-* | head -1)
        cp "$k" "$d/vmlinuz"
        cp "$r/boot/initrd.img-${k#*/vmlinuz-}" "$d/initrd.img"
        rm -f "$d/disk.img"
        mkfs.ext4 -q -L root -d "$r" "$d/disk.img" 6G || die "mkfs.ext4 -d $r"
        rm -rf "$r"
        echo "${k#*/vmlinuz-}" > "$d/complete"
        echo "$s: disk $d/disk.img, kernel $(cat "$d/complete")"
}

say "VM images in $CACHE"
for s in "${suites[@]}"; do image "$s"; done

# ------------------------------------------------------------------ payload
mkdir -p "$CACHE/run"
cc -O2 -Wall -I"$src/bench/workloads" -o "$CACHE/run/thp-alloc" "$src/bench/workloads/thp-alloc.c" ||
        die "building the workload thp-alloc"

# run_vm SUITE: boot a fresh overlay with the payload, wait for it to power off.
run_vm() {
        local s=$1 d=$CACHE/$1 r=$CACHE/run/$1
        rm -rf "$r" && mkdir -p "$r/payload"
        cp "$DEB" "$src/tests/package-e2e-guest.sh" "$CACHE/run/thp-alloc" "$r/payload/"
        mv "$r/payload/package-e2e-guest.sh" "$r/payload/guest.sh"
        cp "$src/debian/tests/smoke" "$r/payload/smoke"
        cp "$src/tests/e2e-checks.sh" "$src/tests/traces/debian-vm.conf" "$r/payload/"
        mkfs.ext4 -q -L payload -d "$r/payload" "$r/payload.img" 256M || die "mkfs.ext4 payload"
        qemu-img create -q -f qcow2 -b "$d/disk.img" -F raw "$r/overlay.qcow2" || die "qemu-img create"
        say "$s: boot $(cat "$d/complete") (qemu-system-x86_64 -machine q35 -accel tcg -m 3072 -smp 2; console: $r/console.log)"
        local b0
        b0=$(date +%s)
        timeout "$VM_TIMEOUT" qemu-system-x86_64 -machine q35 -accel tcg -m 3072 -smp 2 -no-reboot \
                -kernel "$d/vmlinuz" -initrd "$d/initrd.img" \
                -append "root=/dev/vda rw console=ttyS0 panic=-1" \
                -drive file="$r/overlay.qcow2",format=qcow2,if=virtio \
                -drive file="$r/payload.img",format=raw,if=virtio \
                -netdev user,id=n0 -device virtio-net-pci,netdev=n0 \
                -display none -monitor none -serial file:"$r/console.log" &
        QEMU_PID=$!
        wait "$QEMU_PID"
        local qrc=$?
        QEMU_PID=
        echo "$s: the VM ran $(($(date +%s) - b0)) s, QEMU exit status $qrc"
        rm -rf "$d/out"
        debugfs -R "rdump /out $d" "$r/payload.img" > /dev/null 2>&1
        mkdir -p "$d/out"
        debugfs -R "dump /log.txt $d/out/log.txt" "$r/payload.img" > /dev/null 2>&1
        if [ -s "$d/out/log.txt" ]; then
                cat "$d/out/log.txt"
        else
                echo "FAIL: $s: the guest wrote no log; the console's end:"
                tail -40 "$r/console.log"
        fi
        cp "$r/console.log" "$d/console.log"
        if [ "$qrc" -eq 124 ]; then
                echo "FAIL: $s: the VM was stopped after $VM_TIMEOUT s"
                return 1
        fi
        local n f
        read -r n f < "$d/out/result" 2> /dev/null || { echo "FAIL: $s: no result from the guest"; return 1; }
        [ "$f" -eq 0 ] && [ "$n" -gt 0 ]
}

for s in "${suites[@]}"; do
        run_vm "$s" || failures=$((failures + 1))
        rm -rf "$CACHE/run/$s"
done

say "package-e2e: ${#suites[@]} VMs, $failures failed; $(($(date +%s) - t0)) s; the guests' captures are in $CACHE/SUITE/out/"
[ "$failures" -eq 0 ]
