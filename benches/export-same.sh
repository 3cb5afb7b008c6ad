#!/usr/bin/env bash
# export-same.sh DRSG_A DRSG_B [CORPORA]: index every corpus (default target/corpora, as
# ../shared/corpora.sh fetches them) with two drsg builds and compare their exports (nodes and
# edges, sorted): for restructurings that must change no output. Prints one line per corpus.
set -u
a=$1; b=$2; corpora=${3:-$PWD/target/corpora}
w=$(mktemp -d); trap 'rm -rf "$w"' EXIT
status=0
for d in "$corpora"/*/*; do
  n=$(basename "$d")
  for side in a b; do
    bin=${!side}
    "$bin" --db "$w/$side.drsg" index "$d" --plane c >/dev/null 2>&1 || echo "$n: $side failed to index"
    ( "$bin" --db "$w/$side.drsg" export --plane c --nodes; "$bin" --db "$w/$side.drsg" export --plane c ) | sort | sha256sum | cut -c1-16 > "$w/$side.hash"
    rm -rf "$w/$side.drsg"
  done
  if cmp -s "$w/a.hash" "$w/b.hash"; then echo "$n equal $(cat "$w/a.hash")"; else echo "$n DIFFERENT"; status=1; fi
done
exit $status
