# Sourced by the end-to-end scripts (systemd-e2e.sh, package-e2e-guest.sh):
# PASS/FAIL lines counted in $checks and $failures, and the daemon's
# message IDs.
checks=0 failures=0
# the daemon's journal MESSAGE_IDs (systemd/memoptimizer.catalog)
MSGID_RAISE=c89dbaa9299b408183ed13a3847aadbc
MSGID_RELOAD=97615faba55b4e1cbdc8aa41d5ad405d
MSGID_RESTORE=9b333cc74221435da8711887535c19dd
MSGID_START=6df4ba32e1784311bff3ad22c73222b7
MSGID_ADOPT=568d340cae72420e8137e591ce8c0346
MSGID_EPISODE=69fc4fc1872f470a91b187c308ff607a
say() { printf '\n=== %s\n' "$*"; }
pass() { checks=$((checks + 1)); echo "PASS: $*"; }
fail() { checks=$((checks + 1)); failures=$((failures + 1)); echo "FAIL: $*"; }
# check NAME COMMAND...: PASS/FAIL on the command's exit status
check() {
        local name=$1
        shift
        if "$@"; then pass "$name"; else fail "$name"; fi
}
