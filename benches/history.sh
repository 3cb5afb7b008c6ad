#!/usr/bin/env bash
# History benchmark: a repository with a long history, indexed with and without it, then one-file commits
# folded one at a time.
#   REPO unset: a history synthesised with `git fast-import` (COMMITS commits, default 20000, over a tree
#   of 200 Rust files, each commit appending a line to one file);
#   REPO=path: a clone of that repository (its commits are not touched).
# Prints the median wall time and peak RSS of `drsg index` with the whole history and with
# `--max-commits 1`; a first one-file fold after the index (which builds the fold's state from the tree
# and keeps it beside the plane), then for RUNS one-file commits the median of `drsg fold`'s phases:
# `history` (the `_git` plane), everything but `load` (what a watching process, which keeps its state,
# pays), and the whole fold in a fresh process, which reads the kept state, with its peak RSS; the size
# of the kept state; then `fold` (benches/src/bin/fold.rs) on tags made on top of HEAD (`e1`: a
# comment line in one file; `n1`, `n10`, `n100`: a function added to that many files), whose last line is
# the time from a commit to the watch loop having folded it, history included.
#
#   benches/history.sh [RUNS]     (default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
commits=${COMMITS:-20000}
cargo build -q --release --bin drsg
cargo build -q --release -p drsg-benches
drsg=${CARGO_TARGET_DIR:-$PWD/target}/release/drsg
bin=${CARGO_TARGET_DIR:-$PWD/target}/release
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
repo=$tmp/repo
if [ -n "${REPO:-}" ]; then
  git clone -q "$REPO" "$repo"
else
  git init -q "$repo"
  python3 - "$commits" <<'EOF' | git -C "$repo" fast-import --quiet
import sys
commits = int(sys.argv[1])
files = 200
out = sys.stdout
def data(text):
    b = text.encode()
    out.write(f"data {len(b)}\n")
    out.write(text)
    out.write("\n")
bodies = [f"pub fn f{i}(x: u32) -> u32 {{\n    x + {i}\n}}\n" for i in range(files)]
lib = "".join(f"pub mod m{i};\n" for i in range(files))
for n in range(commits):
    out.write("commit refs/heads/main\n")
    out.write(f"committer Bench <bench@example.com> {1_600_000_000 + n * 60} +0000\n")
    data(f"commit {n}\n")
    if n == 0:
        out.write("M 100644 inline Cargo.toml\n")
        data('[package]\nname = "hist"\nversion = "0.1.0"\n')
        out.write("M 100644 inline src/lib.rs\n")
        data(lib)
        for i in range(files):
            out.write(f"M 100644 inline src/m{i}.rs\n")
            data(bodies[i])
    else:
        i = n % files
        bodies[i] += f"// {n}\n"
        out.write(f"M 100644 inline src/m{i}.rs\n")
        data(bodies[i])
    out.write("\n")
EOF
  git -C "$repo" checkout -q main
fi
git -C "$repo" config user.email bench@example.com
git -C "$repo" config user.name bench
count=$(git -C "$repo" rev-list --count HEAD)

measure() {
  /usr/bin/time -f '%e %M' -o "$tmp/time" "$@" >"$tmp/out" 2>/dev/null
  read -r secs kb <"$tmp/time"
  echo "$secs $((kb / 1024))"
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR + 1) / 2)]}'; }

: >"$tmp/full"; : >"$tmp/one"
for _ in $(seq "$runs"); do
  rm -rf "$tmp/full.drsg" "$tmp/one.drsg"
  measure "$drsg" --db "$tmp/full.drsg" index "$repo" -q >>"$tmp/full"
  measure "$drsg" --db "$tmp/one.drsg" index "$repo" --max-commits 1 -q >>"$tmp/one"
done

file=$(git -C "$repo" ls-files '*.rs' | awk 'NR == 1')
: >"$tmp/folds"
# The first fold after the index builds the state from the tree and keeps it; the next ones, each in a
# process of its own, read it back.
for i in $(seq 0 "$runs"); do
  echo "// drsg bench $i" >>"$repo/$file"
  git -C "$repo" commit -q -am "one-file change $i"
  (cd "$repo" && /usr/bin/time -f '%e %M' -o "$tmp/time" "$drsg" --db "$tmp/full.drsg" fold --json -q) >"$tmp/fold.json"
  python3 - "$tmp/fold.json" "$tmp/time" <<'EOF' >>"$tmp/folds"
import json, sys
r = json.load(open(sys.argv[1]))
secs, kb = open(sys.argv[2]).read().split()
p = r["phases"]
print(round(p["history"] * 1000, 1), round(sum(v for k, v in p.items() if k != "load") * 1000, 1), r["millis"],
      round(p.get("load", 0) * 1000, 1), round(p.get("keep", 0) * 1000, 1), int(kb) // 1024, r["state_from"])
EOF
done

echo "history of $count commits, $runs runs"
printf 'index with history: median %s s, peak RSS median %s MB\n' "$(cut -d' ' -f1 "$tmp/full" | median)" "$(cut -d' ' -f2 "$tmp/full" | median)"
printf 'index --max-commits 1: median %s s, peak RSS median %s MB\n' "$(cut -d' ' -f1 "$tmp/one" | median)" "$(cut -d' ' -f2 "$tmp/one" | median)"
read -r _ _ first_ms first_load first_keep first_mb first_from <"$tmp/folds"
printf 'first fold after the index (state from the %s): %s ms (load %s ms, keeping the state %s ms), peak RSS %s MB\n' \
  "$first_from" "$first_ms" "$first_load" "$first_keep" "$first_mb"
awk 'NR > 1' "$tmp/folds" >"$tmp/later"
printf 'fold of a one-file commit: history %s ms, all but load %s ms (median); fresh process (state from %s) %s ms, load %s ms, peak RSS %s MB\n' \
  "$(cut -d' ' -f1 "$tmp/later" | median)" "$(cut -d' ' -f2 "$tmp/later" | median)" \
  "$(cut -d' ' -f7 "$tmp/later" | sort | uniq -c | awk '{printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $2}')" \
  "$(cut -d' ' -f3 "$tmp/later" | median)" "$(cut -d' ' -f4 "$tmp/later" | median)" "$(cut -d' ' -f6 "$tmp/later" | median)"
kept=$(python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("select coalesce(sum(length(record)), 0) from kept_files").fetchone()[0] // 1048576)' "$tmp/full.drsg/graph.sqlite")
printf 'state kept beside the plane: %s MB\n' "$kept"

# The fold bench's tags, on top of HEAD.
git -C "$repo" tag base
source benches/fold_tags.sh
fold_tags "$repo" '*.rs' $'\npub fn drsg_bench_added() {}\n' '// drsg bench edit'
"$bin/fold" "$repo" "$tmp/bench.drsg" "$runs"
