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
source benches/fold_tags.sh
fold_tags "$repo" 'django/*.py' $'\n\ndef drsg_bench_added():\n    return 1\n' '# drsg bench edit'
"$bin/fold" "$repo" "$tmp/db.drsg" "$runs"
