#!/usr/bin/env bash
# Where `drsg index` spends its CPU time beside the raw parse: samples of both runs on one tree under
# `perf record -e cpu-clock` (a software event: it works in virtual machines without hardware counters),
# split by the function each sample fell in. The tree-sitter rows of the two columns should agree (the index
# parses each file once, as the raw parse does); every other row is work the index adds. Unlike
# benches/index.sh it needs no quiet machine to tell where the time goes, and unlike benches/instructions.sh
# it counts time, so cache misses, page faults and the kernel's share show.
#
#   benches/cpu.sh [DIR] [RUNS]    (default: target/corpora/python/django, 3 runs of each, interleaved;
#                                   the samples are averaged over the runs)
#
# Needs perf (apt-get install linux-perf) with kernel.perf_event_paranoid at most 2, and a release build
# (made here). Run it by hand; CI never runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-$PWD/target/corpora/python/django}
command -v perf >/dev/null || { echo "perf is not installed (apt-get install linux-perf)" >&2; exit 1; }
[ -d "$dir" ] || bash "${SHARED:-$PWD/../shared}/corpora.sh" "$PWD/target/corpora" >/dev/null
cargo build -q --release -p drsg -p drsg-benches
bin=${CARGO_TARGET_DIR:-$PWD/target}/release
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

runs=${2:-3}
for i in $(seq "$runs"); do
  rm -rf "$tmp/db.drsg"
  perf record -q -e cpu-clock -F 2000 -o "$tmp/index.data" "$bin/drsg" --db "$tmp/db.drsg" index "$dir" >/dev/null 2>&1
  perf record -q -e cpu-clock -F 2000 -o "$tmp/raw.data" "$bin/rawparse" "$dir" >/dev/null 2>&1
  for run in index raw; do
    perf report -i "$tmp/$run.data" --no-children --sort dso,sym --stdio -n 2>/dev/null > "$tmp/$run.$i.txt"
  done
done

python3 - "$tmp" "$runs" "$dir" <<'PY'
import collections, re, sys

# The first rule a sample's function matches names its row.
SQLITE = re.compile(r"(sqlite3|vdbe|btree|pcache|pager|wal[A-Z]|balance|insertCell|fillInCell|dropCell|"
                    r"moveTo|accessPayload|allocateSpace|defragment|rebuildPage|cellSize|getPage|getAndInit|getCellInfo|"
                    r"releasePage|zeroPage|clearCell|assemblePage|pageInsertArray|editPage|subjournal|unix[A-Z]|"
                    r"nocaseCollatingFunc|binCollFunc)")
RULES = [
    ("kernel", lambda dso, sym: dso.startswith("[kernel")),
    ("tree-sitter: reading nodes", lambda dso, sym: sym.startswith(("ts_node", "ts_tree_cursor", "drsg_ts_node"))),
    ("tree-sitter: queries", lambda dso, sym: sym.startswith("ts_query")),
    ("tree-sitter: parsing", lambda dso, sym: sym.startswith(("ts_", "stack_", "stack__", "tree_sitter_", "set_contains", "_array__", "pop_"))),
    ("SQLite", lambda dso, sym: SQLITE.match(sym) is not None),
    ("Tantivy", lambda dso, sym: re.search(r"tantivy|drsg_planes::tokenizer|frostem", sym) is not None),
    ("allocator", lambda dso, sym: re.search(r"_rjem_|^(tcache_|emap_|do_rallocx)|\b(malloc|free|calloc|realloc|sdallocx|rallocx)\b", sym) is not None),
    ("memory copies", lambda dso, sym: re.match(r"__mem(move|cpy|set|cmp)", sym) is not None),
    ("plugins (extraction)", lambda dso, sym: "drsg_plugins" in sym or "drsg_parsers" in sym),
    ("indexer (walk, table, resolution, graph)", lambda dso, sym: "drsg_indexer" in sym),
    ("store", lambda dso, sym: "drsg_planes" in sym),
]

def split(run):
    rows = collections.Counter()
    for line in (line for i in range(1, runs + 1) for line in open(f"{tmp}/{run}.{i}.txt")):
        m = re.match(r"\s+[\d.]+%\s+(\d+)\s+(\S+)\s+\[.\]\s+(.*)", line)
        if not m:
            continue
        n, dso, sym = int(m.group(1)), m.group(2), m.group(3).strip()
        name = next((name for name, rule in RULES if rule(dso, sym)), "other (std, hashing, channels…)")
        rows[name] += n
    return collections.Counter({name: round(n / runs) for name, n in rows.items()})

tmp, runs = sys.argv[1], int(sys.argv[2])
index, raw = split("index"), split("raw")
total_index, total_raw = sum(index.values()), sum(raw.values())
print(f"{sys.argv[3]}: CPU samples at 2 kHz (one is 0.5 ms), mean of {runs} runs")
print(f"{'':42s} {'index':>7s} {'raw':>7s}")
for name in [name for name, _ in RULES] + ["other (std, hashing, channels…)"]:
    if index[name] or raw[name]:
        print(f"{name:42s} {index[name]:7d} {raw[name]:7d}  {100 * index[name] / total_index:5.1f} %")
print(f"{'total':42s} {total_index:7d} {total_raw:7d}  raw / index {100 * total_raw / total_index:.1f} %")
PY
