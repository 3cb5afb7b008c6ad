#!/usr/bin/env bash
# The `_ops` plane's cost and `deployed`'s latency on a service repository (release build).
#
#   benches/deployed.sh [REPO]
#
# REPO defaults to a clone of GoogleCloudPlatform/microservices-demo (Kubernetes manifests, kustomize,
# a Helm chart, compose-free Dockerfiles, 47 release tags). Prints, over 7 runs of `drsg index`, the
# median of the whole run and of its `ops` phase (reading the manifests and writing `_ops`), and the
# `ops` share of the run without the history phase; then `deployed`'s latency in process.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
repo="${1:-/var/tmp/ws/msd}"
target="${CARGO_TARGET_DIR:-$here/target}"
cargo build -q --release --manifest-path "$here/Cargo.toml" -p drsg -p drsg-benches --bin drsg --bin deployed
drsg="$target/release/drsg"
db="$(mktemp -d)/bench.drsg"
trap 'rm -rf "$(dirname "$db")"' EXIT
for _ in 1 2 3 4 5 6 7; do
  rm -rf "$db"
  "$drsg" index "$repo" --db "$db" --json 2>/dev/null
done | python3 -c '
import json, statistics, sys
runs = [json.loads(line) for line in sys.stdin.read().replace("}\n{", "}\x00{").split("\x00")]
ops = statistics.median(r["phases"].get("ops", 0) for r in runs)
whole = statistics.median(r["seconds"] for r in runs)
history = statistics.median(r["phases"].get("history", 0) for r in runs)
o = runs[-1]["ops"] or {}
print("manifests %s, workloads %s, images %s, Dockerfiles %s" % (o.get("files"), o.get("workloads"), o.get("images"), o.get("dockerfiles")))
print(f"index median {whole*1000:.1f} ms; ops phase median {ops*1000:.2f} ms = {100*ops/whole:.1f} % of the run, {100*ops/(whole-history):.1f} % without the history phase ({history*1000:.1f} ms)")
'
"$target/release/deployed" "$db"
