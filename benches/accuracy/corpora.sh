#!/usr/bin/env bash
# corpora.sh [DEST]: the Rust corpora of the accuracy comparison that ../shared/corpora.sh does not hold,
# fetched from crates.io at pinned versions: a web framework (axum, whose router reaches its path
# validator through in-crate macros) and a CLI whose binary is a `[[bin]] path` (ripgrep,
# crates/core/main.rs). Each lands in DEST/rust/<crate> with its dependencies fetched (`cargo fetch`), so
# that rust-analyzer can load the workspace. Default DEST: target/corpora. Re-running skips what is there.
set -euo pipefail
dest=${1:-$PWD/target/corpora}
mkdir -p "$dest/rust"
for c in axum@0.8.7 ripgrep@14.1.1; do
  name=${c%@*}; version=${c#*@}
  [ -d "$dest/rust/$name" ] && continue
  work=$(mktemp -d)
  curl -sSfL -o "$work/c.crate" "https://static.crates.io/crates/$name/$name-$version.crate"
  mkdir -p "$work/x" && tar -xzf "$work/c.crate" -C "$work/x"
  mv "$work/x/$name-$version" "$dest/rust/$name"
  rm -rf "$work"
done
for name in axum ripgrep; do
  (cd "$dest/rust/$name" && cargo fetch -q)
done
