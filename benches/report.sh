#!/usr/bin/env bash
# Report benchmark: commits the Django corpus (from ../shared/corpora.sh) into a fresh repository, then
# a change of 10 files on top (a body edited in each: the first function's first line gains a comment,
# and one function added to each), and times `drsg report --base HEAD~1`:
#   cold: a fresh checkout with no database (the report indexes the head into a temporary one);
#   warm: `--db` naming a database already at the head.
# Prints the median wall time and the peak RSS of each over RUNS runs, and the report's counts.
#
#   benches/report.sh [RUNS]     (default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
corpora=${CORPORA:-$PWD/target/corpora}
shared=${SHARED:-$PWD/../shared}
bash "$shared/corpora.sh" "$corpora" >/dev/null
cargo build -q --release --bin drsg
drsg=${CARGO_TARGET_DIR:-$PWD/target}/release/drsg
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
repo=$tmp/django
source benches/django_repo.sh
django_repo "$corpora" "$repo"
mapfile -t files < <(git -C "$repo" ls-files 'django/db/*.py' 'django/http/*.py' | head -10)
for f in "${files[@]}"; do
  # The first `def` line's body gains a statement, and a function is added at the end.
  python3 - "$repo/$f" <<'EOF'
import re, sys
path = sys.argv[1]
text = open(path).read()
m = re.search(r"^( *)def [^\n]*:\n", text, re.M)
if m:
    indent = m.group(1) + "    "
    text = text[: m.end()] + f"{indent}_drsg_bench = 1\n" + text[m.end():]
text += "\n\ndef drsg_bench_added():\n    return 1\n"
open(path, "w").write(text)
EOF
done
git -C "$repo" commit -q -am "touch ${#files[@]} files"

# One run: wall seconds and peak RSS in MB, from GNU time.
measure() {
  /usr/bin/time -f '%e %M' -o "$tmp/time" "$@" >"$tmp/out" 2>/dev/null
  read -r secs kb <"$tmp/time"
  echo "$secs $((kb / 1024))"
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR + 1) / 2)]}'; }

: >"$tmp/cold"
for _ in $(seq "$runs"); do
  (cd "$repo" && measure "$drsg" report --base HEAD~1 --format json -q) >>"$tmp/cold"
done
cp "$tmp/out" "$tmp/cold.json"
"$drsg" --db "$tmp/warm.drsg" index "$repo" -q >/dev/null
: >"$tmp/warm"
for _ in $(seq "$runs"); do
  (cd "$repo" && measure "$drsg" --db "$tmp/warm.drsg" report --base HEAD~1 --format json -q) >>"$tmp/warm"
done
git -C "$repo" status --porcelain | grep -q . && { echo "the report left files in the checkout" >&2; exit 1; }

echo "report of a ${#files[@]}-file change on Django, $runs runs"
printf 'cold (no database): median %s s, peak RSS median %s MB\n' "$(cut -d' ' -f1 "$tmp/cold" | median)" "$(cut -d' ' -f2 "$tmp/cold" | median)"
printf 'warm (--db at head): median %s s, peak RSS median %s MB\n' "$(cut -d' ' -f1 "$tmp/warm" | median)" "$(cut -d' ' -f2 "$tmp/warm" | median)"
python3 - "$tmp/cold.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
print("changed", r["counts"], "· tests to run", sum(len(t["tests"]) for t in r["tests_to_run"]), "in", len(r["tests_to_run"]),
      "files", "(complete)" if r["tests_complete"] else "(a lower bound)", "·", len(r["risks"]), "risks")
EOF
