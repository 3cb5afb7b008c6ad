#!/usr/bin/env bash
# all.sh DRSG [CORPORA]: the Python and TypeScript comparisons on the corpora issue 35's targets are read on
# (CORPORA as ../shared/corpora.sh lays them out, default target/corpora): Flask and Requests whole, Django on
# a sample of 3,000 call sites, zod and rxjs whole. With RUST=1, also axum and ripgrep (benches/accuracy/
# corpora.sh fetches them into the same directory). Each corpus prints its `all` and `library` lines.
set -euo pipefail
drsg=$1
corpora=${2:-$PWD/target/corpora}
here=$(cd "$(dirname "$0")" && pwd)
"$here/python.sh" "$drsg" "$corpora/python/flask" "$corpora/python/requests"
SAMPLE=${SAMPLE:-3000} "$here/python.sh" "$drsg" "$corpora/python/django"
"$here/typescript.sh" "$drsg" "$corpora/ts/zod" "$corpora/ts/rxjs"
if [ "${RUST:-}" = 1 ]; then
  "$here/rust.sh" "$drsg" "$corpora/rust/axum" "$corpora/rust/ripgrep"
fi
