#!/bin/bash
# The man pages render without warnings, and the options and keys in
# memoptimizer(8), memoptimizer.conf(5), --help and conf/memoptimizer.conf
# are the same sets.
set -euo pipefail
bin=$1 src=$2
fail=0
for page in "$src/man/memoptimizer.8" "$src/man/memoptimizer.conf.5"; do
        out=$(mandoc -Tlint -W warning "$page" 2>&1 || true)
        [ -z "$out" ] || { echo "FAIL: mandoc -Tlint $page:"; echo "$out"; fail=1; }
done

same() {        # name, list A, list B
        if [ "$2" != "$3" ]; then
                echo "FAIL: $1 differ:"; diff <(echo "$2") <(echo "$3") || true; fail=1
        fi
}
help=$("$bin" --help)
help_keys=$(echo "$help" | sed -n 's/^Configuration keys (memoptimizer.conf(5)): //p' | tr ' ' '\n' | sort)
conf_keys=$(sed -n 's/^#\{0,1\}\([a-z_0-9]*\) =\( .*\)\{0,1\}$/\1/p' "$src/conf/memoptimizer.conf" | sort)
man_keys=$(awk 'prev == ".TP" && /^\.B [a-z_0-9]+$/ {print $2} {prev = $0}' "$src/man/memoptimizer.conf.5" | sort)
[ -n "$help_keys" ] || { echo "FAIL: no keys in --help"; fail=1; }
same "keys in --help and conf/memoptimizer.conf" "$help_keys" "$conf_keys"
same "keys in --help and memoptimizer.conf(5)" "$help_keys" "$man_keys"

help_opts=$(echo "$help" | grep -o -- '--[a-z][a-z-]*' | sort -u)
man_opts=$(sed -n '/^\.SH OPTIONS/,/^\.SH /p' "$src/man/memoptimizer.8" | sed 's/\\-/-/g; s/\\f[BIR]//g' |
           grep -o -- '--[a-z][a-z-]*' | sort -u)
same "long options in --help and memoptimizer(8)" "$help_opts" "$man_opts"

# the shipped config is valid as it stands, and its defaults are the built-in ones
"$bin" --check-config --config "$src/conf/memoptimizer.conf" >/dev/null ||
        { echo "FAIL: conf/memoptimizer.conf does not validate"; fail=1; }
tmp=$(mktemp)
sed -n 's/^#\([a-z_0-9]* =.*\)/\1/p' "$src/conf/memoptimizer.conf" > "$tmp"
"$bin" --check-config --config "$tmp" >/dev/null ||
        { echo "FAIL: the defaults written in conf/memoptimizer.conf do not validate"; fail=1; }
rm -f "$tmp"
[ "$fail" -eq 0 ] && echo "PASS: $(echo "$help_keys" | wc -l) keys, $(echo "$help_opts" | wc -l) options agree"
exit "$fail"
