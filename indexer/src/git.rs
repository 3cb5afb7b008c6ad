//! Git access (gix), turned into plain values: HEAD, refs, commits, reflogs, trees and blobs.
//! The only module of the crate that reads a repository.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use gix::bstr::ByteSlice;

use crate::dates::parse_date;

/// Why a repository could not be read.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    #[error(
        "unknown revision `{rev}`; revisions are a full sha, a sha prefix of at least 4 characters, a tag, a branch, `HEAD~n`, `<rev>^n`, a date (`2024-01-31`) or `<rev>@{{<date>}}`"
    )]
    UnknownRevision { rev: String },
    #[error(
        "`{rev}`: the reflog of {name} only goes back to {first}, so where it pointed before is not recorded; ask for a date since then, or a plain date (`2024-01-31`) for HEAD's history"
    )]
    BeforeReflog { rev: String, name: String, first: String },
    #[error("`{rev}` names a {kind}, not a commit")]
    NotACommit { rev: String, kind: String },
    #[error("the repository at {path} has no commits yet")]
    NoCommits { path: PathBuf },
    #[error(
        "`{rev}` is not in this shallow clone's history, which git cut off: fetch more of it first (`git fetch --deepen=100`, or `git fetch --unshallow`)"
    )]
    PastShallow { rev: String },
    #[error("reading the repository at {path}: {message}")]
    Read { path: PathBuf, message: String },
}

/// Where a tree sits in git: the repository's work tree and the commit HEAD points at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkout {
    pub workdir: PathBuf,
    /// Full hex id of HEAD's commit; `None` for a repository with no commits yet.
    pub head: Option<String>,
}

/// The checkout containing `dir`, if `dir` is inside a git work tree.
pub fn checkout(dir: &Path) -> Option<Checkout> {
    let repo = Repo::discover(dir)?;
    Some(Checkout { workdir: repo.workdir.clone(), head: repo.head().commit })
}

/// HEAD: the commit it reaches and the branch it names, if any.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Head {
    /// Full hex id; `None` before the first commit.
    pub commit: Option<String>,
    /// Full ref name (`refs/heads/main`) unless HEAD is detached.
    pub branch: Option<String>,
}

/// What a tree entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    File,
    Link,
    /// A submodule's commit: its files are not in this repository.
    Submodule,
}

/// A file of a commit's tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeEntry {
    /// Relative to the prefix asked for, `/`-separated.
    pub path: String,
    /// Hex id of the blob (of the commit, for a submodule).
    pub id: String,
    pub kind: EntryKind,
}

/// A commit with what the `_git` plane records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommitInfo {
    pub sha: String,
    pub parents: Vec<String>,
    pub summary: String,
    pub author: String,
    /// Committer time, seconds since the Unix epoch.
    pub committed_at: i64,
}

/// A commit's id and its parents' ids (first parent first), as [`Repo::walk`] gives them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Walked {
    pub sha: String,
    pub parents: Vec<String>,
}

/// What kind of reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefKind {
    Branch,
    RemoteBranch,
    Tag,
}

/// A branch or a tag.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefInfo {
    /// Full name (`refs/heads/main`, `refs/remotes/origin/main`, `refs/tags/v1`).
    pub name: String,
    /// Short name (`main`, `origin/main`, `v1`).
    pub short: String,
    pub kind: RefKind,
    /// The commit it reaches after peeling tags; `None` when it points at something else (a tag of
    /// a tree or a blob).
    pub commit: Option<String>,
    /// For an annotated tag, the tag object's id.
    pub tag_object: Option<String>,
}

/// A file that differs between two commits' trees.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathChange {
    Added(String),
    Deleted(String),
    Modified(String),
    /// Moved (possibly edited on the way), as git's rename detection sees it.
    Renamed {
        from: String,
        to: String,
    },
}

/// One line of a reflog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReflogEntry {
    /// `None` for the line that created the ref.
    pub old: Option<String>,
    /// `None` for the line that deleted it.
    pub new: Option<String>,
    pub message: String,
    /// Seconds since the Unix epoch.
    pub time: i64,
}

/// A commit's tree below a prefix: its entries and its directories, by path relative to the prefix.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Listing {
    pub files: BTreeMap<String, TreeEntry>,
    /// Entries whose name is not UTF-8, by their path with those bytes escaped (`bad\xff.py`), and
    /// whether each is a directory: they are not listed in `files`, so no two merge into one.
    pub bad_names: BTreeMap<String, bool>,
    /// Every directory (`""` for the prefix itself) → the id of its tree.
    pub dirs: BTreeMap<String, gix::ObjectId>,
}

impl Listing {
    /// Copies directory `dir` (which must be here) with everything below it into `out`.
    fn copy_dir(&self, dir: &str, out: &mut Listing) {
        let below = format!("{dir}/");
        out.dirs.insert(dir.to_owned(), self.dirs[dir]);
        out.dirs.extend(under(&self.dirs, &below).map(|(p, id)| (p.clone(), *id)));
        out.files.extend(under(&self.files, &below).map(|(p, e)| (p.clone(), e.clone())));
        out.bad_names.extend(under(&self.bad_names, &below).map(|(p, d)| (p.clone(), *d)));
    }
}

/// The entries of `map` whose path starts with `prefix`.
fn under<'m, V>(map: &'m BTreeMap<String, V>, prefix: &'m str) -> impl Iterator<Item = (&'m String, &'m V)> {
    map.range::<str, _>((std::ops::Bound::Included(prefix), std::ops::Bound::Unbounded))
        .take_while(move |(p, _)| p.starts_with(prefix))
}

/// An open repository.
#[derive(Clone)]
pub struct Repo {
    repo: gix::Repository,
    workdir: PathBuf,
}

impl Repo {
    /// The repository whose work tree holds `dir`; `None` outside one (or for a bare repository).
    /// Whether `dir` is (inside) a bare repository: one with no work tree, so nothing to index.
    pub fn is_bare(dir: &Path) -> bool {
        gix::discover(dir).is_ok_and(|repo| repo.workdir().is_none())
    }

    pub fn discover(dir: &Path) -> Option<Repo> {
        let repo = gix::discover(dir).ok()?;
        let workdir = repo.workdir()?.canonicalize().ok()?;
        Some(Repo { repo, workdir })
    }

    pub fn workdir(&self) -> &Path {
        &self.workdir
    }

    /// `dir`'s place in the work tree, `/`-separated (`""` for the work tree itself); `None` outside it.
    pub fn tree_prefix(&self, dir: &Path) -> Option<String> {
        let rel = dir.strip_prefix(&self.workdir).ok()?;
        Some(rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/"))
    }

    /// The directories where HEAD, refs and reflogs live: the worktree's own git directory and the
    /// common one (the same for an ordinary checkout).
    pub fn git_dirs(&self) -> Vec<PathBuf> {
        let mut dirs = vec![self.repo.git_dir().to_path_buf()];
        let common = self.repo.common_dir().to_path_buf();
        if common != dirs[0] {
            dirs.push(common);
        }
        dirs
    }

    /// The files a commit changed against its first parent, without rename detection (cheap: no blob is
    /// read); `None` for a root commit.
    pub fn commit_paths(&self, sha: &str) -> Result<Option<Vec<String>>, GitError> {
        let commit = self.repo.find_commit(self.object_id(sha)?).map_err(|e| self.read_error(e))?;
        let Some(parent) = commit.parent_ids().next() else { return Ok(None) };
        let parent = self.repo.find_commit(parent.detach()).map_err(|e| self.read_error(e))?;
        let (old, new) =
            (parent.tree().map_err(|e| self.read_error(e))?, commit.tree().map_err(|e| self.read_error(e))?);
        let changes = self
            .repo
            .diff_tree_to_tree(&old, &new, gix::diff::Options::default().with_rewrites(None))
            .map_err(|e| self.read_error(e))?;
        let mut out: Vec<String> = changes
            .into_iter()
            .filter(|c| !c.entry_mode().is_tree())
            .map(|c| c.location().to_str_lossy().into_owned())
            .collect();
        out.sort_unstable();
        out.dedup();
        Ok(Some(out))
    }

    /// The files (blobs and links, not directories) that differ between two commits, with renames.
    pub fn changed_paths(&self, from: &str, to: &str) -> Result<Vec<PathChange>, GitError> {
        let tree_of = |sha: &str| -> Result<gix::Tree<'_>, GitError> {
            let commit = self.repo.find_commit(self.object_id(sha)?).map_err(|e| self.read_error(e))?;
            commit.tree().map_err(|e| self.read_error(e))
        };
        let (old, new) = (tree_of(from)?, tree_of(to)?);
        let options = gix::diff::Options::default().with_rewrites(Some(Default::default()));
        let changes = self.repo.diff_tree_to_tree(&old, &new, options).map_err(|e| self.read_error(e))?;
        let text = |b: &gix::bstr::BString| b.to_str_lossy().into_owned();
        let mut out = Vec::new();
        for change in changes {
            use gix::object::tree::diff::ChangeDetached as C;
            match change {
                C::Addition { location, entry_mode, .. } if !entry_mode.is_tree() => {
                    out.push(PathChange::Added(text(&location)))
                }
                C::Deletion { location, entry_mode, .. } if !entry_mode.is_tree() => {
                    out.push(PathChange::Deleted(text(&location)))
                }
                C::Modification { location, entry_mode, .. } if !entry_mode.is_tree() => {
                    out.push(PathChange::Modified(text(&location)));
                }
                C::Rewrite { source_location, location, entry_mode, copy, .. } if !entry_mode.is_tree() => {
                    if copy {
                        out.push(PathChange::Added(text(&location)));
                    } else {
                        out.push(PathChange::Renamed { from: text(&source_location), to: text(&location) });
                    }
                }
                _ => {}
            }
        }
        Ok(out)
    }

    /// Whether the object database holds commit `sha`.
    pub fn has_commit(&self, sha: &str) -> bool {
        self.object_id(sha).ok().and_then(|id| self.repo.find_commit(id).ok()).is_some()
    }

    fn read_error(&self, err: impl std::fmt::Display) -> GitError {
        GitError::Read { path: self.workdir.clone(), message: err.to_string() }
    }

    /// The commit HEAD names, read from its ref without reading any object (`None` before the first
    /// commit); a ref that cannot be read is an error.
    pub fn head_target(&self) -> Result<Option<String>, GitError> {
        let head = self.repo.head().map_err(|e| self.read_error(e))?;
        Ok(head.id().map(|id| id.to_string()))
    }

    pub fn head(&self) -> Head {
        let commit = self.repo.head_id().ok().map(|id| id.to_string());
        let branch = self.repo.head_name().ok().flatten().map(|name| name.as_bstr().to_string());
        Head { commit, branch }
    }

    /// The commit a revision names: git's syntax (sha, prefix, tag, branch, `~n`, `^n`,
    /// `<rev>@{<date>}`), a bare `~n` / `^n` meaning HEAD's, or a date (the newest commit of HEAD's
    /// history made at or before it; a bare day means its end, UTC).
    pub fn resolve(&self, rev: &str) -> Result<String, GitError> {
        let unknown = || GitError::UnknownRevision { rev: rev.to_owned() };
        let rev = rev.trim();
        if rev.is_empty() || rev.starts_with('-') {
            return Err(unknown());
        }
        if let Some(when) = parse_date(rev) {
            let head = self.head().commit.ok_or_else(unknown)?;
            return self
                .commits(&[head], None)?
                .into_iter()
                .find(|c| c.committed_at <= when)
                .map(|c| c.sha)
                .ok_or_else(unknown);
        }
        let rev = if rev.starts_with(['~', '^']) { format!("HEAD{rev}") } else { rev.to_owned() };
        let rev = rev.as_str();
        self.check_reflog_reaches(rev)?;
        let id = self.repo.rev_parse_single(rev).map_err(|_| {
            self.unreadable_target(rev).unwrap_or_else(|| {
                if self.is_shallow() { GitError::PastShallow { rev: rev.to_owned() } } else { unknown() }
            })
        })?;
        let object = id.object().map_err(|e| self.read_error(e))?;
        let kind = object.kind;
        let commit = object
            .peel_to_commit()
            .map_err(|_| GitError::NotACommit { rev: rev.to_owned(), kind: kind.to_string() })?;
        Ok(commit.id.to_string())
    }

    /// Why a revision that names a ref could not be parsed when the object the ref points at cannot be
    /// read (corrupt or missing): an error naming the object, not an unknown revision.
    fn unreadable_target(&self, rev: &str) -> Option<GitError> {
        let name = rev.split(['~', '^', '@', ':']).next().filter(|n| !n.is_empty())?;
        let id = if name == "HEAD" {
            gix::ObjectId::from_hex(self.head_target().ok()??.as_bytes()).ok()?
        } else {
            self.repo.find_reference(name).ok()?.target().try_id()?.to_owned()
        };
        let err = self.repo.find_object(id).err()?;
        Some(GitError::Read {
            path: self.workdir.clone(),
            message: format!("object {id}, which `{name}` points at, is corrupt or missing: {err}"),
        })
    }

    /// Refuses `<ref>@{<date>}` for a date before the ref's reflog begins (git would answer with the
    /// oldest entry and a warning; an answer has no room for the warning).
    fn check_reflog_reaches(&self, rev: &str) -> Result<(), GitError> {
        let Some((name, date)) = rev.strip_suffix('}').and_then(|r| r.rsplit_once("@{")) else { return Ok(()) };
        let Some(when) = parse_date(date.trim()) else { return Ok(()) };
        let name = if name.is_empty() { "HEAD" } else { name };
        let first = self.reflog(name).iter().map(|e| e.time).min();
        match first {
            Some(first) if when < first => Err(GitError::BeforeReflog {
                rev: rev.to_owned(),
                name: name.to_owned(),
                first: crate::dates::iso_date(first),
            }),
            _ => Ok(()),
        }
    }

    /// The entries of `commit`'s tree below `prefix` (paths relative to it), sorted by path.
    pub fn tree_files(&self, commit: &str, prefix: &str) -> Result<Vec<TreeEntry>, GitError> {
        Ok(self.tree_listing(commit, prefix, None)?.files.into_values().collect())
    }

    /// `commit`'s tree below `prefix` (paths relative to it). With `previous` (a listing of the same
    /// prefix at another commit), a subtree whose id did not change is copied from it instead of read:
    /// a commit touching a few files reads a few trees.
    pub fn tree_listing(&self, commit: &str, prefix: &str, previous: Option<&Listing>) -> Result<Listing, GitError> {
        let mut out = Listing::default();
        if let Some(top) = self.subtree(commit, prefix)? {
            self.list_tree(top, "", previous, &mut out)?;
        }
        Ok(out)
    }

    /// The id of `commit`'s tree at `prefix` (`""`: the root tree); `None` when there is no directory there.
    fn subtree(&self, commit: &str, prefix: &str) -> Result<Option<gix::ObjectId>, GitError> {
        let id = self.object_id(commit)?;
        let commit = self.repo.find_commit(id).map_err(|e| self.read_error(e))?;
        let tree = commit.tree().map_err(|e| self.read_error(e))?;
        let prefix = prefix.trim_matches('/');
        if prefix.is_empty() {
            return Ok(Some(tree.id));
        }
        let entry = tree.lookup_entry_by_path(prefix).map_err(|e| self.read_error(e))?;
        Ok(entry.filter(|e| e.mode().is_tree()).map(|e| e.object_id()))
    }

    fn list_tree(
        &self,
        id: gix::ObjectId,
        dir: &str,
        previous: Option<&Listing>,
        out: &mut Listing,
    ) -> Result<(), GitError> {
        out.dirs.insert(dir.to_owned(), id);
        let tree = self.repo.find_tree(id).map_err(|e| self.read_error(e))?;
        let decoded = tree.decode().map_err(|e| self.read_error(e))?;
        for entry in &decoded.entries {
            let Ok(name) = std::str::from_utf8(entry.filename.as_ref()) else {
                let name = crate::walk::escape_bytes(entry.filename.as_ref());
                let path = if dir.is_empty() { name } else { format!("{dir}/{name}") };
                out.bad_names.insert(path, entry.mode.is_tree());
                continue;
            };
            let path = if dir.is_empty() { name.to_owned() } else { format!("{dir}/{name}") };
            let mode = entry.mode;
            let kind = if mode.is_tree() {
                let sub = entry.oid.to_owned();
                match previous {
                    Some(previous) if previous.dirs.get(&path) == Some(&sub) => previous.copy_dir(&path, out),
                    _ => self.list_tree(sub, &path, previous, out)?,
                }
                continue;
            } else if mode.is_link() {
                EntryKind::Link
            } else if mode.is_commit() {
                EntryKind::Submodule
            } else if mode.is_blob() {
                EntryKind::File
            } else {
                continue;
            };
            out.files.insert(path.clone(), TreeEntry { path, id: entry.oid.to_string(), kind });
        }
        Ok(())
    }

    /// Whether `commit`'s tree holds anything below `prefix`.
    /// [`Repo::tracks`], but an object that cannot be read on the way is an error.
    pub fn tracks_checked(&self, commit: &str, prefix: &str) -> Result<bool, GitError> {
        if prefix.trim_matches('/').is_empty() {
            return Ok(true);
        }
        Ok(self.subtree(commit, prefix)?.is_some())
    }

    pub fn tracks(&self, commit: &str, prefix: &str) -> bool {
        self.tracks_checked(commit, prefix).unwrap_or(false)
    }

    /// The bytes of a blob.
    pub fn blob(&self, id: &str) -> Result<Vec<u8>, GitError> {
        let id = self.object_id(id)?;
        let blob = self.repo.find_blob(id).map_err(|e| self.read_error(e))?;
        Ok(blob.data.clone())
    }

    /// Commits reachable from `tips`, newest first by committer time, at most `limit`.
    pub fn commits(&self, tips: &[String], limit: Option<usize>) -> Result<Vec<CommitInfo>, GitError> {
        let mut out = Vec::new();
        self.each_walked(tips, limit, |info| {
            out.push(self.commit_info(info.id)?);
            Ok(())
        })?;
        Ok(out)
    }

    /// Like [`Repo::commits`], with each commit's id and parents only: its text is read apart, with
    /// [`Repo::commit`] (decoded again unless an object cache, [`Repo::with_object_cache`], still holds it).
    pub fn walk(&self, tips: &[String], limit: Option<usize>) -> Result<Vec<Walked>, GitError> {
        let mut out = Vec::new();
        self.each_walked(tips, limit, |info| {
            let parents = info.parent_ids.iter().map(|p| p.to_string()).collect();
            out.push(Walked { sha: info.id.to_string(), parents });
            Ok(())
        })?;
        Ok(out)
    }

    /// Calls `each` with the commits reachable from `tips`, newest first by committer time, at most `limit`.
    fn each_walked(
        &self,
        tips: &[String],
        limit: Option<usize>,
        mut each: impl FnMut(gix::revision::walk::Info<'_>) -> Result<(), GitError>,
    ) -> Result<(), GitError> {
        let tips: Vec<gix::ObjectId> = tips.iter().map(|t| self.object_id(t)).collect::<Result<_, _>>()?;
        if tips.is_empty() {
            return Ok(());
        }
        let walk = self
            .repo
            .rev_walk(tips)
            .sorting(gix::revision::walk::Sorting::ByCommitTime(Default::default()))
            .all()
            .map_err(|e| self.read_error(e))?;
        for (n, info) in walk.enumerate() {
            if limit.is_some_and(|l| n >= l) {
                break;
            }
            each(info.map_err(|e| self.read_error(e))?)?;
        }
        Ok(())
    }

    /// This repository with a cache of at most `bytes` of the objects it decodes (none by default), for
    /// a reader that reads the same objects twice, such as a [`Repo::walk`] then each commit's text.
    pub fn with_object_cache(&self, bytes: usize) -> Repo {
        let mut repo = self.repo.clone();
        repo.object_cache_size(bytes);
        Repo { repo, workdir: self.workdir.clone() }
    }

    /// The newest commit that is an ancestor of both `a` and `b` (either itself included), by
    /// committer time; `None` when their histories do not meet (or one is cut by a shallow clone).
    pub fn merge_base(&self, a: &str, b: &str) -> Result<Option<String>, GitError> {
        if a == b {
            return Ok(Some(a.to_owned()));
        }
        let of_b: std::collections::HashSet<String> =
            self.commits(&[b.to_owned()], None)?.into_iter().map(|c| c.sha).collect();
        Ok(self.commits(&[a.to_owned()], None)?.into_iter().map(|c| c.sha).find(|sha| of_b.contains(sha)))
    }

    /// Whether the repository is a shallow clone (its history cut at some commits).
    pub fn is_shallow(&self) -> bool {
        self.repo.is_shallow().unwrap_or(false)
    }

    /// One commit.
    pub fn commit(&self, sha: &str) -> Result<CommitInfo, GitError> {
        self.commit_info(self.object_id(sha)?)
    }

    fn commit_info(&self, id: gix::ObjectId) -> Result<CommitInfo, GitError> {
        let commit = self.repo.find_commit(id).map_err(|e| self.read_error(e))?;
        let summary = commit.message().map(|m| m.summary().to_string()).unwrap_or_default();
        let author = commit
            .author()
            .map(|a| format!("{} <{}>", a.name.to_str_lossy(), a.email.to_str_lossy()))
            .unwrap_or_default();
        let committed_at = commit.time().map(|t| t.seconds).unwrap_or(0);
        let parents = commit.parent_ids().map(|p| p.to_string()).collect();
        Ok(CommitInfo { sha: id.to_string(), parents, summary, author, committed_at })
    }

    /// Local branches, remote branches and tags, by name.
    pub fn refs(&self) -> Result<Vec<RefInfo>, GitError> {
        let platform = self.repo.references().map_err(|e| self.read_error(e))?;
        let mut out = Vec::new();
        for reference in platform.all().map_err(|e| self.read_error(e))? {
            let Ok(mut reference) = reference else { continue };
            let name = reference.name().as_bstr().to_string();
            let (kind, short) = if let Some(s) = name.strip_prefix("refs/heads/") {
                (RefKind::Branch, s.to_owned())
            } else if let Some(s) = name.strip_prefix("refs/remotes/") {
                if s.ends_with("/HEAD") {
                    continue;
                }
                (RefKind::RemoteBranch, s.to_owned())
            } else if let Some(s) = name.strip_prefix("refs/tags/") {
                (RefKind::Tag, s.to_owned())
            } else {
                continue;
            };
            let direct = reference.target().try_id().map(|id| id.to_owned());
            let tag_object = direct.and_then(|id| {
                let object = self.repo.find_object(id).ok()?;
                (object.kind == gix::object::Kind::Tag).then(|| id.to_string())
            });
            let commit = reference
                .peel_to_id()
                .ok()
                .and_then(|id| id.object().ok())
                .and_then(|object| object.peel_to_commit().ok())
                .map(|c| c.id.to_string());
            out.push(RefInfo { name, short, kind, commit, tag_object });
        }
        out.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(out)
    }

    /// The reflog of `name` (`HEAD`, `refs/heads/main`), oldest first; empty when there is none.
    pub fn reflog(&self, name: &str) -> Vec<ReflogEntry> {
        let Ok(reference) = self.repo.find_reference(name) else { return Vec::new() };
        let mut platform = reference.log_iter();
        let Ok(Some(lines)) = platform.all() else { return Vec::new() };
        let hex = |id: &gix::oid| (!id.is_null()).then(|| id.to_string());
        lines
            .filter_map(Result::ok)
            .map(|line| ReflogEntry {
                old: hex(&line.previous_oid()),
                new: hex(&line.new_oid()),
                message: line.message.to_str_lossy().into_owned(),
                time: line.signature.time().map(|t| t.seconds).unwrap_or(0),
            })
            .collect()
    }

    /// A handle to read blobs from several threads (each makes its own [`LocalBlobs`]).
    pub fn blob_reader(&self) -> BlobReader {
        BlobReader(self.repo.clone().into_sync())
    }

    fn object_id(&self, hex: &str) -> Result<gix::ObjectId, GitError> {
        gix::ObjectId::from_hex(hex.as_bytes()).map_err(|_| GitError::UnknownRevision { rev: hex.to_owned() })
    }
}

/// Blob access shared between threads.
#[derive(Clone)]
pub struct BlobReader(gix::ThreadSafeRepository);

impl BlobReader {
    /// A reader for the calling thread.
    pub fn local(&self) -> LocalBlobs {
        LocalBlobs(self.0.to_thread_local())
    }
}

/// Blob access for one thread.
pub struct LocalBlobs(gix::Repository);

impl LocalBlobs {
    /// The bytes of blob `id` (hex), or `None` when it cannot be read.
    pub fn read(&self, id: &str) -> Option<Vec<u8>> {
        let id = gix::ObjectId::from_hex(id.as_bytes()).ok()?;
        Some(self.0.find_blob(id).ok()?.data.clone())
    }
}
