//! Parse: the files of a source read and parsed in parallel, taking the facts of blobs already parsed
//! from a cache; the plugins' one-time preparation started early; test files told by their path.
//!
//! The announced dialects are those of `Cargo.toml`, `pyproject.toml` or `setup.py`/`setup.cfg`,
//! `tsconfig.json`, `package.json` and the top-level sources. Files are parsed largest first and
//! split down to single files, so that what is left at the end is small.

use std::path::Path;

use drsg_parsers::{Lang, Registry, parse_file_with};
use foldhash::HashMap;
use rayon::prelude::*;

use super::options::Progress;
use crate::source::Source;
use crate::table::ParsedFile;
use crate::walk::SkipReason;

/// Facts already parsed, by blob id and path (facts depend on the path: test files are told by it),
/// so that a fold, or a branch switch back, parses no file twice.
#[derive(Default)]
pub(crate) struct BlobFacts {
    /// Set for a one-off run: nothing is kept, so each file's facts are freed once its edges are built.
    off: bool,
    entries: std::sync::Mutex<HashMap<(String, String), Cached>>,
}

#[derive(Clone)]
struct Cached {
    facts: std::sync::Arc<drsg_parsers::FileFacts>,
    lines: u32,
    bytes: u64,
}

impl BlobFacts {
    fn get(&self, blob: &str, path: &str) -> Option<Cached> {
        self.entries.lock().ok()?.get(&(blob.to_owned(), path.to_owned())).cloned()
    }

    /// A cache that keeps nothing.
    pub(crate) fn off() -> BlobFacts {
        BlobFacts { off: true, ..BlobFacts::default() }
    }

    /// Whether the cache keeps nothing.
    pub(crate) fn is_off(&self) -> bool {
        self.off
    }

    fn put(&self, blob: &str, path: &str, cached: Cached) {
        if self.off {
            return;
        }
        if let Ok(mut entries) = self.entries.lock() {
            entries.insert((blob.to_owned(), path.to_owned()), cached);
        }
    }

    /// Number of files held.
    pub(crate) fn len(&self) -> usize {
        self.entries.lock().map(|e| e.len()).unwrap_or(0)
    }
}

/// A file parsed, or the reason it was skipped.
pub(crate) type Parsed = Result<ParsedFile, (String, SkipReason)>;

/// Parse the candidates in parallel, taking the facts of a blob already parsed at the same path from
/// `cache` and putting new ones in it. Returns each file's facts (or why it was skipped) and how many
/// came from the cache.
pub(crate) fn parse_all(
    source: &Source,
    candidates: &[crate::walk::Candidate],
    registry: &Registry,
    max_file_size: u64,
    cache: &BlobFacts,
    progress: &dyn Progress,
) -> (Vec<Parsed>, u64) {
    let reader = source.reader(max_file_size);
    let reused = std::sync::atomic::AtomicU64::new(0);
    let dialects = unprepared_dialects(candidates, registry);
    let parse = |local: &mut crate::source::LocalReader<'_>, candidate: &crate::walk::Candidate| {
        let blob = reader.blob_id(&candidate.path);
        let cached = blob.and_then(|b| cache.get(b, &candidate.path));
        let result = match cached {
            Some(hit) => {
                reused.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                Ok(ParsedFile {
                    is_test: is_test_path(&candidate.path, candidate.lang),
                    lines: hit.lines,
                    bytes: hit.bytes,
                    path: candidate.path.clone(),
                    lang: candidate.lang,
                    facts: hit.facts,
                })
            }
            None => match local.read(candidate) {
                Ok(text) => {
                    let (plugin, lang) =
                        registry.for_path(&candidate.path).expect("the walk kept only files a plugin takes");
                    let facts = std::sync::Arc::new(parse_file_with(
                        plugin,
                        registry.extractors(),
                        lang,
                        &candidate.path,
                        &text,
                    ));
                    let lines = crate::walk::line_count(&text) as u32;
                    let bytes = text.len() as u64;
                    if let Some(blob) = blob {
                        cache.put(blob, &candidate.path, Cached { facts: facts.clone(), lines, bytes });
                    }
                    Ok(ParsedFile {
                        is_test: is_test_path(&candidate.path, lang),
                        lines,
                        bytes,
                        path: candidate.path.clone(),
                        lang,
                        facts,
                    })
                }
                Err(reason) => Err((candidate.path.clone(), reason)),
            },
        };
        progress.advance(1);
        result
    };
    // Largest files first, and split down to single files. Rayon otherwise cuts the list into a few long
    // runs that no idle worker can take a part of: Django's parse ended with one worker alone for 0.2 to
    // 0.5 s. Split finely, a worker with nothing left takes the later half of what another has left, and
    // with the largest files first, what is left at the end is small.
    let mut order: Vec<usize> = (0..candidates.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(candidates[i].size));
    let mut outcomes: Vec<(usize, Parsed)> = std::thread::scope(|scope| {
        for (plugin, lang) in dialects {
            scope.spawn(move || plugin.prepare(lang));
        }
        order
            .par_iter()
            .with_max_len(1)
            .map_init(|| reader.local(), |local, &i| (i, parse(local, &candidates[i])))
            .collect()
    });
    // Back to the candidates' (path) order, which the table and the ledger keep.
    outcomes.sort_unstable_by_key(|&(i, _)| i);
    (outcomes.into_iter().map(|(_, parsed)| parsed).collect(), reused.into_inner())
}

/// The dialects whose one-time preparation (query compiles) a thread of this process has started.
static STARTED: std::sync::Mutex<Vec<(&'static str, Lang)>> = std::sync::Mutex::new(Vec::new());

/// Starts preparing, each on a thread of its own, the dialects that the top level of `root` announces:
/// `Cargo.toml` Rust, `pyproject.toml`, `setup.py` or `setup.cfg` Python, `tsconfig.json` TypeScript,
/// `package.json` JavaScript, and every file there that a plugin takes its own dialect. Returns at once.
///
/// Called before the store is opened and the tree walked, both of which keep one thread busy for a while
/// (10 ms on tokio, 50 ms and more on Django), so that the queries compile on the other core instead of
/// holding up the first files' extraction (the Rust query takes about 9 ms to compile, each TypeScript
/// grammar's 7 ms alone and 10 to 20 ms beside the parse). A dialect announced but absent costs its
/// compile's CPU time; one present but unannounced is started when the walk finds it, as before.
pub fn prepare_announced_dialects(root: &Path, registry: &'static Registry) {
    let Ok(entries) = std::fs::read_dir(root) else { return };
    let mut samples: Vec<String> = Vec::new();
    for entry in entries.flatten().take(MAX_ANNOUNCING_ENTRIES) {
        let name = entry.file_name().to_string_lossy().into_owned();
        let sample = match name.as_str() {
            "Cargo.toml" => "lib.rs",
            "pyproject.toml" | "setup.py" | "setup.cfg" => "setup.py",
            "tsconfig.json" => "index.ts",
            "package.json" => "index.js",
            _ => &name,
        };
        samples.push(sample.to_owned());
    }
    let Ok(mut started) = STARTED.lock() else { return };
    for sample in samples {
        let Some((plugin, lang)) = registry.for_path(&sample) else { continue };
        if !claim(&mut started, plugin, lang) {
            continue;
        }
        // Detached: a compile that outlives the run (an error ended it early) holds nothing of it.
        let spawned = std::thread::Builder::new().name("drsg-prepare".into()).spawn(move || plugin.prepare(lang));
        if spawned.is_err() {
            // No thread: the first file of the dialect prepares it, as it would anyway.
            started.pop();
        }
    }
}

/// How many entries of a tree's top level [`prepare_announced_dialects`] looks at.
const MAX_ANNOUNCING_ENTRIES: usize = 256;

/// The dialects of `candidates` whose one-time preparation no run of this process has started yet, marked
/// as started. Each one's queries then compile on a thread of their own while the first files parse: done
/// by the first file that needs them, a compile (up to 20 ms for a TypeScript grammar) would hold up every
/// other worker reaching a file of the same dialect, and one dialect's compile would follow the other's.
/// Later runs (a watch loop's folds) start no thread.
fn unprepared_dialects<'r>(
    candidates: &[crate::walk::Candidate],
    registry: &'r Registry,
) -> Vec<(&'r dyn drsg_parsers::Language, Lang)> {
    let Ok(mut started) = STARTED.lock() else { return Vec::new() };
    let (mut seen, mut dialects) = (Vec::new(), Vec::new());
    for candidate in candidates {
        if seen.contains(&candidate.lang) {
            continue;
        }
        seen.push(candidate.lang);
        if let Some((plugin, lang)) = registry.for_path(&candidate.path)
            && claim(&mut started, plugin, lang)
        {
            dialects.push((plugin, lang));
        }
    }
    dialects
}

/// Marks `plugin`'s dialect `lang` as started in `started` ([`STARTED`]); `false` when it was already.
fn claim(started: &mut Vec<(&'static str, Lang)>, plugin: &dyn drsg_parsers::Language, lang: Lang) -> bool {
    let dialect = (plugin.name(), lang);
    let new = !started.contains(&dialect);
    if new {
        started.push(dialect);
    }
    new
}

/// Test files by path: Rust `tests/`, Python `test_*.py`/`*_test.py`/`conftest.py`/`tests/`,
/// JS `*.test.*`/`*.spec.*`/`__tests__/`.
pub fn is_test_path(path: &str, lang: Lang) -> bool {
    let in_dir = |d: &str| path.starts_with(&format!("{d}/")) || path.contains(&format!("/{d}/"));
    let file = path.rsplit('/').next().unwrap_or(path);
    match lang {
        Lang::Rust => in_dir("tests"),
        Lang::Python => {
            in_dir("tests")
                || in_dir("test")
                || file.starts_with("test_")
                || file.ends_with("_test.py")
                || file == "conftest.py"
        }
        Lang::TypeScript | Lang::Tsx | Lang::JavaScript => {
            in_dir("__tests__")
                || in_dir("tests")
                || in_dir("test")
                || file.contains(".test.")
                || file.contains(".spec.")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dialects_a_root_announces_are_started_before_the_walk() {
        static REGISTRY: std::sync::LazyLock<Registry> = std::sync::LazyLock::new(drsg_plugins::builtin);
        let dir = tempfile::tempdir().expect("tempdir");
        for name in ["Cargo.toml", "index.d.ts", "README.md"] {
            std::fs::write(dir.path().join(name), "").expect("write");
        }
        prepare_announced_dialects(dir.path(), &REGISTRY);
        let started = STARTED.lock().expect("lock").clone();
        assert!(started.contains(&("rust", Lang::Rust)), "{started:?}");
        assert!(started.contains(&("typescript", Lang::TypeScript)), "{started:?}");
        // Once started, a dialect is not started again: the walk's own preparation skips it.
        let rust = crate::walk::Candidate { path: "src/lib.rs".into(), lang: Lang::Rust, size: 1 };
        assert!(unprepared_dialects(&[rust], &REGISTRY).is_empty());
    }

    #[test]
    fn test_paths() {
        assert!(is_test_path("crates/x/tests/it/main.rs", Lang::Rust));
        assert!(!is_test_path("src/testing.rs", Lang::Rust));
        assert!(is_test_path("pkg/test_models.py", Lang::Python));
        assert!(is_test_path("src/app.spec.tsx", Lang::Tsx));
        assert!(!is_test_path("src/contest.ts", Lang::TypeScript));
    }
}
