#!/usr/bin/env bash
# History benchmark: a repository with a long history, indexed with and without it, then one-file commits
# folded one at a time.
#   REPO unset: a history synthesised with `git fast-import` (COMMITS commits, default 20000, over a tree
#   of 200 Rust files, each commit appending a line to one file);
#   REPO=path: a clone of that repository (its commits are not touched).
# Prints the median wall time and peak RSS of `drsg index` with the whole history and with
# `--max-commits 1`, and for RUNS one-file commits the median of `drsg fold`'s phases: `history` (the
# `_git` plane), everything but `load` (what a watching process, which keeps its state, pays), and the
# whole fold in a fresh process; then `fold` (benches/src/bin/fold.rs) on tags made on top of HEAD (`e1`: a
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
for i in $(seq "$runs"); do
  echo "// drsg bench $i" >>"$repo/$file"
  git -C "$repo" commit -q -am "one-file change $i"
  (cd "$repo" && "$drsg" --db "$tmp/full.drsg" fold --json -q) | python3 -c '
import json, sys
r = json.load(sys.stdin)
p = r["phases"]
print(round(p["history"] * 1000, 1), round(sum(v for k, v in p.items() if k != "load") * 1000, 1), r["millis"])
' >>"$tmp/folds"
done

echo "history of $count commits, $runs runs"
printf 'index with history: median %s s, peak RSS median %s MB\n' "$(cut -d' ' -f1 "$tmp/full" | median)" "$(cut -d' ' -f2 "$tmp/full" | median)"
printf 'index --max-commits 1: median %s s, peak RSS median %s MB\n' "$(cut -d' ' -f1 "$tmp/one" | median)" "$(cut -d' ' -f2 "$tmp/one" | median)"
printf 'fold of a one-file commit: history %s ms, all but load %s ms (median), fresh process %s ms\n' \
  "$(cut -d' ' -f1 "$tmp/folds" | median)" "$(cut -d' ' -f2 "$tmp/folds" | median)" "$(cut -d' ' -f3 "$tmp/folds" | median)"

# The fold bench's tags, on top of HEAD.
git -C "$repo" tag base
source benches/fold_tags.sh
fold_tags "$repo" '*.rs' $'\npub fn drsg_bench_added() {}\n' '// drsg bench edit'
"$bin/fold" "$repo" "$tmp/bench.drsg" "$runs"
