#!/usr/bin/env bash
# Whole-program indexing benchmark: `drsg index` against the raw-parse limit on real corpora.
#
#   benches/index.sh [RUNS]      (default 3 runs each; medians are printed)
#
# Fetches the corpora with ../shared/corpora.sh into target/corpora, builds release binaries,
# then for tokio, Django and zod prints files/s, MB/s and peak RSS of `drsg index` (cold database
# each run) and of `rawparse` (same walk, parse only, same thread count), and the ratio of the two:
# of their medians, and the median of each run's ratio to the raw parse run right after it.
# Run it by hand on a quiet machine; CI never runs it (it needs a release build).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
corpora=${CORPORA:-$PWD/target/corpora}
shared=${SHARED:-$PWD/../shared}
bash "$shared/corpora.sh" "$corpora" >/dev/null
cargo build -q --release -p drsg -p drsg-benches
bin=${CARGO_TARGET_DIR:-$PWD/target}/release
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# measure CMD…: prints "seconds peak_rss_kib" for one run.
measure() {
  python3 - "$@" <<'PY'
import resource, subprocess, sys, time
t = time.perf_counter()
subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)
print(f"{time.perf_counter() - t:.3f} {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}")
PY
}

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

printf '%-8s %7s %9s | %9s %7s %8s | %9s %7s %8s | %6s %6s\n' corpus files MB "index f/s" "MB/s" "RSS MB" "raw f/s" "MB/s" "RSS MB" ratio paired
for corpus in rust/tokio python/django ts/zod; do
  dir=$corpora/$corpus
  read -r files bytes _ < <("$bin/rawparse" "$dir")
  : > "$tmp/idx"; : > "$tmp/raw"
  for _ in $(seq "$runs"); do
    rm -rf "$tmp/db.drsg"
    measure "$bin/drsg" --db "$tmp/db.drsg" index "$dir" >> "$tmp/idx"
    measure "$bin/rawparse" "$dir" >> "$tmp/raw"
  done
  idx_s=$(cut -d' ' -f1 "$tmp/idx" | median); idx_rss=$(cut -d' ' -f2 "$tmp/idx" | median)
  raw_s=$(cut -d' ' -f1 "$tmp/raw" | median); raw_rss=$(cut -d' ' -f2 "$tmp/raw" | median)
  # Each index run's ratio to the raw parse that ran right after it, which cancels slow drift of the machine.
  paired=$(paste -d' ' "$tmp/idx" "$tmp/raw" | awk '{print $3 / $1}' | median)
  awk -v c="${corpus#*/}" -v f="$files" -v b="$bytes" -v is="$idx_s" -v ir="$idx_rss" -v rs="$raw_s" -v rr="$raw_rss" -v p="$paired" 'BEGIN {
    printf "%-8s %7d %9.1f | %9.0f %7.2f %8.0f | %9.0f %7.2f %8.0f | %5.1f%% %5.1f%%\n",
      c, f, b/1e6, f/is, b/1e6/is, ir/1024, f/rs, b/1e6/rs, rr/1024, 100*rs/is, 100*p }'
done
echo "medians of $runs runs; ratio = median raw-parse time / median index time (target ≥ 50 %);"
echo "paired = median of each index run's ratio to the raw parse right after it; RSS target on django < 300 MB"
