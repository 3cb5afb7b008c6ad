#!/usr/bin/env bash
# typescript.sh DRSG CORPUS...: drsg's TypeScript call bindings against the TypeScript checker's, per
# corpus (a tree of TypeScript files; its tsconfig.json is read when it has one, and nothing needs to be
# installed in it). The checker is npm's `typescript` 5.9.3, installed into a directory of its own (TOOLS,
# default ~/.cache/drsg-accuracy/ts). ts_ref.mjs asks it where every call site goes; compare_ts.py prints
# its lines and drsg's index summary per corpus (with MISSES=1, also each library site drsg misses; with
# MISSES=all, every site it misses). SAMPLE=N draws N call sites per corpus with a fixed seed (SEED,
# default 35).
set -euo pipefail
drsg=$1; shift
here=$(cd "$(dirname "$0")" && pwd)
tools=${TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/drsg-accuracy/ts}
if [ "$(node -p 'require(process.argv[1] + "/node_modules/typescript/package.json").version' "$tools" 2>/dev/null)" != 5.9.3 ]; then
  mkdir -p "$tools"
  (cd "$tools" && { [ -f package.json ] || echo '{"private": true}' > package.json; } \
    && npm install --no-audit --no-fund --silent typescript@5.9.3)
fi
sample=${SAMPLE:+--sample $SAMPLE --seed ${SEED:-35}}
w=$(mktemp -d); trap 'rm -rf "$w"' EXIT
for tree in "$@"; do
  name=$(basename "$tree")
  echo "== $name${SAMPLE:+ (a sample of $SAMPLE call sites, seed ${SEED:-35})}"
  node --max-old-space-size=4096 "$here/ts_ref.mjs" "$tools" "$tree" $sample > "$w/$name.tsc.jsonl" 2>"$w/tsc.log" &
  pid=$!
  "$drsg" --db "$w/$name.drsg" index "$tree" --plane c 2>&1 | grep -E '^ *(call sites|unresolved by reason)' || true
  "$drsg" --db "$w/$name.drsg" export --plane c > "$w/$name.jsonl"
  wait "$pid" || { echo "ts_ref.mjs failed:"; tail -5 "$w/tsc.log"; continue; }
  python3 "$here/compare_ts.py" "$w/$name.jsonl" "$w/$name.tsc.jsonl" ${MISSES:+$([ "$MISSES" = all ] && echo --all-misses || echo --misses)}
  rm -rf "$w/$name".*
done
