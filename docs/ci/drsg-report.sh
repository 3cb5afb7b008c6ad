#!/usr/bin/env sh
# drsg-report.sh BASE [OUT]: the impact report of the checkout's HEAD against BASE (a pull request's
# base branch as the remote names it, `origin/main`), written as Markdown to OUT (default
# drsg-report.md). Fetches the base's history first when the clone is shallow. Exits as `drsg report`
# does: 0; 2 when no report could be computed (then no file is left, so no empty comment is posted);
# 3 when the report holds a risk of a kind $DRSG_FAIL_ON names (comma-separated).
set -eu
base=${1:?usage: drsg-report.sh BASE [OUT]}
out=${2:-drsg-report.md}

# A shallow clone (actions/checkout's default) lacks the merge base: deepen it first.
if [ "$(git rev-parse --is-shallow-repository)" = true ]; then
  remote=${base%%/*}
  git fetch --no-tags --deepen=200 "$remote" "${base#*/}" || git fetch --no-tags --unshallow "$remote"
fi

rm -f "$out"
set -- --base "$base" --out "$out" -q
if [ -n "${DRSG_FAIL_ON:-}" ]; then
  set -- "$@" --fail-on "$DRSG_FAIL_ON"
fi
status=0
drsg report "$@" || status=$?
if [ "$status" -ne 0 ] && [ "$status" -ne 3 ]; then
  echo "drsg-report.sh: no report (drsg exited $status)" >&2
  rm -f "$out"
fi
exit "$status"
