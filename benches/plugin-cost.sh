#!/usr/bin/env bash
# plugin-cost.sh DRSG [CORPORA] [RUNS]: what the built-in declarative plugins add to `drsg index` of each
# corpus: the same binary with its plugins against `[plugins] builtin = false`, run in turn by farm-bench
# (/work/.library) and compared pair by pair. Prints each corpus's median wall and CPU ratios; the target is
# at most 1.05. Run it by hand on a quiet machine; CI never runs it.
set -u
bin=$1; corpora=${2:-$PWD/target/corpora}; runs=${3:-7}
w=$(mktemp -d); trap 'rm -rf "$w"' EXIT
printf '[plugins]\nbuiltin = false\n' > "$w/off.toml"
for d in "$corpora"/*/*; do
  n=$(basename "$d")
  out=$(farm-bench -n "$runs" --timeout 900 \
    --vs "sh -c 'rm -rf $w/b.drsg*; $bin --db $w/b.drsg --config $w/off.toml index $d >/dev/null'" \
    -- sh -c "rm -rf $w/a.drsg*; $bin --db $w/a.drsg index $d >/dev/null" 2>&1)
  wall=$(echo "$out" | awk '/^A\/B wall/ {print $4}')
  cpu=$(echo "$out" | awk '/^A\/B cpu/ {print $4}')
  echo "$n wall $wall cpu $cpu"
done
