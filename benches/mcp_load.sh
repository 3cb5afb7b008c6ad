#!/usr/bin/env bash
# MCP load benchmark: indexes the Django corpus (from ../shared/corpora.sh), serves it with
# `drsg serve` (a token, a free loopback port) and runs benches/mcp_load.py: SESSIONS concurrent
# Streamable HTTP sessions of the official Python SDK sharing CALLS mixed tool calls.
#
#   benches/mcp_load.sh [SESSIONS] [CALLS]     (default 50 2000)
set -euo pipefail
cd "$(dirname "$0")/.."
sessions=${1:-50}
calls=${2:-2000}
corpora=${CORPORA:-$PWD/target/corpora}
shared=${SHARED:-$PWD/../shared}
bash "$shared/corpora.sh" "$corpora" >/dev/null
testdata/mcp-client.sh >/dev/null
cargo build -q --release -p drsg
bin=${CARGO_TARGET_DIR:-$PWD/target}/release
tmp=$(mktemp -d)
server=
cleanup() { [ -n "$server" ] && kill "$server" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
"$bin/drsg" --db "$tmp/db.drsg" index "$corpora/python/django" --plane django >/dev/null
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
token=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
DRSG_TOKEN=$token "$bin/drsg" --db "$tmp/db.drsg" serve --addr "127.0.0.1:$port" 2>"$tmp/serve.log" &
server=$!
for _ in $(seq 100); do
  curl -sf "http://127.0.0.1:$port/health" >/dev/null 2>&1 && break
  sleep 0.1
done
.venv-mcp/bin/python benches/mcp_load.py "http://127.0.0.1:$port/mcp" "$token" "$sessions" "$calls"
ticks=$(getconf CLK_TCK)
cpu=$(awk -v t="$ticks" '{printf "%.1f", ($14 + $15) / t}' "/proc/$server/stat")
echo "server: CPU ${cpu} s (user + system), peak RSS $(grep VmHWM "/proc/$server/status" | awk '{printf "%.0f MB", $2 / 1024}')"
grep -o 'tool="[a-z]*" ms=[0-9]*' "$tmp/serve.log" | awk '{split($2, m, "="); print m[2]}' | sort -n |
  awk '{v[NR] = $1} END {if (NR) printf "server-side per call (queue + run): p50 %d ms, p99 %d ms over %d calls\n", v[int(NR * 0.5)], v[int(NR * 0.99)], NR}'
