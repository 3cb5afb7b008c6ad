#!/usr/bin/env bash
# python.sh DRSG CORPUS...: drsg's Python call bindings against jedi's and pyright's, per corpus (a tree
# of Python files). The tools are installed at pinned versions into a virtual environment of their own
# (TOOLS, default ~/.cache/drsg-accuracy/py: jedi 0.20.1 and pyright 1.1.414 from PyPI, whose first run
# fetches pyright's npm package); none of the corpus's dependencies is installed there.
# python_ref.py asks each tool where every call site goes; compare_python.py keeps the sites both bind to
# the same definition in the tree and prints its lines and drsg's index summary per corpus
# (with MISSES=1, also each library site drsg misses; with MISSES=all, every site it misses).
# SAMPLE=N draws N call sites per corpus with a fixed seed (SEED, default 35) for trees too large to ask
# about every site; REFS=jedi or REFS=pyright uses one tool alone.
set -euo pipefail
drsg=$1; shift
here=$(cd "$(dirname "$0")" && pwd)
tools=${TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/drsg-accuracy/py}
if [ ! -x "$tools/bin/pyright-langserver" ] || ! "$tools/bin/python" -c 'import jedi; assert jedi.__version__ == "0.20.1"' 2>/dev/null; then
  python3 -m venv "$tools"
  "$tools/bin/pip" install -q jedi==0.20.1 pyright==1.1.414
fi
refs=${REFS:-jedi pyright}
sample=${SAMPLE:+--sample $SAMPLE --seed ${SEED:-35}}
w=$(mktemp -d); trap 'rm -rf "$w"' EXIT
for tree in "$@"; do
  name=$(basename "$tree")
  echo "== $name${SAMPLE:+ (a sample of $SAMPLE call sites, seed ${SEED:-35})}"
  files=(); pids=()
  for tool in ${refs//,/ }; do
    "$tools/bin/python" "$here/python_ref.py" "$tool" "$tree" $sample > "$w/$name.$tool.jsonl" 2>"$w/$tool.log" &
    pids+=($!); files+=("$w/$name.$tool.jsonl")
  done
  "$drsg" --db "$w/$name.drsg" index "$tree" --plane c 2>&1 | grep -E '^ *(call sites|unresolved by reason)' || true
  "$drsg" --db "$w/$name.drsg" export --plane c > "$w/$name.jsonl"
  failed=0; for p in "${pids[@]}"; do wait "$p" || failed=1; done
  [ $failed = 0 ] || { echo "a reference tool failed:"; tail -5 "$w"/*.log; continue; }
  python3 "$here/compare_python.py" "$w/$name.jsonl" "${files[@]}" ${MISSES:+$([ "$MISSES" = all ] && echo --all-misses || echo --misses)}
  rm -rf "$w/$name".*
done
