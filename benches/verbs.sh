#!/usr/bin/env bash
# Verb latency benchmark: indexes Django (from ../shared/corpora.sh) with a release build, then runs
# the `verbs` bench on it: p50/p99 of context, impact, trace, search over a fixed-seed sample, and
# grep against rg on the same tree.
#
#   benches/verbs.sh [SAMPLES]     (default 300)
#
# Needs `rg` (apt install ripgrep). Run by hand on a quiet machine; CI never runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
samples=${1:-300}
corpora=${CORPORA:-$PWD/target/corpora}
shared=${SHARED:-$PWD/../shared}
bash "$shared/corpora.sh" "$corpora" >/dev/null
cargo build -q --release -p drsg -p drsg-benches
bin=${CARGO_TARGET_DIR:-$PWD/target}/release
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$bin/drsg" --db "$tmp/django.drsg" index "$corpora/python/django" >/dev/null
"$bin/verbs" "$tmp/django.drsg" --samples "$samples"
