#!/usr/bin/env bash
# rust.sh DRSG CORPUS...: drsg's Rust call bindings against rust-analyzer's, per corpus (a Cargo package
# or workspace whose dependencies are fetched: benches/accuracy/corpora.sh). Needs `rust-analyzer` on PATH
# built from crates.io (`cargo install ra_ap_rust-analyzer --version 0.0.320 --locked`); its `scip`
# command writes the reference index. Prints compare_rust.py's lines and drsg's index summary per corpus
# (with MISSES=1, also each library site drsg misses; with MISSES=all, every site it misses).
set -euo pipefail
drsg=$1; shift
here=$(cd "$(dirname "$0")" && pwd)
w=$(mktemp -d); trap 'rm -rf "$w"' EXIT
for tree in "$@"; do
  name=$(basename "$tree")
  echo "== $name"
  (cd "$tree" && rust-analyzer scip . --output "$w/$name.scip" >/dev/null 2>"$w/ra.log") \
    || { echo "rust-analyzer failed:"; tail -5 "$w/ra.log"; continue; }
  "$drsg" --db "$w/$name.drsg" index "$tree" --plane c 2>&1 | tail -n 3
  "$drsg" --db "$w/$name.drsg" export --plane c > "$w/$name.jsonl"
  python3 "$here/compare_rust.py" "$w/$name.scip" "$w/$name.jsonl" "$tree" ${MISSES:+$([ "$MISSES" = all ] && echo --all-misses || echo --misses)}
  rm -rf "$w/$name.drsg" "$w/$name.jsonl" "$w/$name.scip"
done
