//! Walking a tree: which files are sources, which are manifests, and which are skipped and why.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use drsg_parsers::{Lang, Registry};

/// Why a file was not parsed. Every skip is counted in the ledger.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SkipReason {
    /// Larger than the configured limit.
    TooLarge,
    /// Holds a NUL byte in its first 8 KiB.
    Binary,
    /// Not valid UTF-8.
    NotUtf8,
    /// Could not be read (permissions, vanished).
    Unreadable,
    /// A minified or bundled file (`*.min.js`, very long lines).
    Generated,
    /// A symbolic link: links are not followed, so nothing outside the tree is read.
    Symlink,
    /// The walker reported an error for this entry (a loop, a permission error on a directory).
    WalkError,
    /// A submodule: its files belong to another repository.
    Submodule,
    /// Its name (or a directory's above it) is not UTF-8: shown with its bytes escaped (`bad\xff.py`),
    /// never merged with another file whose name differs only in those bytes.
    NameNotUtf8,
}

impl SkipReason {
    pub fn as_str(self) -> &'static str {
        match self {
            SkipReason::TooLarge => "too_large",
            SkipReason::Binary => "binary",
            SkipReason::NotUtf8 => "not_utf8",
            SkipReason::Unreadable => "unreadable",
            SkipReason::Generated => "generated",
            SkipReason::Symlink => "symlink",
            SkipReason::WalkError => "walk_error",
            SkipReason::NameNotUtf8 => "name_not_utf8",
            SkipReason::Submodule => "submodule",
        }
    }
}

/// A source file found by the walk, not yet read.
#[derive(Debug, Clone)]
pub struct Candidate {
    /// Relative to the root, `/`-separated.
    pub path: String,
    pub lang: Lang,
    pub size: u64,
}

/// Manifests that shape keys and module resolution.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ManifestKind {
    Cargo,
    PackageJson,
    TsConfig,
    PyProject,
}

#[derive(Debug, Default)]
pub struct WalkOutcome {
    pub candidates: Vec<Candidate>,
    pub manifests: Vec<(ManifestKind, String)>,
    /// Directories (relative, `""` for the root) holding an `__init__.py`.
    pub python_packages: foldhash::HashSet<String>,
    pub skipped: Vec<(String, SkipReason)>,
    /// Files the `_ops` plane may read (YAML, Dockerfiles), sorted.
    pub ops_files: Vec<String>,
}

pub fn manifest_kind(file_name: &str) -> Option<ManifestKind> {
    match file_name {
        "Cargo.toml" => Some(ManifestKind::Cargo),
        "package.json" => Some(ManifestKind::PackageJson),
        "tsconfig.json" | "jsconfig.json" => Some(ManifestKind::TsConfig),
        "pyproject.toml" => Some(ManifestKind::PyProject),
        _ => None,
    }
}

/// Walk `root` honouring `.gitignore`, `.ignore` and `.git/info/exclude` (also outside a git checkout).
/// Hidden files are skipped, links are not followed. Sorted by path, so runs are deterministic.
///
/// The walk runs on two threads (`ignore`'s parallel walker): a source file's size costs a `stat` by full
/// path, whose lookups of every directory on the way took most of the walk's time, and the walk ran
/// alone with a core idle before the parse. Django's walk phase (with the manifests read after it)
/// 39.2 → 26.5 ms, its whole index 1,582.7 → 1,555.2 ms (medians of 8 and 11, interleaved). The
/// raw-parse baseline walks with this function too.
pub fn walk(root: &Path, registry: &Registry, max_file_size: u64) -> WalkOutcome {
    let found = Mutex::new(Vec::new());
    let walker = walk_builder(root).threads(WALK_THREADS).build_parallel();
    walker.visit(&mut Visitors { root, registry, max_file_size, found: &found });
    merge(found)
}

/// The walk's settings: ignore files honoured in and out of git checkouts, links not followed.
fn walk_builder(root: &Path) -> ignore::WalkBuilder {
    let mut builder = ignore::WalkBuilder::new(root);
    builder.require_git(false).follow_links(false);
    builder
}

/// The threads' findings as one outcome, sorted by path.
fn merge(found: Mutex<Vec<WalkOutcome>>) -> WalkOutcome {
    let mut out = WalkOutcome::default();
    for part in found.into_inner().unwrap_or_else(PoisonError::into_inner) {
        out.candidates.extend(part.candidates);
        out.manifests.extend(part.manifests);
        out.python_packages.extend(part.python_packages);
        out.skipped.extend(part.skipped);
        out.ops_files.extend(part.ops_files);
    }
    out.ops_files.sort();
    out.candidates.sort_by(|a, b| a.path.cmp(&b.path));
    out.manifests.sort_by(|a, b| a.1.cmp(&b.1));
    out.skipped.sort();
    out
}

/// Threads of the walk.
const WALK_THREADS: usize = 2;

/// Makes one [`Visitor`] per thread of the parallel walk.
struct Visitors<'a> {
    root: &'a Path,
    registry: &'a Registry,
    max_file_size: u64,
    /// What each visitor found, handed over as it is dropped.
    found: &'a Mutex<Vec<WalkOutcome>>,
}

impl<'s> ignore::ParallelVisitorBuilder<'s> for Visitors<'s> {
    fn build(&mut self) -> Box<dyn ignore::ParallelVisitor + 's> {
        Box::new(Visitor {
            root: self.root,
            registry: self.registry,
            max_file_size: self.max_file_size,
            out: WalkOutcome::default(),
            found: self.found,
        })
    }
}

/// One thread's share of the walk.
struct Visitor<'a> {
    root: &'a Path,
    registry: &'a Registry,
    max_file_size: u64,
    out: WalkOutcome,
    found: &'a Mutex<Vec<WalkOutcome>>,
}

impl Drop for Visitor<'_> {
    fn drop(&mut self) {
        let out = std::mem::take(&mut self.out);
        self.found.lock().unwrap_or_else(PoisonError::into_inner).push(out);
    }
}

impl ignore::ParallelVisitor for Visitor<'_> {
    fn visit(&mut self, entry: Result<ignore::DirEntry, ignore::Error>) -> ignore::WalkState {
        self.take(entry);
        ignore::WalkState::Continue
    }
}

impl Visitor<'_> {
    /// Sorts one entry of the walk into the outcome.
    fn take(&mut self, entry: Result<ignore::DirEntry, ignore::Error>) {
        let (root, registry, out) = (self.root, self.registry, &mut self.out);
        let entry = match entry {
            Ok(entry) => entry,
            Err(err) => {
                out.skipped.push((walk_error_path(&err, root), SkipReason::WalkError));
                return;
            }
        };
        let Some(file_type) = entry.file_type() else { return };
        if entry.path().strip_prefix(root).is_ok_and(|r| r.to_str().is_none()) {
            // A name that is not UTF-8: skipped and said, under its escaped bytes; what lies below such a
            // directory is said by the directory.
            let own = entry.file_name().to_str().is_none();
            if own && (file_type.is_dir() || registry.for_path(&entry.path().to_string_lossy()).is_some()) {
                out.skipped.push((escaped_path(root, entry.path()), SkipReason::NameNotUtf8));
            }
            return;
        }
        let rel = relative(root, entry.path());
        if rel.is_empty() {
            return;
        }
        let name = entry.file_name().to_string_lossy();
        if file_type.is_symlink() {
            if registry.for_path(&rel).is_some() {
                out.skipped.push((rel, SkipReason::Symlink));
            }
            return;
        }
        if !file_type.is_file() {
            return;
        }
        if name == "__init__.py" {
            let dir = rel.rsplit_once('/').map(|(d, _)| d.to_owned()).unwrap_or_default();
            out.python_packages.insert(dir);
        }
        if let Some(kind) = manifest_kind(&name) {
            out.manifests.push((kind, rel.clone()));
            return;
        }
        if crate::ops::names::is_ops_name(&name) {
            out.ops_files.push(rel.clone());
        }
        let Some((_, lang)) = registry.for_path(&rel) else { return };
        let size = match entry.metadata() {
            Ok(meta) => meta.len(),
            Err(_) => {
                out.skipped.push((rel, SkipReason::Unreadable));
                return;
            }
        };
        if size > self.max_file_size {
            out.skipped.push((rel, SkipReason::TooLarge));
            return;
        }
        if is_bundle_name(&name) {
            out.skipped.push((rel, SkipReason::Generated));
            return;
        }
        out.candidates.push(Candidate { path: rel, lang, size });
    }
}

pub(crate) fn is_bundle_name(name: &str) -> bool {
    name.ends_with(".min.js") || name.ends_with(".bundle.js") || name.ends_with(".min.mjs")
}

/// Read a candidate's text, or say why it is skipped. Minified JavaScript (few, very long lines) counts as generated.
pub fn read_source(root: &Path, candidate: &Candidate) -> Result<String, SkipReason> {
    let bytes = std::fs::read(root.join(&candidate.path)).map_err(|_| SkipReason::Unreadable)?;
    if bytes.len() as u64 > candidate.size.max(1) * 4 + 1024 * 1024 {
        // Grew wildly between walk and read (a log being written): treat as too large.
        return Err(SkipReason::TooLarge);
    }
    check_text(bytes, candidate.lang)
}

/// A file's bytes as source text, or why they are skipped: binary, not UTF-8, minified.
pub fn check_text(bytes: Vec<u8>, lang: Lang) -> Result<String, SkipReason> {
    let head = &bytes[..bytes.len().min(8192)];
    if head.contains(&0) {
        return Err(SkipReason::Binary);
    }
    let text = String::from_utf8(bytes).map_err(|_| SkipReason::NotUtf8)?;
    if matches!(lang, Lang::JavaScript) && looks_minified(&text) {
        return Err(SkipReason::Generated);
    }
    Ok(text)
}

fn looks_minified(text: &str) -> bool {
    let lines = line_count(text).max(1);
    text.len() > 20_000 && text.len() / lines > 500
}

/// The number of lines of `text`, as `str::lines` counts them (a last line needs no line break), from a
/// count of its line feeds: the compiler vectorises that loop, where `lines` searches for each break in
/// turn (Django's files: about 13 ms of CPU time against 1).
pub(crate) fn line_count(text: &str) -> usize {
    let breaks = text.as_bytes().iter().filter(|&&b| b == b'\n').count();
    breaks + usize::from(!text.is_empty() && !text.ends_with('\n'))
}

fn relative(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    let mut out = String::new();
    for part in rel.components() {
        if !out.is_empty() {
            out.push('/');
        }
        out.push_str(&part.as_os_str().to_string_lossy());
    }
    out
}

fn walk_error_path(err: &ignore::Error, root: &Path) -> String {
    fn find(err: &ignore::Error) -> Option<PathBuf> {
        match err {
            ignore::Error::WithPath { path, .. } => Some(path.clone()),
            ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => find(err),
            ignore::Error::Loop { child, .. } => Some(child.clone()),
            _ => None,
        }
    }
    find(err).map(|p| relative(root, &p)).unwrap_or_else(|| err.to_string())
}

/// Count skips by reason.
pub fn count_skips(skipped: &[(String, SkipReason)]) -> BTreeMap<&'static str, u64> {
    let mut counts = BTreeMap::new();
    for (_, reason) in skipped {
        *counts.entry(reason.as_str()).or_insert(0) += 1;
    }
    counts
}

/// `path` below `root` with the bytes of its names that are not UTF-8 escaped (`bad\xff.py`).
fn escaped_path(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt as _;
        escape_bytes(rel.as_os_str().as_bytes())
    }
    #[cfg(not(unix))]
    {
        rel.to_string_lossy().replace('\\', "/")
    }
}

/// Bytes as text, each byte that is not part of valid UTF-8 written `\xNN`.
pub fn escape_bytes(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a walk found, comparable: sources with sizes, manifests, skips, packages.
    type Found = (Vec<(String, u64)>, Vec<String>, Vec<(String, SkipReason)>, Vec<String>);

    fn found(out: &WalkOutcome) -> Found {
        let mut packages: Vec<String> = out.python_packages.iter().cloned().collect();
        packages.sort();
        (
            out.candidates.iter().map(|c| (c.path.clone(), c.size)).collect(),
            out.manifests.iter().map(|m| m.1.clone()).collect(),
            out.skipped.clone(),
            packages,
        )
    }

    /// The parallel walk finds what `ignore`'s serial walker finds, entry for entry (ignore rules, hidden
    /// entries, links, a file over the size limit, nesting, on a tree wide enough to give both threads
    /// work), and the same outcome every time.
    #[test]
    fn the_parallel_walk_finds_what_a_serial_walk_finds() {
        const MAX: u64 = 2048;
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        let write = |rel: &str, text: &str| {
            let path = root.join(rel);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("dirs");
            std::fs::write(path, text).expect("write");
        };
        write(".gitignore", "build/\n*.gen.py\n");
        write("build/out.py", "x = 1\n");
        write(".hidden/a.py", "x = 1\n");
        write("Cargo.toml", "[package]\nname = \"p\"\n");
        write("pkg/__init__.py", "");
        write("pkg/skip.gen.py", "x = 1\n");
        write("pkg/big.py", &"x = 1\n".repeat(1000));
        write("web/app.min.js", "f()\n");
        write("notes.txt", "text\n");
        std::os::unix::fs::symlink(root.join("pkg/__init__.py"), root.join("pkg/link.py")).expect("symlink");
        std::os::unix::fs::symlink(root, root.join("pkg/loop")).expect("symlink");
        for d in 0..40 {
            for f in 0..6 {
                write(&format!("d{d}/sub{}/m{f}.py", d % 3), "def f():\n    pass\n");
                write(&format!("d{d}/t{f}.ts"), "export const a = 1;\n");
            }
        }
        let registry = drsg_plugins::builtin();

        // The same sorting of entries, fed by the serial walker on this thread.
        let serial = {
            let parts = Mutex::new(Vec::new());
            let mut visitor =
                Visitor { root, registry: &registry, max_file_size: MAX, out: WalkOutcome::default(), found: &parts };
            for entry in walk_builder(root).build() {
                visitor.take(entry);
            }
            drop(visitor);
            merge(parts)
        };
        let first = walk(root, &registry, MAX);
        assert_eq!(found(&first), found(&serial));
        assert_eq!(first.candidates.len(), 40 * 6 * 2 + 1, "sources and pkg/__init__.py");
        assert_eq!(first.manifests.iter().map(|m| m.1.as_str()).collect::<Vec<_>>(), ["Cargo.toml"]);
        let skipped = [
            ("pkg/big.py".to_owned(), SkipReason::TooLarge),
            ("pkg/link.py".to_owned(), SkipReason::Symlink),
            ("web/app.min.js".to_owned(), SkipReason::Generated),
        ];
        assert_eq!(first.skipped, skipped);
        assert_eq!(found(&first).3, ["pkg"]);
        for _ in 0..5 {
            assert_eq!(found(&walk(root, &registry, MAX)), found(&first));
        }
    }

    #[test]
    fn lines_are_counted_as_str_lines_counts_them() {
        let texts =
            ["", "\n", "a", "a\n", "a\nb", "a\nb\n", "\n\n", "a\r\nb\r\n", "a\r\n\r\nb", "é\nü", "\r", "x\n\n\ny"];
        for text in texts {
            assert_eq!(line_count(text), text.lines().count(), "{text:?}");
        }
    }
}
