#!/usr/bin/env bash
# plugin-cost.sh DRSG [CORPORA] [RUNS]: what the built-in declarative plugins add to `drsg index` of each
# corpus: the same binary with its plugins against `[plugins] builtin = false`.
#
# Time (the default): the two configurations run in turn RUNS times each (benches/pairs.py); prints each
# corpus's median wall and CPU ratios, pair by pair. The target is at most 1.05.
# Instructions (PLUGIN_COST=instructions): one run of each under valgrind's callgrind; prints both counts
# and their ratio, which do not drift as time does on a shared host.
#
# Run it by hand on a quiet machine; CI never runs it.
set -u
bin=$1; corpora=${2:-$PWD/target/corpora}; runs=${3:-21}
here=$(cd "$(dirname "$0")" && pwd)
w=$(mktemp -d); trap 'rm -rf "$w"' EXIT
printf '[plugins]\nbuiltin = false\n' > "$w/off.toml"
count() {
  rm -rf "$w"/c.drsg*
  valgrind --tool=callgrind --cache-sim=no --branch-sim=no --callgrind-out-file="$w/c.out" \
    "$bin" --db "$w/c.drsg" "$@" > /dev/null 2> "$w/c.log"
  sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$w/c.log"
}
for d in "$corpora"/*/*; do
  n=$(basename "$d")
  if [ "${PLUGIN_COST:-time}" = instructions ]; then
    on=$(count index "$d"); off=$(count --config "$w/off.toml" index "$d")
    awk -v n="$n" -v a="$on" -v b="$off" 'BEGIN { printf "%s on %.0f off %.0f ratio %.4f\n", n, a, b, a / b }'
    continue
  fi
  out=$(python3 "$here/pairs.py" -n "$runs" \
    "rm -rf $w/a.drsg*; $bin --db $w/a.drsg index $d" \
    "rm -rf $w/b.drsg*; $bin --db $w/b.drsg --config $w/off.toml index $d")
  wall=$(echo "$out" | awk '/^A\/B wall/ {print $3}')
  cpu=$(echo "$out" | awk '/^A\/B cpu/ {print $3}')
  echo "$n wall $wall cpu $cpu"
done
