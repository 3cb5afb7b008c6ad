# Sourced by the benchmarks that need Django as a git repository: `django_repo CORPORA DEST` copies
# the corpus (from ../shared/corpora.sh) to DEST and commits it on branch `main`, tagged `base`, with a
# fixed identity (exported for the benchmark's own commits).
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@drsg.invalid GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@drsg.invalid
django_repo() {
  cp -r "$1/python/django" "$2"
  git -C "$2" init -q -b main
  git -C "$2" add -A
  git -C "$2" commit -q -m base
  git -C "$2" tag base
}
