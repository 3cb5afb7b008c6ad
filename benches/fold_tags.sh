# Sourced by the fold benchmarks: `fold_tags REPO GLOB ADDED COMMENT` makes, on top of tag `base`, tags
# `n1`, `n10`, `n100` (ADDED appended to that many of the files matching GLOB) and `e1` (the line COMMENT
# inserted on top of the first of them, an edit that keeps every definition), then checks out `base`.
fold_tags() {
  local repo=$1 glob=$2 added=$3 comment=$4 files n f
  mapfile -t files < <(git -C "$repo" ls-files "$glob" | awk 'NR <= 100')
  for n in 1 10 100; do
    git -C "$repo" checkout -q -B "touch$n" base
    for f in "${files[@]:0:$n}"; do
      printf '%s' "$added" >>"$repo/$f"
    done
    git -C "$repo" commit -q -am "touch $n files"
    git -C "$repo" tag "n$n"
  done
  git -C "$repo" checkout -q -B edit1 base
  sed -i "1i $comment" "$repo/${files[0]}"
  git -C "$repo" commit -q -am "edit 1 file"
  git -C "$repo" tag e1
  git -C "$repo" checkout -q base
}
