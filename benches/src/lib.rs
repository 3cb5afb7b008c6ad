//! drsg-benches: whole-program benchmark scripts (`benches/*.sh`) and the raw-parse baseline
//! (`rawparse`), the physical limit indexing is compared against.
//!
//! Binaries: `rawparse` (the raw tree-sitter baseline over the same walk), `verbs` (verb latency
//! percentiles on the Django plane over a fixed-seed sample, and `grep` against `rg`), `extract`
//! (parse against parse plus extraction per language, and a facts dump to prove an optimisation
//! changes nothing), `deployed` (`deployed` timed in process, by each workload name, with no name,
//! by each release tag; `deployed.sh` runs it on a service repository after timing the `ops` phase
//! of `drsg index` against the whole run) and `fold` (medians per change, a branch switch, a fold
//! in a fresh process, and commit-to-folded through the watch loop).
//!
//! Scripts: `index.sh` (corpora from `../shared/corpora.sh`, `drsg index` against `rawparse`,
//! medians, peak RSS, the ratio of the medians and of runs paired) and `instructions.sh` (the same
//! comparison in instructions under callgrind, which do not drift with the machine as time does);
//! `cpu.sh` splits the two programs' CPU time by where `perf` samples fall (the parse, node reads,
//! SQLite, Tantivy, the allocator, the kernel). `verbs.sh` and `fold.sh` run those binaries on the
//! Django corpus (`fold.sh` commits it into a fresh repository first, through `django_repo.sh`);
//! `mcp_load.sh` with `mcp_load.py` runs concurrent MCP sessions of the official Python SDK against
//! `drsg serve`. `history.sh` synthesises a 20,000-commit history with `git fast-import` (or clones
//! `REPO`), times `drsg index` with and without history and one-file folds, and runs the fold bench
//! there; `fold_tags.sh` builds the fold bench's tags for both. `report.sh` times `drsg report` of
//! a 10-file change on that repository, cold and with a database at the head; `false_complete.py`
//! samples uniquely named functions of a tree and checks every caller list `context` calls complete
//! against the calls in the source. `export-same.sh` indexes every corpus with two builds and
//! compares their sorted exports, for changes that must change no output. `plugin-cost.sh` measures
//! what the declarative plugins add to `drsg index` of each corpus (one binary, plugins on and off), in
//! time with `pairs.py` (two commands run in turn, medians of the pairs' ratios) or in instructions.
//!
//! Accuracy: `accuracy/rust.sh` compares drsg's Rust call bindings with rust-analyzer's SCIP index
//! (`compare_rust.py`: recall and precision at the call sites rust-analyzer binds to the tree),
//! over corpora `accuracy/corpora.sh` fetches (axum, ripgrep); `accuracy/python.sh` and
//! `accuracy/typescript.sh` do the same against jedi and pyright where they agree (`python_ref.py`)
//! and the TypeScript checker (`ts_ref.mjs`), with the conventions in `accuracy/README.md`. All are
//! run by hand; CI only compiles them through clippy.
//!
//! Parsing is the largest single cost of indexing (about half of an indexing run's CPU time on
//! Django), which is why `index.sh` and `instructions.sh` measure `drsg index` against `rawparse`.
