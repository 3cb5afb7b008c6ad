//! Where a run reads its files: the tree of a commit (a git checkout: what HEAD holds, never the
//! uncommitted edits), or a directory on disk (anything else).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use drsg_parsers::Registry;

use crate::git::{BlobReader, EntryKind, GitError, Listing, Repo, TreeEntry};
use crate::walk::{self, Candidate, SkipReason, WalkOutcome, manifest_kind};

/// Read access to a tree, for manifests and layout questions.
pub trait TreeView {
    fn read_to_string(&self, rel: &str) -> Result<String, String>;
    fn is_dir(&self, rel: &str) -> bool;
    fn is_file(&self, rel: &str) -> bool;
}

/// The files a run indexes.
pub enum Source {
    Disk { root: PathBuf },
    Commit(Box<CommitTree>),
}

/// A commit's tree below a prefix (the indexed directory inside the work tree).
pub struct CommitTree {
    pub repo: Repo,
    pub commit: String,
    /// The indexed directory relative to the work tree (`""` for the whole tree).
    pub prefix: String,
    listing: Arc<Listing>,
}

impl CommitTree {
    pub fn new(repo: Repo, commit: String, prefix: String) -> Result<CommitTree, GitError> {
        CommitTree::after(repo, commit, prefix, None)
    }

    /// The tree of `commit`, reading only the subtrees that differ from `previous` (a listing of the
    /// same prefix).
    pub fn after(
        repo: Repo,
        commit: String,
        prefix: String,
        previous: Option<&Listing>,
    ) -> Result<CommitTree, GitError> {
        let listing = Arc::new(repo.tree_listing(&commit, &prefix, previous)?);
        Ok(CommitTree { repo, commit, prefix, listing })
    }

    /// The blob id of a file.
    pub fn blob_id(&self, rel: &str) -> Option<&str> {
        self.listing.files.get(rel).filter(|e| e.kind == EntryKind::File).map(|e| e.id.as_str())
    }

    /// Every file entry, by path.
    pub fn entries(&self) -> impl Iterator<Item = &TreeEntry> {
        self.listing.files.values()
    }

    /// The files the `_ops` plane may read, sorted, as [`Source::walk`] finds them.
    pub fn ops_files(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .entries()
            .filter(|e| e.kind == EntryKind::File && !e.path.split('/').any(|part| part.starts_with('.')))
            .filter(|e| crate::ops::names::is_ops_name(e.path.rsplit('/').next().unwrap_or(&e.path)))
            .map(|e| e.path.clone())
            .collect();
        out.sort();
        out
    }

    /// The entries and directories, shared.
    pub fn listing(&self) -> &Arc<Listing> {
        &self.listing
    }
}

impl Source {
    /// The committed tree of HEAD when `root` is a tracked directory of a git checkout with commits;
    /// the directory on disk otherwise (not a checkout, no commits yet, or an untracked or ignored
    /// directory inside one).
    ///
    /// A commit or tree of HEAD that cannot be read (a corrupt or missing object) is an error, never a
    /// reason to read the directory on disk instead.
    pub fn for_dir(root: &Path) -> Result<Source, GitError> {
        let disk = || Ok(Source::Disk { root: root.to_path_buf() });
        let Some(repo) = Repo::discover(root) else { return disk() };
        let Some(head) = repo.head_target()? else { return disk() };
        let Some(prefix) = repo.tree_prefix(root) else { return disk() };
        if !repo.tracks_checked(&head, &prefix)? {
            return disk();
        }
        CommitTree::new(repo, head, prefix).map(|tree| Source::Commit(Box::new(tree)))
    }

    /// The blob id of a file, for a commit's tree.
    pub fn blob_id(&self, rel: &str) -> Option<&str> {
        match self {
            Source::Disk { .. } => None,
            Source::Commit(tree) => tree.blob_id(rel),
        }
    }

    /// The commit the files come from.
    pub fn commit(&self) -> Option<&str> {
        match self {
            Source::Disk { .. } => None,
            Source::Commit(tree) => Some(&tree.commit),
        }
    }

    /// Sources, manifests and skips, sorted by path.
    pub fn walk(&self, registry: &Registry, max_file_size: u64) -> WalkOutcome {
        let tree = match self {
            Source::Disk { root } => return walk::walk(root, registry, max_file_size),
            Source::Commit(tree) => tree,
        };
        let mut out = WalkOutcome::default();
        for (path, is_dir) in &tree.listing.bad_names {
            let hidden = path.split('/').any(|part| part.starts_with('.'));
            if !hidden && (*is_dir || registry.for_path(path).is_some()) {
                out.skipped.push((path.clone(), SkipReason::NameNotUtf8));
            }
        }
        for entry in tree.entries() {
            let rel = &entry.path;
            // Hidden files and directories are skipped, as the walk on disk skips them.
            if rel.split('/').any(|part| part.starts_with('.')) {
                continue;
            }
            let name = rel.rsplit('/').next().unwrap_or(rel);
            match entry.kind {
                EntryKind::Submodule => {
                    out.skipped.push((rel.clone(), SkipReason::Submodule));
                    continue;
                }
                EntryKind::Link => {
                    if registry.for_path(rel).is_some() {
                        out.skipped.push((rel.clone(), SkipReason::Symlink));
                    }
                    continue;
                }
                EntryKind::File => {}
            }
            if name == "__init__.py" {
                out.python_packages.insert(rel.rsplit_once('/').map(|(d, _)| d.to_owned()).unwrap_or_default());
            }
            if let Some(kind) = manifest_kind(name) {
                out.manifests.push((kind, rel.clone()));
                continue;
            }
            if crate::ops::names::is_ops_name(name) {
                out.ops_files.push(rel.clone());
            }
            let Some((_, lang)) = registry.for_path(rel) else { continue };
            if walk::is_bundle_name(name) {
                out.skipped.push((rel.clone(), SkipReason::Generated));
                continue;
            }
            // The size is checked when the blob is read.
            out.candidates.push(Candidate { path: rel.clone(), lang, size: max_file_size });
        }
        out.skipped.sort();
        out.ops_files.sort();
        out
    }

    /// A reader of candidates' texts, usable from several threads (one [`TextReader::local`] each).
    pub fn reader(&self, max_file_size: u64) -> TextReader {
        match self {
            Source::Disk { root } => TextReader::Disk { root: root.clone() },
            Source::Commit(tree) => TextReader::Commit {
                blobs: Box::new(tree.repo.blob_reader()),
                listing: Arc::clone(&tree.listing),
                max_file_size,
            },
        }
    }
}

/// Reads candidates' texts.
pub enum TextReader {
    Disk { root: PathBuf },
    Commit { blobs: Box<BlobReader>, listing: Arc<Listing>, max_file_size: u64 },
}

/// A [`TextReader`] bound to one thread.
pub enum LocalReader<'a> {
    Disk(&'a Path),
    Commit { blobs: Box<crate::git::LocalBlobs>, listing: &'a Listing, max_file_size: u64 },
}

impl TextReader {
    /// The blob id of a file, for a commit's tree.
    pub fn blob_id(&self, rel: &str) -> Option<&str> {
        match self {
            TextReader::Disk { .. } => None,
            TextReader::Commit { listing, .. } => listing.files.get(rel).map(|e| e.id.as_str()),
        }
    }

    pub fn local(&self) -> LocalReader<'_> {
        match self {
            TextReader::Disk { root } => LocalReader::Disk(root),
            TextReader::Commit { blobs, listing, max_file_size } => {
                LocalReader::Commit { blobs: Box::new(blobs.local()), listing, max_file_size: *max_file_size }
            }
        }
    }
}

impl LocalReader<'_> {
    /// The text of a candidate, or why it is skipped.
    pub fn read(&self, candidate: &Candidate) -> Result<String, SkipReason> {
        match self {
            LocalReader::Disk(root) => walk::read_source(root, candidate),
            LocalReader::Commit { blobs, listing, max_file_size } => {
                let entry = listing.files.get(&candidate.path).ok_or(SkipReason::Unreadable)?;
                let bytes = blobs.read(&entry.id).ok_or(SkipReason::Unreadable)?;
                if bytes.len() as u64 > *max_file_size {
                    return Err(SkipReason::TooLarge);
                }
                walk::check_text(bytes, candidate.lang)
            }
        }
    }
}

impl TreeView for Source {
    fn read_to_string(&self, rel: &str) -> Result<String, String> {
        match self {
            Source::Disk { root } => std::fs::read_to_string(root.join(rel)).map_err(|e| e.to_string()),
            Source::Commit(tree) => {
                let id = tree.listing.files.get(rel).ok_or_else(|| "not in the commit".to_owned())?;
                let bytes = tree.repo.blob(&id.id).map_err(|e| e.to_string())?;
                String::from_utf8(bytes).map_err(|_| "not valid UTF-8".to_owned())
            }
        }
    }

    fn is_dir(&self, rel: &str) -> bool {
        match self {
            Source::Disk { root } => root.join(rel).is_dir(),
            Source::Commit(tree) => tree.listing.dirs.contains_key(rel.trim_end_matches('/')),
        }
    }

    fn is_file(&self, rel: &str) -> bool {
        match self {
            Source::Disk { root } => root.join(rel).is_file(),
            Source::Commit(tree) => tree.listing.files.get(rel).is_some_and(|e| e.kind == EntryKind::File),
        }
    }
}
