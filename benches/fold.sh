#!/usr/bin/env bash
# Fold benchmark: commits the Django corpus (from ../shared/corpora.sh) into a fresh repository as tag
# `base`, adds tags `n1`, `n10`, `n100` (commits on top of base adding a function to that many files)
# and `e1` (a comment line on top of one file: an edit that keeps every definition), then runs
# the `fold` bench: median fold time for each, a branch switch, and commit-to-folded via the watch loop.
#
#   benches/fold.sh [RUNS]     (default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
corpora=${CORPORA:-$PWD/target/corpora}
shared=${SHARED:-$PWD/../shared}
bash "$shared/corpora.sh" "$corpora" >/dev/null
cargo build -q --release -p drsg-benches
bin=${CARGO_TARGET_DIR:-$PWD/target}/release
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
repo=$tmp/django
source benches/django_repo.sh
django_repo "$corpora" "$repo"
mapfile -t files < <(git -C "$repo" ls-files 'django/*.py' | head -100)
for n in 1 10 100; do
  git -C "$repo" checkout -q -B "touch$n" base
  for f in "${files[@]:0:$n}"; do
    printf '\n\ndef drsg_bench_added():\n    return 1\n' >> "$repo/$f"
  done
  git -C "$repo" commit -q -am "touch $n files"
  git -C "$repo" tag "n$n"
done
# An edit that keeps every definition: a comment line on top of one file (its lines shift).
git -C "$repo" checkout -q -B edit1 base
sed -i '1i # drsg bench edit' "$repo/${files[0]}"
git -C "$repo" commit -q -am "edit 1 file"
git -C "$repo" tag e1
git -C "$repo" checkout -q main
"$bin/fold" "$repo" "$tmp/db.drsg" "$runs"
