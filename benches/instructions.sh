#!/usr/bin/env bash
# Deterministic work count: instructions executed by `drsg index` and by `rawparse` (the same walk, parse
# only) on one tree, under valgrind's callgrind. Wall time on this machine drifts by a third between
# sittings; instruction counts do not, so they compare two builds where a timed run cannot. The ratio
# raw/index is the instruction analogue of benches/index.sh's throughput ratio (it ignores how well the
# run uses both cores, which index.sh measures).
#
#   benches/instructions.sh [DIR]    (default: target/corpora/python/django/django, about 2 min each)
#
# Needs valgrind and a release build (made here). Run it by hand; CI never runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-$PWD/target/corpora/python/django/django}
command -v valgrind >/dev/null || { echo "valgrind is not installed (apt-get install valgrind)" >&2; exit 1; }
[ -d "$dir" ] || bash "${SHARED:-$PWD/../shared}/corpora.sh" "$PWD/target/corpora" >/dev/null
cargo build -q --release -p drsg -p drsg-benches
bin=${CARGO_TARGET_DIR:-$PWD/target}/release
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# count NAME CMD…: prints the instructions callgrind collected for one run of CMD.
count() {
  local name=$1; shift
  valgrind --tool=callgrind --cache-sim=no --branch-sim=no --callgrind-out-file="$tmp/$name.out" \
    "$@" > /dev/null 2> "$tmp/$name.log"
  sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$tmp/$name.log"
}

index=$(count index "$bin/drsg" --db "$tmp/db.drsg" index "$dir")
raw=$(count raw "$bin/rawparse" "$dir")
awk -v i="$index" -v r="$raw" -v d="$dir" 'BEGIN {
  printf "%s\n  drsg index  %6.2f G instructions\n  rawparse    %6.2f G instructions\n  ratio raw/index %.1f %%\n", d, i/1e9, r/1e9, 100*r/i }'
