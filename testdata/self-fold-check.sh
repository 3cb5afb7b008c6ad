#!/usr/bin/env bash
# Folds this project's own repository (a clone of it) through commits, a module rename, a branch
# switch, a rebase and a commit picked up by `drsg watch`, and compares the folded plane with a fresh
# index after every step (`drsg export` of nodes and edges, sorted). Exits non-zero on a difference.
#
#   testdata/self-fold-check.sh     (uses $DRSG or the debug build in $CARGO_TARGET_DIR, else target/)
set -euo pipefail
root=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
B=${DRSG:-${CARGO_TARGET_DIR:-$root/target}/debug/drsg}
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
git clone -q "$root" "$W/self" && cd "$W/self"
git config user.email check@drsg.invalid; git config user.name check
"$B" index . --db "$W/a.drsg" >/dev/null
dump() { ("$B" export --db "$1" --plane self --nodes; "$B" export --db "$1" --plane self) | sort; }
check() {
  rm -rf "$W/b.drsg"
  [ "${2:-}" = no-fold ] || "$B" fold --db "$W/a.drsg" --plane self >/dev/null
  "$B" index . --db "$W/b.drsg" >/dev/null
  if cmp -s <(dump "$W/a.drsg") <(dump "$W/b.drsg"); then
    echo "equal after $1 ($(dump "$W/a.drsg" | wc -l) lines)"
  else
    echo "DIFFERENT after $1:"; diff <(dump "$W/a.drsg") <(dump "$W/b.drsg") | head -20; exit 1
  fi
}
printf '\n/// Added by the self check.\npub fn self_check_added() -> u32 {\n    not_defined_anywhere()\n}\n' >> query/src/render.rs
git commit -qam "add a function"; check "a function added"
sed -i 's/^pub fn self_check_added() -> u32 {$/pub fn self_check_added() -> u32 {\n    let _ = 1;/' query/src/render.rs
git commit -qam "body edit"; check "a body edit"
git mv query/src/render.rs query/src/rendering.rs
sed -i 's/^mod render;$/mod rendering;\nuse rendering as render;/; s/^pub mod render;$/pub mod rendering;\npub use rendering as render;/' query/src/lib.rs
git commit -qam "rename a module"; check "a module renamed"
git checkout -q -b side HEAD~2
printf '\npub fn on_the_side() {}\n' >> planes/src/lib.rs
git commit -qam "side work"; check "a branch switch and a commit"
git checkout -q main; check "the switch back"
git checkout -q side; git rebase -q main; check "a rebase"
git checkout -q main
"$B" watch --db "$W/a.drsg" --dir . > "$W/watch.log" 2>&1 & pid=$!
for _ in $(seq 120); do grep -q "watching" "$W/watch.log" && break; sleep 0.5; done
printf '\npub fn watched() {}\n' >> src/lib.rs; git commit -qam "watched commit"
head=$(git rev-parse HEAD | cut -c1-12)
for _ in $(seq 120); do grep -q "folded self from .* to $head" "$W/watch.log" && break; sleep 0.5; done
kill "$pid"; wait "$pid" 2>/dev/null || true
grep "to $head" "$W/watch.log" || { echo "the watch loop did not fold $head"; cat "$W/watch.log"; exit 1; }
check "the watch loop's fold" no-fold
